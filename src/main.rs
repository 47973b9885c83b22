/// Counts allocations for `--max-memory` (see `isocheck::limits`).
#[global_allocator]
static ALLOC: isocheck::limits::CountingAlloc = isocheck::limits::CountingAlloc;

fn main() -> std::process::ExitCode {
    isocheck::cli::main()
}
