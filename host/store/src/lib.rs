//! The key-value store behind everything the host keeps.
//!
//! This crate owns the [`Store`] trait and the promises written on it, the key
//! layout ([`Namespace`]: one for the host's own records, one per organization),
//! [`group_commit`] (many writers share one flush), [`combine`] (many
//! writers' conditional batches share one engine commit), the two embedded
//! [`engines`] ([`engines::fjall`], the default, and [`engines::sled`]) and
//! which one a data dir holds ([`embedded`]), a sled data dir moved to fjall
//! while it serves ([`migrate`]), [`priority`] (work that yields the CPU to
//! requests), [`lease`]s (work that runs once among the hosts sharing a
//! store), [`split`] (reads from a replica, writes to the primary),
//! [`read_cache`] (a replica's answers kept while it stands still), and the
//! [`backup`] format (a store's pairs at one instant, in one file).
//!
//! Every backend passes the contract suite of `crm-store-testkit`, a crate
//! only tests depend on: `tests/fjall_contract.rs` and `tests/sled_contract.rs`
//! here (each with a `kill -9` test), `tests/migration.rs` (a store being
//! moved), and `crm-store-postgres`'s own.
//!
//! It knows nothing of HTTP, WebAssembly or outbound calls: it must not depend
//! on warp, wasmtime or reqwest. Callers above it (tenancy, the plugin runtime,
//! the server) decide what the keys mean; the server picks the backend
//! (`host/server/src/server/storage.rs`).
//!
//! Writes are applied in memory at once; [`Store::durable`] waits until everything
//! written so far is on disk. Handlers call it before answering a write with a 2xx
//! (see [`group_commit`] for why that stays cheap under load).

pub mod backup;
pub mod combine;
mod delegate;
pub mod embedded;
pub mod engines;
pub mod group_commit;
pub mod lease;
pub mod migrate;
pub mod priority;
pub mod range;
pub mod read_cache;
pub mod split;

use std::future::Future;
use std::pin::Pin;

pub use engines::fjall::FjallStore;
pub use engines::sled::SledStore;
pub use range::{key_after, reverse_range, scan_range};

/// Where a key lives.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Namespace(String);

impl Namespace {
    /// The host's own records: organizations, tokens, bootstrap markers.
    pub fn system() -> Namespace {
        Namespace("sys".into())
    }

    /// One organization's data.
    pub fn org(org_id: &str) -> Namespace {
        Namespace(format!("org/{org_id}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The namespace [`Namespace::as_str`] named (a backup's, an engine's
    /// stored key's), if it is one.
    pub fn from_name(name: &str) -> Option<Namespace> {
        match name.strip_prefix("org/") {
            Some(id) if !id.is_empty() && !id.contains('\0') => Some(Namespace::org(id)),
            Some(_) => None,
            None => (name == "sys").then(Namespace::system),
        }
    }
}

/// A store failure: I/O or corruption (callers answer 500), or a store
/// that cannot be reached now: a database with no primary answering (a
/// failover, a cut link), where nothing was written or the outcome is
/// unknown (callers answer 503 with `Retry-After`, [`StoreError::is_unavailable`]).
#[derive(Debug, Clone)]
pub struct StoreError {
    message: String,
    unavailable: bool,
}

impl StoreError {
    pub fn new(message: impl Into<String>) -> StoreError {
        StoreError { message: message.into(), unavailable: false }
    }

    /// The store cannot be reached now: trying again later may succeed.
    pub fn unavailable(message: impl Into<String>) -> StoreError {
        StoreError { message: message.into(), unavailable: true }
    }

    pub fn is_unavailable(&self) -> bool {
        self.unavailable
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "store error: {}", self.message)
    }
}

impl std::error::Error for StoreError {}

pub type StoreResult<T> = Result<T, StoreError>;

/// One write of an atomic batch.
#[derive(Debug, Clone)]
pub enum BatchOp {
    Put(Vec<u8>, Vec<u8>),
    Delete(Vec<u8>),
    /// Adds to a counter: its value is a decimal integer, absent is 0. A count
    /// written in the batch of the record it counts stays exact through a crash.
    Add(Vec<u8>, i64),
}

/// A condition of [`Store::batch_if`], checked atomically with the writes.
#[derive(Debug, Clone)]
pub enum Condition {
    /// The key holds exactly this value (`None`: it is absent).
    Equals(Vec<u8>, Option<Vec<u8>>),
    /// The counter at the key (as [`BatchOp::Add`] reads it) is below the bound.
    Below(Vec<u8>, u64),
}

impl BatchOp {
    /// The key the op writes.
    pub fn key(&self) -> &[u8] {
        match self {
            BatchOp::Put(k, _) | BatchOp::Delete(k) | BatchOp::Add(k, _) => k,
        }
    }

    /// What its key holds after the op, when it held `value` before.
    pub fn applied_to(&self, value: Option<&[u8]>) -> Option<Vec<u8>> {
        match self {
            BatchOp::Put(_, v) => Some(v.clone()),
            BatchOp::Delete(_) => None,
            BatchOp::Add(_, delta) => Some(counter_value(value).saturating_add(*delta).to_string().into_bytes()),
        }
    }
}

impl Condition {
    /// The key the condition reads.
    pub fn key(&self) -> &[u8] {
        match self {
            Condition::Equals(k, _) | Condition::Below(k, _) => k,
        }
    }

    /// Whether the condition holds when its key holds `value`.
    pub fn holds_on(&self, value: Option<&[u8]>) -> bool {
        match self {
            Condition::Equals(_, expected) => value == expected.as_deref(),
            Condition::Below(_, bound) => {
                let n = counter_value(value);
                n < 0 || (n as u64) < *bound
            }
        }
    }
}

/// A counter's value as stored: decimal text; absent or unreadable is 0.
pub fn counter_value(stored: Option<&[u8]>) -> i64 {
    stored.and_then(|v| std::str::from_utf8(v).ok()?.trim().parse().ok()).unwrap_or(0)
}

/// Counts one store operation for the metrics (`crm_store_operations_total`),
/// whichever backend serves it.
pub fn count_operation(op: &'static str) {
    metrics::counter!("crm_store_operations_total", "op" => op).increment(1);
}

/// The answer of a compare-and-swap that lost: the value found instead.
pub type Conflict = Option<Vec<u8>>;

pub type KeyValue = (Vec<u8>, Vec<u8>);

/// Every pair of a store, namespace by namespace, each in key order
/// ([`Store::snapshot`]).
pub type Pairs = Box<dyn Iterator<Item = StoreResult<(Namespace, KeyValue)>> + Send>;

/// A key-value engine. Every operation is scoped to one namespace.
///
/// The promises every backend keeps (`crm-store-testkit`'s contract suite
/// checks each one):
/// - **Tenancy of keys**: a namespace sees only its own keys; no scan, find or
///   batch of one namespace reaches another, and [`Store::drop_namespace`]
///   removes one namespace whole.
/// - **Durable before return of [`Store::durable`]**: once it resolves, every
///   write made before the call survives a `kill -9` of the process.
/// - **Compare-and-swap has one winner**: of many concurrent swaps expecting the
///   same value, exactly one succeeds; the others see the value it wrote.
/// - **Atomic batch**: a reader (or a crash) sees all of a batch or none of it,
///   counters added in it included; a conditional batch checks its conditions
///   and writes as one step.
/// - **Ordered prefix scans, both ways**: keys in byte order, bounded by the
///   prefix, a start key and a limit.
pub trait Store: Send + Sync + 'static {
    fn get(&self, ns: &Namespace, key: &[u8]) -> StoreResult<Option<Vec<u8>>>;

    /// The values of `keys`, in their order (`None` where absent). A backend
    /// that pays a round trip per call answers them all in one.
    fn get_many(&self, ns: &Namespace, keys: &[Vec<u8>]) -> StoreResult<Vec<Option<Vec<u8>>>> {
        keys.iter().map(|k| self.get(ns, k)).collect()
    }

    fn put(&self, ns: &Namespace, key: &[u8], value: &[u8]) -> StoreResult<()>;

    fn delete(&self, ns: &Namespace, key: &[u8]) -> StoreResult<()>;

    /// Sets `key` to `new` (`None` deletes) only if it currently holds `expected`
    /// (`None` = absent). On a lost race, returns `Ok(Err(current))`.
    fn compare_and_swap(
        &self,
        ns: &Namespace,
        key: &[u8],
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> StoreResult<Result<(), Conflict>>;

    /// Up to `limit` pairs whose key starts with `prefix`, in key order, from
    /// `start` (inclusive) when given.
    fn scan(&self, ns: &Namespace, prefix: &[u8], start: Option<&[u8]>, limit: usize) -> StoreResult<Vec<KeyValue>>;

    /// Up to `limit` pairs whose key starts with `prefix`, in descending key
    /// order, below `before` (exclusive) when given.
    fn scan_reverse(
        &self,
        ns: &Namespace,
        prefix: &[u8],
        before: Option<&[u8]>,
        limit: usize,
    ) -> StoreResult<Vec<KeyValue>>;

    /// Keys under `prefix` whose value contains `needle`, in key order, at most `limit`.
    fn find(&self, ns: &Namespace, prefix: &[u8], needle: &[u8], limit: usize) -> StoreResult<Vec<Vec<u8>>>;

    /// How many keys under `prefix` hold a value containing `needle`.
    fn count_found(&self, ns: &Namespace, prefix: &[u8], needle: &[u8]) -> StoreResult<u64>;

    /// Applies every op or none.
    fn batch(&self, ns: &Namespace, ops: Vec<BatchOp>) -> StoreResult<()>;

    /// Applies every op, atomically, if every condition holds at that moment;
    /// `Ok(false)` and nothing written when one does not. Of concurrent
    /// conditional batches, each sees the others' writes whole or not at all.
    fn batch_if(&self, ns: &Namespace, conditions: Vec<Condition>, ops: Vec<BatchOp>) -> StoreResult<bool>;

    /// The backend's [`combine::Combiner`], which commits many callers'
    /// batches together; `None` (the default): every batch commits alone.
    fn combiner(&self) -> Option<&combine::Combiner> {
        None
    }

    /// [`Store::batch_if`] for a caller that can wait without holding anything
    /// scarce: a backend may commit many callers' batches together (see
    /// [`combine`]). The promises are those of `batch_if`.
    fn batch_if_shared(
        &self,
        ns: Namespace,
        conditions: Vec<Condition>,
        ops: Vec<BatchOp>,
    ) -> Pin<Box<dyn Future<Output = StoreResult<bool>> + Send + '_>> {
        let batch = combine::Conditional { conditions, ops };
        match self.combiner() {
            Some(combiner) => combiner.share(ns, batch, |ns, b| self.batch_if(ns, b.conditions, b.ops)),
            None => Box::pin(std::future::ready(self.batch_if(&ns, batch.conditions, batch.ops))),
        }
    }

    /// [`Store::batch_if_shared`] for background work nobody waits on (the
    /// webhook worker's records of its attempts): the batch always joins a
    /// combined commit, even when no request is computing, so such batches
    /// share engine commits instead of paying one each. The promises are
    /// those of `batch_if`.
    fn batch_if_background(
        &self,
        ns: Namespace,
        conditions: Vec<Condition>,
        ops: Vec<BatchOp>,
    ) -> Pin<Box<dyn Future<Output = StoreResult<bool>> + Send + '_>> {
        match self.combiner() {
            Some(combiner) => combiner.queue(ns, combine::Conditional { conditions, ops }),
            None => Box::pin(std::future::ready(self.batch_if(&ns, conditions, ops))),
        }
    }

    /// Removes a namespace and all its keys.
    fn drop_namespace(&self, ns: &Namespace) -> StoreResult<()>;

    /// Resolves once every write made before the call is on disk.
    fn durable(&self) -> Pin<Box<dyn Future<Output = StoreResult<()>> + Send + '_>>;

    /// Why this store can no longer write, when only a restart of the process
    /// can mend it (the embedded store after its disk failed a write: sled
    /// keeps that error for every later write, even once there is room
    /// again); the host then stops. A backend whose failures pass on their
    /// own (a database connection) answers `None`.
    fn lasting_failure(&self) -> Option<String> {
        None
    }

    /// Every pair of every namespace as they all stood at one instant, read
    /// while writes go on: what an online backup ([`backup`]) holds. `None`
    /// (the default): this backend cannot read one instant of everything
    /// while it serves (sled; PostgreSQL, whose own tools back it up).
    fn snapshot(&self) -> Option<Pairs> {
        None
    }

    /// How far this store's durable writes reach in its database's log (on
    /// PostgreSQL, the write-ahead log's position), for a replica to be
    /// compared with: once [`Store::durable`] has returned, at least the
    /// position of every write made before it. `None` (the default): the
    /// store has no replicas (sled).
    fn position(&self) -> Option<u64> {
        None
    }
}
