//! How long deliveries are kept: a settled one (delivered or failed) is
//! listed, and may be sent again, for [`KEEP_DELIVERIES`]; a pending one
//! stays until it settles. Without this an organization's outbox would grow
//! with every change forever.
//!
//! Ids start with their creation second, so the oldest records come first
//! in key order and a sweep stops at the first one that is young enough.

use std::time::Duration;

use crm_store::{BatchOp, Condition, Namespace, Store, StoreResult};

use crate::records::{self, Delivery};

pub const KEEP_DELIVERIES: Duration = Duration::from_secs(30 * 24 * 3600);
/// Records one sweep of one organization removes at most (the next sweep goes on).
const MAX_PER_SWEEP: usize = 10_000;
const CHUNK: usize = 500;

/// The creation second an id starts with.
fn created_secs(id: &[u8]) -> Option<u64> {
    u64::from_str_radix(std::str::from_utf8(id.get(..8)?).ok()?, 16).ok()
}

/// Removes the organization's settled deliveries older than
/// [`KEEP_DELIVERIES`] at `now_secs`; answers how many went.
pub fn sweep(store: &dyn Store, org_id: &str, now_secs: u64) -> StoreResult<usize> {
    let ns = Namespace::org(org_id);
    let delivery_cutoff = now_secs.saturating_sub(KEEP_DELIVERIES.as_secs());
    let mut removed = 0;
    let mut start: Option<Vec<u8>> = None;
    'deliveries: while removed < MAX_PER_SWEEP {
        let pairs = store.scan(&ns, records::DELIVERIES.as_bytes(), start.as_deref(), CHUNK)?;
        let Some((last, _)) = pairs.last() else { break };
        start = Some(crm_store::key_after(last));
        let mut doomed = Vec::new();
        for (key, value) in &pairs {
            let id = key.strip_prefix(records::DELIVERIES.as_bytes()).unwrap_or(key);
            if created_secs(id).is_none_or(|secs| secs >= delivery_cutoff) {
                apply(store, &ns, doomed, &mut removed)?;
                break 'deliveries;
            }
            match serde_json::from_slice::<Delivery>(value) {
                Ok(d) if d.status != records::PENDING => {
                    doomed.push(Doomed { key: key.clone(), read: value.clone(), counted: d.counted })
                }
                _ => {}
            }
        }
        apply(store, &ns, doomed, &mut removed)?;
    }
    Ok(removed)
}

/// A settled delivery to remove, as the sweep read it.
struct Doomed {
    key: Vec<u8>,
    read: Vec<u8>,
    /// Whether the list's count includes it.
    counted: bool,
}

/// Deletes settled deliveries, the list's count with them, only if none
/// changed since it was read: a retry meanwhile made one pending again, and
/// it must stay (the next sweep takes the others).
fn apply(store: &dyn Store, ns: &Namespace, doomed: Vec<Doomed>, removed: &mut usize) -> StoreResult<()> {
    if doomed.is_empty() {
        return Ok(());
    }
    let counted = doomed.iter().filter(|d| d.counted).count() as i64;
    let mut conditions = Vec::with_capacity(doomed.len());
    let mut ops = Vec::with_capacity(doomed.len() + 1);
    for Doomed { key, read, .. } in doomed {
        ops.push(BatchOp::Delete(key.clone()));
        conditions.push(Condition::Equals(key, Some(read)));
    }
    ops.push(BatchOp::Add(records::COUNT.as_bytes().to_vec(), -counted));
    let deleting = ops.len() - 1;
    if store.batch_if(ns, conditions, ops)? {
        *removed += deleting;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crm_store::SledStore;

    const DAY: u64 = 24 * 3600;

    fn id(secs: u64, n: u8) -> String {
        format!("{secs:08x}{n:016x}")
    }

    fn delivery(id: &str, status: &str) -> Vec<u8> {
        serde_json::to_vec(&Delivery {
            id: id.into(),
            event_id: id.into(),
            event_type: "contact.created".into(),
            subscription: "automations/x".into(),
            url: "https://example.co/".into(),
            headers: Vec::new(),
            status: status.into(),
            attempts: 1,
            last_status_code: None,
            last_error: None,
            next_attempt_millis: None,
            created_at: String::new(),
            updated_at: String::new(),
            body: "{}".into(),
            counted: true,
            max_per_second: None,
            queue: None,
        })
        .unwrap()
    }

    #[test]
    fn settled_deliveries_go_pending_and_young_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path()).unwrap();
        let ns = Namespace::org("o");
        let now = 1_800_000_000;
        let records = [
            (id(now - 40 * DAY, 1), records::DELIVERED),
            (id(now - 35 * DAY, 2), records::FAILED),
            (id(now - 31 * DAY, 3), records::PENDING),
            (id(now - 29 * DAY, 4), records::DELIVERED),
            (id(now - DAY, 5), records::FAILED),
        ];
        let mut ops = vec![BatchOp::Add(records::COUNT.as_bytes().to_vec(), records.len() as i64)];
        for (id, status) in &records {
            ops.push(BatchOp::Put(records::delivery_key(id).into_bytes(), delivery(id, status)));
        }
        store.batch(&ns, ops).unwrap();

        // Two settled deliveries past 30 days.
        assert_eq!(sweep(&store, "o", now).unwrap(), 2);
        let left: Vec<Vec<u8>> =
            store.scan(&ns, b"hook/dlv/", None, 100).unwrap().into_iter().map(|(k, _)| k).collect();
        let expected: Vec<Vec<u8>> =
            records[2..].iter().map(|(id, _)| records::delivery_key(id).into_bytes()).collect();
        assert_eq!(left, expected, "the pending one and the young ones stay");
        assert_eq!(store.get(&ns, records::COUNT.as_bytes()).unwrap(), Some(b"3".to_vec()));
        assert_eq!(sweep(&store, "o", now).unwrap(), 0, "nothing more to do");
    }

    /// A failed delivery read by the sweep and sent again (a retry) before
    /// the sweep's delete: the retry's delivery stays, pending.
    #[test]
    fn a_delivery_retried_after_the_sweep_read_it_stays() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path()).unwrap();
        let ns = Namespace::org("o");
        let old = id(1_800_000_000 - 40 * DAY, 1);
        let key = records::delivery_key(&old).into_bytes();
        let failed = delivery(&old, records::FAILED);
        store
            .batch(&ns, vec![BatchOp::Put(key.clone(), failed.clone()), BatchOp::Add(records::COUNT.into(), 1)])
            .unwrap();
        // The sweep has read it as failed; the retry lands now.
        let retried = delivery(&old, records::PENDING);
        store.batch(&ns, vec![BatchOp::Put(key.clone(), retried.clone())]).unwrap();

        let mut removed = 0;
        apply(&store, &ns, vec![Doomed { key: key.clone(), read: failed, counted: true }], &mut removed).unwrap();
        assert_eq!(removed, 0);
        assert_eq!(store.get(&ns, &key).unwrap(), Some(retried));
        assert_eq!(store.get(&ns, records::COUNT.as_bytes()).unwrap(), Some(b"1".to_vec()));
    }
}
