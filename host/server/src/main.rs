fn main() -> std::process::ExitCode {
    crm_host::cli::main()
}
