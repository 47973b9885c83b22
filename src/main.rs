fn main() -> std::process::ExitCode {
    isocheck::cli::main()
}
