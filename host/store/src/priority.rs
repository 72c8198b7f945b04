//! Work that must yield the CPU to requests: an online backup's writing
//! thread in the host, and `crm-host store backup` beside it.

/// The calling thread at the lowest CPU priority (nice 19) from now on, and
/// the threads it starts after. On Linux a nice value is a thread's own.
/// Such a thread must hold nothing a request waits on: while the cores are
/// busy it runs for a moment every few hundred milliseconds.
pub fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority takes plain integers and changes only the
    // scheduling weight of the calling thread (`who` 0, PRIO_PROCESS).
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
    }
}
