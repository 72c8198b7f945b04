//! fjall's memtable rotated by the store's own writer: what lets the store
//! run fjall with one background worker.
//!
//! One worker, flushing and compacting in turn, made 1.39 times the durable
//! creates of fjall's default two at 1,000,000 contacts on a 2-core machine
//! (`BENCHMARKS.md`, "Beside PostgreSQL"): two workers spend both cores on
//! background work under a write load. But fjall 3.1.13's lone worker can
//! block for good (fjall-rs/fjall#323): once the active memtable is past its
//! size, every batch asks the worker to rotate it, through a channel that
//! holds 1,000 messages; while the worker compacts, those requests fill the
//! channel, and when it turns to one it sends itself a flush on that full
//! channel, which it alone reads.
//!
//! So the writer counts what it writes as fjall counts its memtable (each
//! entry's key, value and [`ENTRY_OVERHEAD`]), from the last rotation (one
//! fjall made itself only makes the count larger than the memtable), and
//! rotates the memtable itself at [`ROTATE_AT`], short of fjall's own size
//! (64 MiB, `max_memtable_size`'s default, which the store keeps): fjall's
//! request never fires. The channel then holds a flush per rotation and a
//! compaction request per flush, and writers wait long before it could fill.
//!
//! Writers wait here, at [`MOST_SEALED`] memtables sealed and not yet
//! flushed (fjall would let four pile up while its one worker compacts):
//! that bounds the memtables to three of 56 MiB, which with the block cache's
//! 256 keeps the store under the 512 MB the memory section of
//! `docs/operators.md` promises.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fjall::Keyspace;

/// Bytes fjall counts for a memtable entry beside its key and value.
const ENTRY_OVERHEAD: u64 = std::mem::size_of::<lsm_tree::InternalValue>() as u64;

/// Counted bytes at which the writer rotates the memtable: 56 MiB, where
/// fjall would at 64.
const ROTATE_AT: u64 = 56 << 20;

/// Sealed memtables not yet flushed at which writers wait for a flush.
const MOST_SEALED: usize = 2;

/// How long writers wait for a flush at most; past it they go on (fjall
/// halts them itself at four sealed memtables).
const LONGEST_WAIT: Duration = Duration::from_secs(30);

/// The bytes written to the active memtable, as counted here.
#[derive(Default)]
pub(crate) struct Rotation {
    written: AtomicU64,
}

impl Rotation {
    /// What an entry of `key` holding `value` (`None`: removed) counts.
    pub(crate) fn entry(key: &[u8], value: Option<&[u8]>) -> u64 {
        (key.len() + value.map_or(0, <[u8]>::len)) as u64 + ENTRY_OVERHEAD
    }

    /// After a commit of `bytes` (each entry's [`Rotation::entry`]) to
    /// `data`, under the store's write lock: rotates its memtable when due.
    /// Then waits, holding every writer back, while [`MOST_SEALED`]
    /// memtables wait for their flush.
    pub(crate) fn committed(&self, data: &Keyspace, bytes: u64) -> fjall::Result<()> {
        if self.written.fetch_add(bytes, Ordering::Relaxed) + bytes >= ROTATE_AT {
            self.rotate(data)?;
        }
        let since = Instant::now();
        while data.sealed_memtable_count() >= MOST_SEALED && since.elapsed() < LONGEST_WAIT {
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }

    /// Rotates `data`'s memtable now (at open: one recovered from the
    /// journal was counted by nobody). An empty memtable stays.
    pub(crate) fn rotate(&self, data: &Keyspace) -> fjall::Result<()> {
        self.written.store(0, Ordering::Relaxed);
        data.rotate_memtable().map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use crate::combine::CommitWindow;
    use crate::{BatchOp, FjallStore, Namespace, Store};

    #[test]
    fn the_writer_rotates_the_memtable_before_fjall_would() {
        let dir = tempfile::tempdir().unwrap();
        let store = FjallStore::open_with(dir.path(), 8 << 20, CommitWindow::default()).unwrap();
        let ns = Namespace::org("o1");
        let value = vec![7u8; 100 << 10];
        // 60 MiB: past the writer's 56, short of fjall's own 64.
        for batch in 0..60 {
            let ops = (0..10).map(|i| BatchOp::Put(format!("k/{batch:03}/{i}").into_bytes(), value.clone())).collect();
            store.batch(&ns, ops).unwrap();
        }
        let data = &store.writer.data;
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while data.table_count() == 0 {
            assert!(std::time::Instant::now() < until, "no memtable was rotated and flushed");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(store.get(&ns, b"k/059/9").unwrap().as_deref(), Some(&value[..]));
    }
}
