//! `isocheck`: the command line over the `isocheck` library (see
//! ARCHITECTURE.md). The only code that prints and exits.

mod cli;

/// Counts allocations for `--max-memory` (see `isocheck::limits`).
#[global_allocator]
static ALLOC: isocheck::limits::CountingAlloc = isocheck::limits::CountingAlloc;

fn main() -> std::process::ExitCode {
    ignore_file_size_signal();
    cli::exhausted::install();
    cli::main()
}

/// Ignores SIGXFSZ, so that a write past the file size limit (`ulimit -f`)
/// fails with `EFBIG`, reported as any other write error (see
/// `isocheck::files`), instead of killing the process. Called once at
/// startup.
fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: sets the disposition of one signal to "ignore", before any
    // thread is started; no handler runs.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
