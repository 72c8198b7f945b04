//! The sled engine: one sled tree per namespace.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use super::group_commit::GroupCommit;
use super::{BatchOp, Conflict, KeyValue, Namespace, Store, StoreError, StoreResult};

pub struct SledStore {
    db: sled::Db,
    group: Arc<GroupCommit>,
}

impl SledStore {
    pub fn open(dir: &Path) -> StoreResult<SledStore> {
        let db = sled::Config::new()
            .path(dir)
            // Durability comes from explicit group-committed flushes, not a timer.
            .flush_every_ms(None)
            .open()
            .map_err(err)?;
        let flusher = db.clone();
        let group = GroupCommit::start(move || flusher.flush().map(|_| ()).map_err(|e| e.to_string()));
        Ok(SledStore { db, group })
    }

    fn tree(&self, ns: &Namespace) -> StoreResult<sled::Tree> {
        self.db.open_tree(ns.as_str()).map_err(err)
    }
}

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

impl Store for SledStore {
    fn get(&self, ns: &Namespace, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        Ok(self.tree(ns)?.get(key).map_err(err)?.map(|v| v.to_vec()))
    }

    fn put(&self, ns: &Namespace, key: &[u8], value: &[u8]) -> StoreResult<()> {
        self.tree(ns)?.insert(key, value).map_err(err)?;
        Ok(())
    }

    fn delete(&self, ns: &Namespace, key: &[u8]) -> StoreResult<()> {
        self.tree(ns)?.remove(key).map_err(err)?;
        Ok(())
    }

    fn compare_and_swap(
        &self,
        ns: &Namespace,
        key: &[u8],
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> StoreResult<Result<(), Conflict>> {
        let outcome = self.tree(ns)?.compare_and_swap(key, expected, new).map_err(err)?;
        Ok(outcome.map_err(|e| e.current.map(|v| v.to_vec())))
    }

    fn scan(&self, ns: &Namespace, prefix: &[u8], start: Option<&[u8]>, limit: usize) -> StoreResult<Vec<KeyValue>> {
        let tree = self.tree(ns)?;
        let from = match start {
            Some(s) if s > prefix => s.to_vec(),
            _ => prefix.to_vec(),
        };
        tree.range(from..)
            .take_while(|item| item.as_ref().map_or(true, |(k, _)| k.starts_with(prefix)))
            .take(limit)
            .map(|item| item.map(|(k, v)| (k.to_vec(), v.to_vec())).map_err(err))
            .collect()
    }

    fn scan_reverse(
        &self,
        ns: &Namespace,
        prefix: &[u8],
        before: Option<&[u8]>,
        limit: usize,
    ) -> StoreResult<Vec<KeyValue>> {
        let tree = self.tree(ns)?;
        let iter = match before {
            Some(b) if b <= prefix => return Ok(Vec::new()),
            Some(b) => tree.range(prefix.to_vec()..b.to_vec()),
            None => tree.scan_prefix(prefix),
        };
        iter.rev()
            .take_while(|item| item.as_ref().map_or(true, |(k, _)| k.starts_with(prefix)))
            .take(limit)
            .map(|item| item.map(|(k, v)| (k.to_vec(), v.to_vec())).map_err(err))
            .collect()
    }

    fn find(&self, ns: &Namespace, prefix: &[u8], needle: &[u8], limit: usize) -> StoreResult<Vec<Vec<u8>>> {
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

    fn batch(&self, ns: &Namespace, ops: Vec<BatchOp>) -> StoreResult<()> {
        let mut batch = sled::Batch::default();
        for op in ops {
            match op {
                BatchOp::Put(k, v) => batch.insert(k, v),
                BatchOp::Delete(k) => batch.remove(k),
            }
        }
        self.tree(ns)?.apply_batch(batch).map_err(err)
    }

    fn drop_namespace(&self, ns: &Namespace) -> StoreResult<()> {
        self.db.drop_tree(ns.as_str()).map_err(err)?;
        Ok(())
    }

    fn durable(&self) -> Pin<Box<dyn Future<Output = StoreResult<()>> + Send + '_>> {
        Box::pin(self.group.wait_durable())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open() -> (tempfile::TempDir, SledStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path()).unwrap();
        (dir, store)
    }

    #[test]
    fn namespaces_do_not_see_each_other() {
        let (_d, s) = open();
        let (a, b) = (Namespace::org("a"), Namespace::org("b"));
        s.put(&a, b"k", b"1").unwrap();
        assert_eq!(s.get(&a, b"k").unwrap(), Some(b"1".to_vec()));
        assert_eq!(s.get(&b, b"k").unwrap(), None);
        assert!(s.scan(&b, b"", None, 10).unwrap().is_empty());
    }

    #[test]
    fn compare_and_swap_has_one_winner() {
        let (_d, s) = open();
        let ns = Namespace::org("a");
        assert!(s.compare_and_swap(&ns, b"email", None, Some(b"c1")).unwrap().is_ok());
        let lost = s.compare_and_swap(&ns, b"email", None, Some(b"c2")).unwrap();
        assert_eq!(lost, Err(Some(b"c1".to_vec())));
    }

    #[test]
    fn scan_is_ordered_bounded_by_prefix_and_limit() {
        let (_d, s) = open();
        let ns = Namespace::org("a");
        for k in ["a/1", "a/2", "a/3", "b/1"] {
            s.put(&ns, k.as_bytes(), b"").unwrap();
        }
        let keys = |v: Vec<KeyValue>| v.into_iter().map(|(k, _)| String::from_utf8(k).unwrap()).collect::<Vec<_>>();
        assert_eq!(keys(s.scan(&ns, b"a/", None, 10).unwrap()), ["a/1", "a/2", "a/3"]);
        assert_eq!(keys(s.scan(&ns, b"a/", Some(b"a/2"), 1).unwrap()), ["a/2"]);
        assert_eq!(keys(s.scan_reverse(&ns, b"a/", None, 2).unwrap()), ["a/3", "a/2"]);
        assert_eq!(keys(s.scan_reverse(&ns, b"a/", Some(b"a/3"), 10).unwrap()), ["a/2", "a/1"]);
        assert!(s.scan_reverse(&ns, b"a/", Some(b"a/"), 10).unwrap().is_empty());
        s.put(&ns, b"a/2", b"needle here").unwrap();
        assert_eq!(s.find(&ns, b"a/", b"needle", 10).unwrap(), [b"a/2".to_vec()]);
        assert!(s.find(&ns, b"b/", b"needle", 10).unwrap().is_empty());
    }

    #[test]
    fn batch_and_drop_namespace() {
        let (_d, s) = open();
        let ns = Namespace::org("a");
        s.batch(&ns, vec![BatchOp::Put(b"x".to_vec(), b"1".to_vec()), BatchOp::Put(b"y".to_vec(), b"2".to_vec())])
            .unwrap();
        assert_eq!(s.scan(&ns, b"", None, 10).unwrap().len(), 2);
        s.drop_namespace(&ns).unwrap();
        assert_eq!(s.get(&ns, b"x").unwrap(), None);
    }

    #[tokio::test]
    async fn durable_resolves_after_a_write() {
        let (_d, s) = open();
        s.put(&Namespace::system(), b"k", b"v").unwrap();
        s.durable().await.unwrap();
    }
}
