//! A replica's answers kept while it stands still: an edge host reads its
//! standby through this, so a page asked twice costs the standby nothing the
//! second time (a page is several store calls, each a query otherwise).
//!
//! Each answer is kept under the replica position the host knew *before* it
//! read it (the `position` given to [`ReadCache::new`]). A replica only moves
//! forward, so the answer holds everything up to that position: given again
//! while the known position is unchanged, it is exactly as fresh as the host
//! already claims for that position (its `Crm-Bookmark`, its staleness).
//! Once the position moves, every kept answer sits under an older key, is
//! never given again, and leaves as the cache evicts it. A request that needs
//! a newer position than the one known (a bookmark, its own write) makes the
//! host ask the replica first, which moves the known position.
//!
//! Writes, and everything that reads in order to write, pass through
//! untouched: on an edge host they never reach this store anyway
//! ([`crate::split::Split`] sends them to the primary).

use std::sync::Arc;

use quick_cache::Weighter;
use quick_cache::sync::Cache;

use crate::{KeyValue, Namespace, Pairs, Store, StoreResult};

/// The replica position known now.
pub type Position = Box<dyn Fn() -> u64 + Send + Sync>;

pub struct ReadCache {
    inner: Arc<dyn Store>,
    position: Position,
    answers: Cache<Asked, Arc<Answer>, ByBytes>,
}

/// One read, at one known position.
#[derive(Hash, PartialEq, Eq)]
struct Asked {
    position: u64,
    ns: Namespace,
    read: Read,
}

#[derive(Hash, PartialEq, Eq)]
enum Read {
    Get(Vec<u8>),
    GetMany(Vec<Vec<u8>>),
    Scan { prefix: Vec<u8>, start: Option<Vec<u8>>, limit: usize },
    ScanReverse { prefix: Vec<u8>, before: Option<Vec<u8>>, limit: usize },
    Find { prefix: Vec<u8>, needle: Vec<u8>, limit: usize },
    CountFound { prefix: Vec<u8>, needle: Vec<u8> },
}

/// What one [`Read`] answered.
enum Answer {
    Value(Option<Vec<u8>>),
    Values(Vec<Option<Vec<u8>>>),
    Pairs(Vec<KeyValue>),
    Keys(Vec<Vec<u8>>),
    Count(u64),
}

/// Each read's answer type, in and out of an [`Answer`].
trait Kept: Clone + Sized {
    fn into_answer(self) -> Answer;
    fn out_of(answer: &Answer) -> Option<Self>;
}

macro_rules! kept {
    ($type:ty, $variant:ident) => {
        impl Kept for $type {
            fn into_answer(self) -> Answer {
                Answer::$variant(self)
            }
            fn out_of(answer: &Answer) -> Option<Self> {
                match answer {
                    Answer::$variant(kept) => Some(kept.clone()),
                    _ => None,
                }
            }
        }
    };
}
kept!(Option<Vec<u8>>, Value);
kept!(Vec<Option<Vec<u8>>>, Values);
kept!(Vec<KeyValue>, Pairs);
kept!(Vec<Vec<u8>>, Keys);
kept!(u64, Count);

/// An entry weighs its bytes, plus what a small one costs the cache itself.
#[derive(Clone)]
struct ByBytes;

const ENTRY_OVERHEAD: u64 = 96;

impl Weighter<Asked, Arc<Answer>> for ByBytes {
    fn weight(&self, asked: &Asked, answer: &Arc<Answer>) -> u64 {
        let bytes = |b: &[u8]| b.len() as u64;
        let read = match &asked.read {
            Read::Get(key) => bytes(key),
            Read::GetMany(keys) => keys.iter().map(|k| bytes(k) + 24).sum(),
            Read::Scan { prefix, start: bound, .. } | Read::ScanReverse { prefix, before: bound, .. } => {
                bytes(prefix) + bound.as_deref().map_or(0, bytes)
            }
            Read::Find { prefix, needle, .. } | Read::CountFound { prefix, needle } => bytes(prefix) + bytes(needle),
        };
        let answer = match answer.as_ref() {
            Answer::Value(value) => value.as_deref().map_or(0, bytes),
            Answer::Values(values) => values.iter().map(|v| v.as_deref().map_or(0, bytes) + 24).sum(),
            Answer::Pairs(pairs) => pairs.iter().map(|(k, v)| bytes(k) + bytes(v) + 48).sum(),
            Answer::Keys(keys) => keys.iter().map(|k| bytes(k) + 24).sum(),
            Answer::Count(_) => 8,
        };
        ENTRY_OVERHEAD + read + answer
    }
}

impl ReadCache {
    /// Reads of `inner` kept under `position` (which must never go back),
    /// in at most `bytes` of answers.
    pub fn new(inner: Arc<dyn Store>, position: Position, bytes: u64) -> ReadCache {
        // About 2 KB an answer (a page of index keys, a few records).
        let answers = Cache::with_weighter((bytes / 2048).max(16) as usize, bytes, ByBytes);
        ReadCache { inner, position, answers }
    }

    /// `read`'s kept answer at the known position, else `fetch`'s, kept.
    fn kept<T: Kept>(&self, ns: &Namespace, read: Read, fetch: impl FnOnce() -> StoreResult<T>) -> StoreResult<T> {
        let asked = Asked { position: (self.position)(), ns: ns.clone(), read };
        if let Some(answer) = self.answers.get(&asked).as_deref().and_then(T::out_of) {
            metrics::counter!("crm_store_read_cache_total", "outcome" => "hit").increment(1);
            return Ok(answer);
        }
        metrics::counter!("crm_store_read_cache_total", "outcome" => "miss").increment(1);
        let fresh = fetch()?;
        self.answers.insert(asked, Arc::new(fresh.clone().into_answer()));
        Ok(fresh)
    }
}

impl Store for ReadCache {
    fn get(&self, ns: &Namespace, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        self.kept(ns, Read::Get(key.to_vec()), || self.inner.get(ns, key))
    }

    fn get_many(&self, ns: &Namespace, keys: &[Vec<u8>]) -> StoreResult<Vec<Option<Vec<u8>>>> {
        self.kept(ns, Read::GetMany(keys.to_vec()), || self.inner.get_many(ns, keys))
    }

    fn scan(&self, ns: &Namespace, prefix: &[u8], start: Option<&[u8]>, limit: usize) -> StoreResult<Vec<KeyValue>> {
        let read = Read::Scan { prefix: prefix.to_vec(), start: start.map(<[u8]>::to_vec), limit };
        self.kept(ns, read, || self.inner.scan(ns, prefix, start, limit))
    }

    fn scan_reverse(
        &self,
        ns: &Namespace,
        prefix: &[u8],
        before: Option<&[u8]>,
        limit: usize,
    ) -> StoreResult<Vec<KeyValue>> {
        let read = Read::ScanReverse { prefix: prefix.to_vec(), before: before.map(<[u8]>::to_vec), limit };
        self.kept(ns, read, || self.inner.scan_reverse(ns, prefix, before, limit))
    }

    fn find(&self, ns: &Namespace, prefix: &[u8], needle: &[u8], limit: usize) -> StoreResult<Vec<Vec<u8>>> {
        let read = Read::Find { prefix: prefix.to_vec(), needle: needle.to_vec(), limit };
        self.kept(ns, read, || self.inner.find(ns, prefix, needle, limit))
    }

    fn count_found(&self, ns: &Namespace, prefix: &[u8], needle: &[u8]) -> StoreResult<u64> {
        let read = Read::CountFound { prefix: prefix.to_vec(), needle: needle.to_vec() };
        self.kept(ns, read, || self.inner.count_found(ns, prefix, needle))
    }

    crate::delegate::writes_go_to!(inner);

    fn snapshot(&self) -> Option<Pairs> {
        self.inner.snapshot()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Condition, SledStore};
    use std::sync::atomic::{AtomicU64, Ordering};

    /// A replica (a sled store here) behind a cache whose known position a
    /// test moves by hand.
    fn cached() -> (tempfile::TempDir, Arc<dyn Store>, Arc<AtomicU64>, ReadCache) {
        let dir = tempfile::tempdir().unwrap();
        let replica: Arc<dyn Store> = Arc::new(SledStore::open(dir.path()).unwrap());
        let known = Arc::new(AtomicU64::new(1));
        let seen = known.clone();
        let cache = ReadCache::new(replica.clone(), Box::new(move || seen.load(Ordering::SeqCst)), 1 << 20);
        (dir, replica, known, cache)
    }

    #[test]
    fn an_answer_is_given_again_until_the_known_position_moves() {
        let (_dir, replica, known, cache) = cached();
        let ns = Namespace::org("o1");
        replica.put(&ns, b"k/1", b"first").unwrap();
        let reads = |cache: &ReadCache| {
            (
                cache.get(&ns, b"k/1").unwrap(),
                cache.get_many(&ns, &[b"k/1".to_vec(), b"k/2".to_vec()]).unwrap(),
                cache.scan(&ns, b"k/", None, 10).unwrap(),
                cache.scan_reverse(&ns, b"k/", None, 10).unwrap(),
                cache.find(&ns, b"k/", b"s", 10).unwrap(),
                cache.count_found(&ns, b"k/", b"s").unwrap(),
            )
        };
        let before = reads(&cache);
        assert_eq!(before.0.as_deref(), Some(&b"first"[..]));
        assert_eq!(before.5, 1);
        // The replica replays a change the host has not seen yet: the
        // answers of the known position stand.
        replica.put(&ns, b"k/1", b"changed").unwrap();
        replica.put(&ns, b"k/2", b"second").unwrap();
        assert!(reads(&cache) == before, "kept while the known position holds");
        // Another namespace, or the same read with other bounds, is its own read.
        assert_eq!(cache.get(&Namespace::org("o2"), b"k/1").unwrap(), None);
        assert_eq!(cache.scan(&ns, b"k/", None, 1).unwrap().len(), 1);
        known.store(2, Ordering::SeqCst);
        let after = reads(&cache);
        assert_eq!(after.0.as_deref(), Some(&b"changed"[..]));
        assert_eq!(after.1[1].as_deref(), Some(&b"second"[..]));
        assert_eq!(after.2.len(), 2);
        assert_eq!(after.3[0].0, b"k/2".to_vec());
        assert_eq!(after.4, vec![b"k/2".to_vec()], "`second` holds an `s`, `changed` none");
        assert_eq!(after.5, 1);
    }

    #[test]
    fn writes_pass_through_to_the_store_below() {
        let (_dir, replica, _known, cache) = cached();
        let ns = Namespace::org("o1");
        cache.put(&ns, b"k", b"v").unwrap();
        assert_eq!(replica.get(&ns, b"k").unwrap().as_deref(), Some(&b"v"[..]));
        assert!(cache.batch_if(&ns, vec![Condition::Equals(b"k".to_vec(), None)], vec![]).is_ok_and(|ok| !ok));
    }

    #[test]
    fn the_answers_kept_stay_within_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let replica: Arc<dyn Store> = Arc::new(SledStore::open(dir.path()).unwrap());
        let ns = Namespace::org("o1");
        let value = vec![7u8; 1000];
        for i in 0..2000u32 {
            replica.put(&ns, format!("k/{i:05}").as_bytes(), &value).unwrap();
        }
        let cache = ReadCache::new(replica, Box::new(|| 1), 256 * 1024);
        for i in 0..2000u32 {
            cache.get(&ns, format!("k/{i:05}").as_bytes()).unwrap();
        }
        assert!(cache.answers.weight() <= 256 * 1024, "{} bytes kept", cache.answers.weight());
        assert!(cache.answers.len() > 100, "the cache keeps what fits: {}", cache.answers.len());
    }
}
