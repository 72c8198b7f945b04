"""Splits a host's `perf script -F comm,ip,sym,dso` samples (recorded with
call graphs) by stage of a create, for scripts/bench-create-budget.sh.

A sample's stage is the first stage whose pattern names a frame of its
stack, from the leaf up (so the store's memcpy is the store's, a copy into
the guest the boundary's; within one frame, the first stage in STAGES);
else its thread's (THREADS); else "other host code". A sample of one of
fjall's workers is always theirs (BACKGROUND). The stages:

  HTTP in and out       hyper, warp, the host's http module, the sockets in the kernel
  authentication        the token check (crm_tenancy, the API's auth)
  compute turn          waiting for, taking and giving back a turn
  resetting the instance's memory
                        the pool's reset of a slot once its instance is dropped
  instantiation         a fresh instance of the component, its page faults included
  the boundary          lifting and lowering values across it (wasmtime's func, typed)
  store import          the host's side of a store call before the engine
  store commit          the combiner and the engine (fjall, lsm-tree, crossbeam)
  the engine's flushes and compactions
                        every sample of fjall's worker threads
  durable wait          the group commit's flush and its fsync
  hand-offs             waking and parking threads (futex, scheduling, tokio's own)
  the component         compiled Wasm (code the profiler cannot name) and wasmtime's libcalls
  allocator             mimalloc

Usage: perf script ... | python3 scripts/create-stages.py MICROS_PER_CREATE
"""

import re
import sys
from collections import Counter

STAGES = [
    ("allocator", r"^_?mi_|mimalloc"),
    ("durable wait", r"fsync|fdatasync|sync_file|jbd2|crm_store::group_commit|blk_|virtio"),
    ("HTTP in and out", r"hyper::|warp::|h2::|httparse|crm_server::http::|crm_server::listener|tcp_|sock_|skb|inet_|"
                        r"__sys_sendto|__sys_recvfrom|ip_finish|ip_rcv|__dev_queue|net_rx|loopback|do_writev|ksys_write|ksys_read"),
    ("authentication", r"crm_tenancy::tokens|crm_server::api::auth|sha2::|hmac::"),
    ("compute turn", r"crm_runtime::turns"),
    ("resetting the instance's memory", r"deallocate_memory|deallocate_table|clear_and_remain_ready|reset_with_|"
                                        r"decommit|madvise|pagemap_scan"),
    ("instantiation", r"instantiate|InstancePre|instance::allocator|pooling|memory_image|mmap|munmap|mprotect|"
                      r"page_fault|handle_mm_fault|clear_page|StoreInner.*::new|Store<.*>::new"),
    ("the boundary", r"\bLower\b|\bLift\b|::lower|::lift|lower_|lift_|component::func|ResourceTable"),
    ("hand-offs", r"crossbeam_channel|std::sync::mpmc|futex|tokio::sync|std::thread::park|parking_lot"),
    ("store commit", r"crm_store::combine|crm_store::engines|fjall::|lsm_tree::|crossbeam_skiplist|crossbeam_epoch|"
                     r"byteview|quick_cache|xxhash|lz4|interval_heap"),
    ("store import", r"crm_store::|crm_runtime::imports::store|crm_store_postgres"),
    ("the component", r"^\[unknown\]$|wasm\[|wasm-function|libcalls|crm_catalog|crm_runtime::imports::catalog"),
    ("wasmtime, the rest", r"wasmtime|cranelift|fiber"),
    ("other host code", r"^crm_|^<crm_|serde|metrics"),
    ("hand-offs", r"schedule|__switch_to|finish_task_switch|try_to_wake_up|wake_up|ttwu|pick_next|enqueue|dequeue|"
                  r"epoll|tokio::runtime|do_idle|cpuidle"),
]
# Threads whose every sample is one stage: fjall's workers flush memtables
# into tables and compact them, work a create causes later, off its path.
BACKGROUND = {"fjall:worker": "the engine's flushes and compactions"}
THREADS = {"store-combiner": "store commit", "store-flusher": "durable wait", "wasm-epoch": "wasmtime, the rest"}
COMPILED = [(name, re.compile(pattern)) for name, pattern in STAGES]
FRAME = re.compile(r"^\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$")


def samples(lines):
    """(thread, [symbol...] from the leaf up) per sample."""
    thread, frames = None, []
    for line in lines:
        if not line.strip():
            if thread is not None:
                yield thread, frames
            thread, frames = None, []
        elif not line[0].isspace():
            thread, frames = line.strip(), []
        elif m := FRAME.match(line):
            frames.append(re.sub(r"\+0x[0-9a-f]+$", "", m.group(1)))
    if thread is not None:
        yield thread, frames


def stage(thread, frames):
    if thread in BACKGROUND:
        return BACKGROUND[thread]
    for symbol in frames:
        for name, pattern in COMPILED:
            if pattern.search(symbol):
                return name
    return THREADS.get(thread, "other host code")


def main():
    micros = float(sys.argv[1])
    counts = Counter(stage(t, f) for t, f in samples(sys.stdin))
    total = sum(counts.values()) or 1
    print(f"  {total} samples")
    for name, n in counts.most_common():
        print(f"  {100 * n / total:5.1f}%  {micros * n / total:6.1f} µs  {name}")


if __name__ == "__main__":
    main()
