//! The fjall backend, an LSM tree: the embedded engine whose disk holds
//! about what the data is (tables written once, sorted and lz4-compressed,
//! where sled rewrites pages as they grow), whose restart replays only the
//! journal not yet in a table, and which reads every namespace at one
//! instant while it serves writes ([`Store::snapshot`]: online backups).
//!
//! One keyspace holds every namespace, each key prefixed by its
//! namespace's name and a zero byte (see [`stored_key`]); namespaces are
//! thousands of organizations, and a keyspace per namespace would be a
//! memtable and a set of tables each. Writes are appended to the journal
//! in memory; [`GroupCommit`] syncs it, so many writers share one sync.
//! Every write takes one lock: a conditional batch checks its conditions
//! and writes under it, so nothing lands between the check and the write.

mod rotation;

use std::collections::HashMap;
use std::future::Future;
use std::ops::Bound;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use fjall::config::CompressionPolicy;
use fjall::{CompressionType, Database, Keyspace, KeyspaceCreateOptions, PersistMode, Readable, Snapshot};

use crate::combine::{Combiner, CommitWindow, Conditional};
use crate::engines::lasting::LastingFailure;
use crate::group_commit::GroupCommit;
use crate::range::{self, Bounds};
use crate::{
    BatchOp, Condition, Conflict, KeyValue, Namespace, Pairs, Store, StoreError, StoreResult, reverse_range, scan_range,
};
use rotation::Rotation;

pub struct FjallStore {
    pub(crate) writer: Arc<Writer>,
    group: Arc<GroupCommit>,
    combiner: Arc<Combiner>,
}

/// The keyspace every namespace lives in.
const KEYSPACE: &str = "data";

/// Keys a namespace drop deletes per commit.
const DROP_STEP: usize = 10_000;

/// Every failed fjall write is one it keeps: after a failed journal write
/// the database is poisoned and refuses the rest.
fn lasting(_: &fjall::Error) -> bool {
    true
}

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError::new(e.to_string())
}

/// `key` of `ns` as fjall holds it: the namespace's name, a zero byte (no
/// name holds one, so no namespace's keys run into another's), the key.
fn stored_key(ns: &Namespace, key: &[u8]) -> Vec<u8> {
    [ns.as_str().as_bytes(), &[0], key].concat()
}

/// The namespace of a stored key, and the key within it.
fn namespace_of(stored: &[u8]) -> StoreResult<(Namespace, &[u8])> {
    let split = stored.iter().position(|b| *b == 0);
    let ns = split.and_then(|at| std::str::from_utf8(&stored[..at]).ok()).and_then(Namespace::from_name);
    match (ns, split) {
        (Some(ns), Some(at)) => Ok((ns, &stored[at + 1..])),
        _ => {
            Err(StoreError::new(format!("a stored key outside every namespace: {:?}", String::from_utf8_lossy(stored))))
        }
    }
}

/// Where the namespace's keys begin: [`stored_key`] of the empty key.
fn namespace_start(ns: &Namespace) -> Vec<u8> {
    stored_key(ns, b"")
}

/// A range of a namespace's keys as the range of stored keys.
fn stored_range(ns: &Namespace, (from, end): range::KeyRange) -> Bounds {
    let end = match end {
        Some(end) => stored_key(ns, &end),
        // The end of the namespace: its name and the byte after zero.
        None => [ns.as_str().as_bytes(), &[1]].concat(),
    };
    (Bound::Included(stored_key(ns, &from)), Bound::Excluded(end))
}

/// lz4 on every level's data blocks (fjall's default leaves the first two
/// levels plain): records are JSON, and compress to about a third.
fn keyspace_options() -> KeyspaceCreateOptions {
    KeyspaceCreateOptions::default().data_block_compression_policy(CompressionPolicy::all(CompressionType::Lz4))
}

impl FjallStore {
    /// Opens (or creates) the store in `dir` with a block cache of
    /// `cache_bytes`, combined commits paced by `window`.
    pub fn open_with(dir: &Path, cache_bytes: u64, window: CommitWindow) -> StoreResult<FjallStore> {
        let db = Database::builder(dir)
            .cache_size(cache_bytes)
            // Durability comes from group-committed syncs, not each write.
            .manual_journal_persist(true)
            // Flushes and compactions in turn; safe with the writer's own
            // rotations (`rotation` says why).
            .worker_threads(1)
            .open()
            .map_err(|e| match e {
                fjall::Error::Locked => {
                    StoreError::new("it is in use by another process (another crm-host on this data dir?)")
                }
                e => err(e),
            })?;
        let data = db.keyspace(KEYSPACE, keyspace_options).map_err(err)?;
        let rotation = Rotation::default();
        rotation.rotate(&data).map_err(err)?;
        let writer =
            Arc::new(Writer { db, data, writing: Mutex::new(()), failure: LastingFailure::default(), rotation });
        // The threads hold the writer weakly: dropping the store closes the
        // database (and frees its lock) at once, not when they next wake.
        let syncing = Arc::downgrade(&writer);
        let group = GroupCommit::start(move || match syncing.upgrade() {
            Some(w) => w.failure.note(w.db.persist(PersistMode::SyncAll), lasting),
            None => Ok(()),
        });
        let combining = Arc::downgrade(&writer);
        let combiner = Combiner::start(
            Box::new(move |ns: &Namespace, batches: &[Conditional]| match combining.upgrade() {
                Some(writer) => writer.commit(ns, batches),
                None => Err(StoreError::new("the store is closed")),
            }),
            window,
        );
        Ok(FjallStore { writer, group, combiner })
    }

    /// Syncs the journal now, without waiting for a group commit (a
    /// migration's switch, which holds every writer back meanwhile).
    pub fn sync(&self) -> StoreResult<()> {
        self.writer.failure.note(self.writer.db.persist(PersistMode::SyncAll), lasting)
    }

    fn data(&self) -> &Keyspace {
        &self.writer.data
    }

    /// The store as of the last batch applied whole. fjall inserts a
    /// batch's keys one by one and publishes it after the last, so a plain
    /// `Keyspace` read can see part of a batch (a contact's email claim
    /// without its record); every read outside the write lock goes through
    /// this instead.
    fn reading(&self) -> Snapshot {
        self.writer.db.snapshot()
    }

    /// What `key` of `ns` holds at `instant`. The store's own calls read
    /// through it, so each counts as the one operation its caller asked for.
    fn value(&self, instant: &Snapshot, ns: &Namespace, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        Ok(instant.get(self.data(), stored_key(ns, key)).map_err(err)?.map(|v| v.to_vec()))
    }

    /// The pairs of `bounds` in key order (backwards when `reverse`), at most
    /// `limit`, their namespace's prefix taken off the keys.
    fn read(&self, ns: &Namespace, bounds: Bounds, reverse: bool, limit: usize) -> StoreResult<Vec<KeyValue>> {
        let skip = namespace_start(ns).len();
        let iter = self.reading().range(self.data(), bounds);
        let pairs: Box<dyn Iterator<Item = fjall::Guard>> = match reverse {
            true => Box::new(iter.rev()),
            false => Box::new(iter),
        };
        pairs
            .take(limit)
            .map(|guard| {
                let (k, v) = guard.into_inner().map_err(err)?;
                Ok((k[skip..].to_vec(), v.to_vec()))
            })
            .collect()
    }

    /// The keys under `prefix` as `parts` adjacent ranges of stored keys.
    fn split_range(&self, ns: &Namespace, prefix: &[u8], parts: usize) -> StoreResult<Vec<Bounds>> {
        let whole = stored_range(ns, scan_range(prefix, None));
        let mut keys = self.reading().range(self.data(), whole.clone());
        let (Some(first), Some(last)) = (keys.next(), keys.next_back()) else { return Ok(vec![whole]) };
        let (first, last) = (first.key().map_err(err)?, last.key().map_err(err)?);
        Ok(range::split(whole, &stored_key(ns, prefix), &first, &last, parts))
    }
}

/// What writes: the store's own calls and the combiner's thread.
pub(crate) struct Writer {
    db: Database,
    pub(crate) data: Keyspace,
    /// Held by every write, so a condition read under it still holds when
    /// its batch is applied.
    writing: Mutex<()>,
    failure: LastingFailure,
    rotation: Rotation,
}

impl Writer {
    fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.writing.lock().expect("the write lock")
    }

    /// Commits `batches` as one fjall batch (one journal entry, applied
    /// whole or not at all, through a crash too). Each batch checks its
    /// conditions against the store and the batches before it, and is
    /// applied whole only if they hold; the answer says which were.
    fn commit(&self, ns: &Namespace, batches: &[Conditional]) -> StoreResult<Vec<bool>> {
        let _writing = self.lock();
        self.commit_held(ns, batches)
    }

    /// [`Writer::commit`] for a caller that holds the write lock.
    fn commit_held(&self, ns: &Namespace, batches: &[Conditional]) -> StoreResult<Vec<bool>> {
        let mut pending = Pending { data: &self.data, ns, writes: HashMap::new() };
        let mut applied = Vec::with_capacity(batches.len());
        for batch in batches {
            let holds = pending.holds(&batch.conditions)?;
            if holds {
                pending.apply(&batch.ops)?;
            }
            applied.push(holds);
        }
        let mut batch = self.db.batch();
        let mut bytes = 0;
        for (key, value) in pending.writes {
            bytes += Rotation::entry(&key, value.as_deref());
            match value {
                Some(value) => batch.insert(&self.data, key, value),
                None => batch.remove(&self.data, key),
            }
        }
        self.failure.note(batch.commit(), lasting)?;
        self.failure.note(self.rotation.committed(&self.data, bytes), lasting)?;
        Ok(applied)
    }
}

/// The writes of a commit not yet applied, read before the store.
struct Pending<'a> {
    data: &'a Keyspace,
    ns: &'a Namespace,
    /// Stored keys and what they will hold (`None`: deleted).
    writes: HashMap<Vec<u8>, Option<Vec<u8>>>,
}

impl Pending<'_> {
    fn get(&self, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        match self.writes.get(key) {
            Some(value) => Ok(value.clone()),
            None => Ok(self.data.get(key).map_err(err)?.map(|v| v.to_vec())),
        }
    }

    fn holds(&self, conditions: &[Condition]) -> StoreResult<bool> {
        for condition in conditions {
            if !condition.holds_on(self.get(&stored_key(self.ns, condition.key()))?.as_deref()) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn apply(&mut self, ops: &[BatchOp]) -> StoreResult<()> {
        for op in ops {
            let key = stored_key(self.ns, op.key());
            // Only an add reads what it changes.
            let before = match op {
                BatchOp::Add(..) => self.get(&key)?,
                _ => None,
            };
            let after = op.applied_to(before.as_deref());
            self.writes.insert(key, after);
        }
        Ok(())
    }
}

impl Store for FjallStore {
    fn get(&self, ns: &Namespace, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        crate::count_operation("get");
        self.value(&self.reading(), ns, key)
    }

    /// Every key at one instant, through one snapshot (a page's records: a
    /// snapshot each would cost the tracker's bookkeeping a hundred times).
    fn get_many(&self, ns: &Namespace, keys: &[Vec<u8>]) -> StoreResult<Vec<Option<Vec<u8>>>> {
        let instant = self.reading();
        keys.iter()
            .map(|key| {
                crate::count_operation("get");
                self.value(&instant, ns, key)
            })
            .collect()
    }

    fn put(&self, ns: &Namespace, key: &[u8], value: &[u8]) -> StoreResult<()> {
        crate::count_operation("put");
        self.writer.commit(ns, &[Conditional::ops(vec![BatchOp::Put(key.to_vec(), value.to_vec())])]).map(|_| ())
    }

    fn delete(&self, ns: &Namespace, key: &[u8]) -> StoreResult<()> {
        crate::count_operation("delete");
        self.writer.commit(ns, &[Conditional::ops(vec![BatchOp::Delete(key.to_vec())])]).map(|_| ())
    }

    fn compare_and_swap(
        &self,
        ns: &Namespace,
        key: &[u8],
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> StoreResult<Result<(), Conflict>> {
        crate::count_operation("compare_and_swap");
        let op = match new {
            Some(value) => BatchOp::Put(key.to_vec(), value.to_vec()),
            None => BatchOp::Delete(key.to_vec()),
        };
        let _writing = self.writer.lock();
        let current = self.value(&self.reading(), ns, key)?;
        if current.as_deref() != expected {
            return Ok(Err(current));
        }
        self.writer.commit_held(ns, &[Conditional::ops(vec![op])])?;
        Ok(Ok(()))
    }

    fn scan(&self, ns: &Namespace, prefix: &[u8], start: Option<&[u8]>, limit: usize) -> StoreResult<Vec<KeyValue>> {
        crate::count_operation("scan");
        self.read(ns, stored_range(ns, scan_range(prefix, start)), false, limit)
    }

    fn scan_reverse(
        &self,
        ns: &Namespace,
        prefix: &[u8],
        before: Option<&[u8]>,
        limit: usize,
    ) -> StoreResult<Vec<KeyValue>> {
        crate::count_operation("scan_reverse");
        let Some(range) = reverse_range(prefix, before) else { return Ok(Vec::new()) };
        self.read(ns, stored_range(ns, range), true, limit)
    }

    fn find(&self, ns: &Namespace, prefix: &[u8], needle: &[u8], limit: usize) -> StoreResult<Vec<Vec<u8>>> {
        crate::count_operation("find");
        let finder = memchr::memmem::Finder::new(needle);
        let skip = namespace_start(ns).len();
        let mut keys = Vec::new();
        for guard in self.reading().range(self.data(), stored_range(ns, scan_range(prefix, None))) {
            let (k, v) = guard.into_inner().map_err(err)?;
            if finder.find(&v).is_some() {
                keys.push(k[skip..].to_vec());
                if keys.len() >= limit {
                    break;
                }
            }
        }
        Ok(keys)
    }

    fn count_found(&self, ns: &Namespace, prefix: &[u8], needle: &[u8]) -> StoreResult<u64> {
        crate::count_operation("count_found");
        let finder = memchr::memmem::Finder::new(needle);
        let ranges = self.split_range(ns, prefix, range::count_parts())?;
        let instant = self.reading();
        range::count_in_parallel(ranges, |part| {
            let mut count = 0;
            for guard in instant.range(self.data(), part) {
                count += u64::from(finder.find(&guard.value().map_err(err)?).is_some());
            }
            Ok(count)
        })
    }

    fn batch(&self, ns: &Namespace, ops: Vec<BatchOp>) -> StoreResult<()> {
        crate::count_operation("batch");
        self.writer.commit(ns, &[Conditional::ops(ops)]).map(|_| ())
    }

    fn batch_if(&self, ns: &Namespace, conditions: Vec<Condition>, ops: Vec<BatchOp>) -> StoreResult<bool> {
        crate::count_operation("batch_if");
        Ok(self.writer.commit(ns, &[Conditional { conditions, ops }])?[0])
    }

    fn combiner(&self) -> Option<&Combiner> {
        Some(&self.combiner)
    }

    /// Deletes the namespace's keys some thousands per commit, each step
    /// reading on from the last key it deleted (not from the namespace's
    /// start, past every tombstone before it). A crash in the middle leaves
    /// the rest, which the next drop takes (organizations deleted are
    /// dropped again by `sweep_deleted`).
    fn drop_namespace(&self, ns: &Namespace) -> StoreResult<()> {
        let (mut from, end) = stored_range(ns, scan_range(b"", None));
        loop {
            let keys: Vec<_> = self
                .data()
                .range((from.clone(), end.clone()))
                .take(DROP_STEP)
                .map(|g| g.key().map_err(err))
                .collect::<StoreResult<_>>()?;
            let Some(last) = keys.last() else { return Ok(()) };
            from = Bound::Excluded(last.to_vec());
            let _writing = self.writer.lock();
            let mut batch = self.writer.db.batch();
            let mut bytes = 0;
            for key in keys {
                bytes += Rotation::entry(&key, None);
                batch.remove(self.data(), key);
            }
            self.writer.failure.note(batch.commit(), lasting)?;
            self.writer.failure.note(self.writer.rotation.committed(self.data(), bytes), lasting)?;
        }
    }

    /// A fjall snapshot: the sequence number it stands at keeps the
    /// versions it reads from being compacted away until it is dropped;
    /// writers do not wait for it.
    fn snapshot(&self) -> Option<Pairs> {
        let pairs = self.writer.db.snapshot().iter(self.data()).map(|guard| {
            let (key, value) = guard.into_inner().map_err(err)?;
            let (ns, key) = namespace_of(&key)?;
            Ok((ns, (key.to_vec(), value.to_vec())))
        });
        Some(Box::new(pairs))
    }

    fn durable(&self) -> Pin<Box<dyn Future<Output = StoreResult<()>> + Send + '_>> {
        Box::pin(self.group.wait_durable())
    }

    fn lasting_failure(&self) -> Option<String> {
        self.writer.failure.get()
    }
}
