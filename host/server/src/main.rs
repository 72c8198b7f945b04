/// mimalloc instead of glibc's malloc: in a profile of creates, glibc's
/// allocator (`_int_malloc`, `malloc_consolidate`, `unlink_chunk`, `free`)
/// took about 15% of the host's CPU; every request allocates its instance's
/// buffers and sled copies a node on each update. Figures in BENCHMARKS.md.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    crm_host::cli::main()
}
