//! The sled backend, the embedded engine of older data dirs (fjall is the
//! default; [`crate::migrate`] moves a sled store to it): one sled tree per namespace, flushed
//! by [`GroupCommit`]; conditional batches that can wait are committed
//! together by a [`Combiner`].

use std::convert::Infallible;
use std::future::Future;
use std::ops::Bound;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use crate::combine::{Combiner, CommitWindow, Conditional};
use crate::engines::lasting::LastingFailure;
use crate::group_commit::GroupCommit;
use sled::transaction::{TransactionError, TransactionalTree, UnabortableTransactionError};

use crate::range::{self, Bounds};
use crate::{
    BatchOp, Condition, Conflict, KeyValue, Namespace, Store, StoreError, StoreResult, reverse_range, scan_range,
};

pub struct SledStore {
    /// The only strong handle: dropping the store closes sled (and frees
    /// its lock) at once, not when its threads next wake.
    db: Arc<sled::Db>,
    group: Arc<GroupCommit>,
    combiner: Arc<Combiner>,
    failure: Arc<LastingFailure>,
}

/// The errors after which sled refuses every later write.
fn lasting(e: &sled::Error) -> bool {
    matches!(e, sled::Error::Io(_) | sled::Error::Corruption { .. } | sled::Error::ReportableBug(_))
}

/// sled's own default page cache: 1 GiB.
pub const DEFAULT_CACHE_BYTES: u64 = 1 << 30;

impl SledStore {
    /// Opens the store in `dir` with sled's default page cache, committing
    /// as soon as a writer asks.
    pub fn open(dir: &Path) -> StoreResult<SledStore> {
        SledStore::open_with(dir, DEFAULT_CACHE_BYTES, CommitWindow::default())
    }

    /// Opens the store in `dir` with a page cache of `cache_bytes`: most of
    /// the host's resident memory on a large store (an edge machine may want
    /// less; reads past the cache go to disk), and combined commits paced
    /// by `window`.
    pub fn open_with(dir: &Path, cache_bytes: u64, window: CommitWindow) -> StoreResult<SledStore> {
        let db = sled::Config::new()
            .path(dir)
            .cache_capacity(cache_bytes)
            // Durability comes from explicit group-committed flushes, not a timer.
            .flush_every_ms(None)
            .open()
            .map_err(|e| match e {
                // sled locks its files (and says so only in the text): another
                // process has this store open.
                sled::Error::Io(io) if io.to_string().starts_with("could not acquire lock") => {
                    StoreError::new("it is in use by another process (another crm-host on this data dir?)")
                }
                e => err(e),
            })?;
        let (db, failure) = (Arc::new(db), Arc::new(LastingFailure::default()));
        // The threads hold sled weakly, as the fjall store's do.
        let (flusher, flush_failure) = (Arc::downgrade(&db), failure.clone());
        let group = GroupCommit::start(move || match flusher.upgrade() {
            Some(db) => flush_failure.note(db.flush(), lasting).map(|_| ()),
            None => Ok(()),
        });
        let (committer, commit_failure) = (Arc::downgrade(&db), failure.clone());
        let combiner = Combiner::start(
            Box::new(move |ns: &Namespace, batches: &[Conditional]| match committer.upgrade() {
                Some(db) => commit_together(&db.open_tree(ns.as_str()).map_err(err)?, batches, &commit_failure),
                None => Err(StoreError::new("the store is closed")),
            }),
            window,
        );
        Ok(SledStore { db, group, combiner, failure })
    }

    /// Every namespace it holds a tree for (a migration copies them all).
    pub fn namespaces(&self) -> Vec<Namespace> {
        let names = self.db.tree_names().into_iter();
        names.filter_map(|name| Namespace::from_name(std::str::from_utf8(&name).ok()?)).collect()
    }

    fn tree(&self, ns: &Namespace) -> StoreResult<sled::Tree> {
        self.db.open_tree(ns.as_str()).map_err(err)
    }
}

/// The keys under `prefix` as `parts` adjacent ranges (see [`range::split`]).
fn split_range(tree: &sled::Tree, prefix: &[u8], parts: usize) -> StoreResult<Vec<Bounds>> {
    let (from, end) = scan_range(prefix, None);
    let whole = (Bound::Included(from), end.map_or(Bound::Unbounded, Bound::Excluded));
    let mut keys = tree.range(whole.clone()).keys();
    match (keys.next().transpose().map_err(err)?, keys.next_back().transpose().map_err(err)?) {
        (Some(first), Some(last)) => Ok(range::split(whole, prefix, &first, &last, parts)),
        _ => Ok(vec![whole]),
    }
}

/// Commits `batches` in one sled transaction, which runs under sled's global
/// write lock and is sealed in the log as one unit. Each batch checks its
/// conditions against the tree and the batches before it, and is applied
/// whole only if they hold; the answer says which were.
fn commit_together(tree: &sled::Tree, batches: &[Conditional], failure: &LastingFailure) -> StoreResult<Vec<bool>> {
    let outcome: Result<_, TransactionError<Infallible>> = tree.transaction(|tx: &TransactionalTree| {
        let mut applied = Vec::with_capacity(batches.len());
        for batch in batches {
            let holds = holds(tx, &batch.conditions)?;
            if holds {
                apply(tx, &batch.ops)?;
            }
            applied.push(holds);
        }
        Ok(applied)
    });
    failure.note(
        outcome.map_err(|e| match e {
            TransactionError::Storage(e) => e,
            TransactionError::Abort(never) => match never {},
        }),
        lasting,
    )
}

type TxResult<T> = Result<T, UnabortableTransactionError>;

fn holds(tx: &TransactionalTree, conditions: &[Condition]) -> TxResult<bool> {
    for condition in conditions {
        if !condition.holds_on(tx.get(condition.key())?.as_deref()) {
            return Ok(false);
        }
    }
    Ok(true)
}

fn apply(tx: &TransactionalTree, ops: &[BatchOp]) -> TxResult<()> {
    for op in ops {
        // Only an add reads what it changes.
        let before = match op {
            BatchOp::Add(..) => tx.get(op.key())?,
            _ => None,
        };
        match op.applied_to(before.as_deref()) {
            Some(value) => drop(tx.insert(op.key(), value)?),
            None => drop(tx.remove(op.key())?),
        }
    }
    Ok(())
}

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError::new(e.to_string())
}

impl Store for SledStore {
    fn get(&self, ns: &Namespace, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        crate::count_operation("get");
        Ok(self.tree(ns)?.get(key).map_err(err)?.map(|v| v.to_vec()))
    }

    fn put(&self, ns: &Namespace, key: &[u8], value: &[u8]) -> StoreResult<()> {
        crate::count_operation("put");
        self.failure.note(self.tree(ns)?.insert(key, value), lasting)?;
        Ok(())
    }

    fn delete(&self, ns: &Namespace, key: &[u8]) -> StoreResult<()> {
        crate::count_operation("delete");
        self.failure.note(self.tree(ns)?.remove(key), lasting)?;
        Ok(())
    }

    fn compare_and_swap(
        &self,
        ns: &Namespace,
        key: &[u8],
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> StoreResult<Result<(), Conflict>> {
        crate::count_operation("compare_and_swap");
        let outcome = self.failure.note(self.tree(ns)?.compare_and_swap(key, expected, new), lasting)?;
        Ok(outcome.map_err(|e| e.current.map(|v| v.to_vec())))
    }

    fn scan(&self, ns: &Namespace, prefix: &[u8], start: Option<&[u8]>, limit: usize) -> StoreResult<Vec<KeyValue>> {
        crate::count_operation("scan");
        let (from, end) = scan_range(prefix, start);
        let tree = self.tree(ns)?;
        let range = match end {
            Some(end) => tree.range(from..end),
            None => tree.range(from..),
        };
        range.take(limit).map(|item| item.map(|(k, v)| (k.to_vec(), v.to_vec())).map_err(err)).collect()
    }

    fn scan_reverse(
        &self,
        ns: &Namespace,
        prefix: &[u8],
        before: Option<&[u8]>,
        limit: usize,
    ) -> StoreResult<Vec<KeyValue>> {
        crate::count_operation("scan_reverse");
        let Some((from, end)) = reverse_range(prefix, before) else { return Ok(Vec::new()) };
        let tree = self.tree(ns)?;
        let iter = match end {
            Some(end) => tree.range(from..end),
            None => tree.range(from..),
        };
        iter.rev().take(limit).map(|item| item.map(|(k, v)| (k.to_vec(), v.to_vec())).map_err(err)).collect()
    }

    fn find(&self, ns: &Namespace, prefix: &[u8], needle: &[u8], limit: usize) -> StoreResult<Vec<Vec<u8>>> {
        crate::count_operation("find");
        let finder = memchr::memmem::Finder::new(needle);
        let mut keys = Vec::new();
        for item in self.tree(ns)?.scan_prefix(prefix) {
            let (k, v) = item.map_err(err)?;
            if finder.find(&v).is_some() {
                keys.push(k.to_vec());
                if keys.len() >= limit {
                    break;
                }
            }
        }
        Ok(keys)
    }

    fn count_found(&self, ns: &Namespace, prefix: &[u8], needle: &[u8]) -> StoreResult<u64> {
        crate::count_operation("count_found");
        let tree = self.tree(ns)?;
        let finder = memchr::memmem::Finder::new(needle);
        let ranges = split_range(&tree, prefix, range::count_parts())?;
        range::count_in_parallel(ranges, |part| {
            let mut count = 0;
            for item in tree.range(part).values() {
                count += u64::from(finder.find(&item.map_err(err)?).is_some());
            }
            Ok(count)
        })
    }

    fn batch(&self, ns: &Namespace, ops: Vec<BatchOp>) -> StoreResult<()> {
        crate::count_operation("batch");
        if ops.iter().any(|op| matches!(op, BatchOp::Add(..))) {
            return self.batch_if(ns, Vec::new(), ops).map(|_| ());
        }
        let mut batch = sled::Batch::default();
        for op in ops {
            match op {
                BatchOp::Put(k, v) => batch.insert(k, v),
                BatchOp::Delete(k) => batch.remove(k),
                BatchOp::Add(..) => unreachable!("batches with counters run as transactions"),
            }
        }
        self.failure.note(self.tree(ns)?.apply_batch(batch), lasting)
    }

    fn batch_if(&self, ns: &Namespace, conditions: Vec<Condition>, ops: Vec<BatchOp>) -> StoreResult<bool> {
        crate::count_operation("batch_if");
        let applied = commit_together(&self.tree(ns)?, &[Conditional { conditions, ops }], &self.failure)?;
        Ok(applied[0])
    }

    fn combiner(&self) -> Option<&Combiner> {
        Some(&self.combiner)
    }

    fn drop_namespace(&self, ns: &Namespace) -> StoreResult<()> {
        self.failure.note(self.db.drop_tree(ns.as_str()), lasting)?;
        Ok(())
    }

    fn durable(&self) -> Pin<Box<dyn Future<Output = StoreResult<()>> + Send + '_>> {
        Box::pin(self.group.wait_durable())
    }

    fn lasting_failure(&self) -> Option<String> {
        self.failure.get()
    }
}
