//! A store that reads from one store and writes to another: an edge host's
//! view of a database whose read-only replica sits beside it while the
//! primary is a WAN away.
//!
//! Every read (`get`, `scan`, `find`, counts) goes to `reads`; every write,
//! and everything that reads in order to write (a compare-and-swap, a
//! conditional batch), goes to `writes`, where its conditions are checked
//! against the data itself: a stale replica can make a conditional write
//! fail, never make a wrong one succeed.

use std::sync::Arc;

use crate::{KeyValue, Namespace, Store, StoreResult};

pub struct Split {
    reads: Arc<dyn Store>,
    writes: Arc<dyn Store>,
}

impl Split {
    pub fn new(reads: Arc<dyn Store>, writes: Arc<dyn Store>) -> Split {
        Split { reads, writes }
    }
}

impl Store for Split {
    fn get(&self, ns: &Namespace, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        self.reads.get(ns, key)
    }

    fn get_many(&self, ns: &Namespace, keys: &[Vec<u8>]) -> StoreResult<Vec<Option<Vec<u8>>>> {
        self.reads.get_many(ns, keys)
    }

    fn scan(&self, ns: &Namespace, prefix: &[u8], start: Option<&[u8]>, limit: usize) -> StoreResult<Vec<KeyValue>> {
        self.reads.scan(ns, prefix, start, limit)
    }

    fn scan_reverse(
        &self,
        ns: &Namespace,
        prefix: &[u8],
        before: Option<&[u8]>,
        limit: usize,
    ) -> StoreResult<Vec<KeyValue>> {
        self.reads.scan_reverse(ns, prefix, before, limit)
    }

    fn find(&self, ns: &Namespace, prefix: &[u8], needle: &[u8], limit: usize) -> StoreResult<Vec<Vec<u8>>> {
        self.reads.find(ns, prefix, needle, limit)
    }

    fn count_found(&self, ns: &Namespace, prefix: &[u8], needle: &[u8]) -> StoreResult<u64> {
        self.reads.count_found(ns, prefix, needle)
    }

    crate::delegate::writes_go_to!(writes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BatchOp, Condition, SledStore};

    #[test]
    fn reads_come_from_one_store_and_writes_go_to_the_other() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let replica: Arc<dyn Store> = Arc::new(SledStore::open(a.path()).unwrap());
        let primary: Arc<dyn Store> = Arc::new(SledStore::open(b.path()).unwrap());
        let ns = Namespace::org("o1");
        replica.put(&ns, b"k", b"on the replica").unwrap();
        let split = Split::new(replica.clone(), primary.clone());
        assert_eq!(split.get(&ns, b"k").unwrap().as_deref(), Some(&b"on the replica"[..]));
        split.put(&ns, b"k", b"written").unwrap();
        assert_eq!(primary.get(&ns, b"k").unwrap().as_deref(), Some(&b"written"[..]));
        assert_eq!(replica.get(&ns, b"k").unwrap().as_deref(), Some(&b"on the replica"[..]));
        // A condition is checked where the data is written: the primary.
        let expected = Condition::Equals(b"k".to_vec(), Some(b"on the replica".to_vec()));
        assert!(!split.batch_if(&ns, vec![expected], vec![BatchOp::Delete(b"k".to_vec())]).unwrap());
        assert!(split.compare_and_swap(&ns, b"k", Some(b"written"), None).unwrap().is_ok());
        assert_eq!(primary.get(&ns, b"k").unwrap(), None);
    }
}
