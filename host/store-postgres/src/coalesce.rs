//! A batch's writes coalesced into at most three set statements (keys deleted,
//! keys put, counters added), so that a contact's commit of a dozen writes
//! costs three statements sent together instead of a dozen round trips.
//!
//! Coalescing keeps the batch's meaning: for each key only its last put or
//! delete matters, and adds to one counter sum. The three sets are disjoint,
//! so the statements may run in any order. A key that is both a counter and
//! put or deleted in one batch does not coalesce (the batch is applied op by op).
//! Keys are sorted, so two batches over the same keys lock them in the same
//! order and never deadlock each other.

use std::collections::BTreeMap;

use crm_store::BatchOp;

#[derive(Debug, Default, PartialEq)]
pub(crate) struct Coalesced {
    pub(crate) deletes: Vec<Vec<u8>>,
    pub(crate) put_keys: Vec<Vec<u8>>,
    pub(crate) put_values: Vec<Vec<u8>>,
    pub(crate) add_keys: Vec<Vec<u8>>,
    pub(crate) add_deltas: Vec<i64>,
}

enum Last<'a> {
    Put(&'a [u8]),
    Delete,
    Add(i64),
}

pub(crate) fn coalesce(ops: &[BatchOp]) -> Option<Coalesced> {
    let mut last: BTreeMap<&[u8], Last> = BTreeMap::new();
    for op in ops {
        match op {
            BatchOp::Put(k, v) => match last.get(k.as_slice()) {
                Some(Last::Add(_)) => return None,
                _ => drop(last.insert(k, Last::Put(v))),
            },
            BatchOp::Delete(k) => match last.get(k.as_slice()) {
                Some(Last::Add(_)) => return None,
                _ => drop(last.insert(k, Last::Delete)),
            },
            BatchOp::Add(k, d) => match last.get(k.as_slice()) {
                None => drop(last.insert(k, Last::Add(*d))),
                Some(Last::Add(sum)) => drop(last.insert(k, Last::Add(sum.saturating_add(*d)))),
                Some(_) => return None,
            },
        }
    }
    let mut coalesced = Coalesced::default();
    for (key, what) in last {
        match what {
            Last::Put(v) => {
                coalesced.put_keys.push(key.to_vec());
                coalesced.put_values.push(v.to_vec());
            }
            Last::Delete => coalesced.deletes.push(key.to_vec()),
            Last::Add(d) => {
                coalesced.add_keys.push(key.to_vec());
                coalesced.add_deltas.push(d);
            }
        }
    }
    Some(coalesced)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(k: &str, v: &str) -> BatchOp {
        BatchOp::Put(k.into(), v.into())
    }

    #[test]
    fn the_last_write_of_a_key_wins_and_adds_sum() {
        let ops = vec![
            put("b", "1"),
            BatchOp::Delete("a".into()),
            put("a", "2"),
            BatchOp::Add("n".into(), 2),
            put("b", "3"),
            BatchOp::Add("n".into(), -5),
            BatchOp::Delete("c".into()),
        ];
        let coalesced = coalesce(&ops).unwrap();
        assert_eq!(coalesced.put_keys, [b"a".to_vec(), b"b".to_vec()], "sorted");
        assert_eq!(coalesced.put_values, [b"2".to_vec(), b"3".to_vec()]);
        assert_eq!(coalesced.deletes, [b"c".to_vec()]);
        assert_eq!((coalesced.add_keys, coalesced.add_deltas), (vec![b"n".to_vec()], vec![-3]));
    }

    #[test]
    fn a_counter_also_put_does_not_fold() {
        assert!(coalesce(&[put("n", "7"), BatchOp::Add("n".into(), 1)]).is_none());
        assert!(coalesce(&[BatchOp::Add("n".into(), 1), BatchOp::Delete("n".into())]).is_none());
    }
}
