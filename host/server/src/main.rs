/// mimalloc instead of glibc's malloc: a create spent about 15% of the
/// host's CPU in glibc's allocator (`_int_malloc`, `malloc_consolidate`,
/// `unlink_chunk`), mostly sled's node copies and wasmtime's per-call
/// instances freed on other threads than the ones that made them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    crm_host::cli::main()
}
