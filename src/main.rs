mod cli;

/// Counts allocations for `--max-memory` (see `isocheck::limits`).
#[global_allocator]
static ALLOC: isocheck::limits::CountingAlloc = isocheck::limits::CountingAlloc;

fn main() -> std::process::ExitCode {
    // A file size limit is then an error of the write (see `isocheck::files`).
    isocheck::files::ignore_file_size_signal();
    cli::main()
}
