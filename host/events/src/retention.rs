//! How long deliveries and events are kept: a settled delivery (delivered or
//! failed) is listed, and may be sent again, for [`KEEP_DELIVERIES`]; an
//! event is kept a week longer, so a delivery retried on its last listed
//! day still finds it (a retry's schedule spans about three days). Without
//! this an organization's outbox would grow with every change forever.
//!
//! Ids start with their creation second, so the oldest records come first
//! in key order and a sweep stops at the first one that is young enough.

use std::time::Duration;

use crm_store::{BatchOp, Namespace, Store, StoreResult};

use crate::records::{self, Delivery};

pub const KEEP_DELIVERIES: Duration = Duration::from_secs(30 * 24 * 3600);
pub const KEEP_EVENTS: Duration = Duration::from_secs(37 * 24 * 3600);
/// Records one sweep of one organization removes at most (the next sweep goes on).
const MAX_PER_SWEEP: usize = 10_000;
const CHUNK: usize = 500;

/// The creation second an id starts with.
fn created_secs(id: &[u8]) -> Option<u64> {
    u64::from_str_radix(std::str::from_utf8(id.get(..8)?).ok()?, 16).ok()
}

/// Removes the organization's settled deliveries and events older than
/// their retention at `now_secs`; answers how many records went.
pub fn sweep(store: &dyn Store, org_id: &str, now_secs: u64) -> StoreResult<usize> {
    let ns = Namespace::org(org_id);
    let delivery_cutoff = now_secs.saturating_sub(KEEP_DELIVERIES.as_secs());
    let event_cutoff = now_secs.saturating_sub(KEEP_EVENTS.as_secs());
    let mut removed = 0;
    let mut start: Option<Vec<u8>> = None;
    'deliveries: while removed < MAX_PER_SWEEP {
        let pairs = store.scan(&ns, records::DELIVERIES.as_bytes(), start.as_deref(), CHUNK)?;
        let Some((last, _)) = pairs.last() else { break };
        start = Some([last.as_slice(), b"\0"].concat());
        let mut ops = Vec::new();
        for (key, value) in &pairs {
            let id = &key[records::DELIVERIES.len()..];
            if created_secs(id).is_none_or(|secs| secs >= delivery_cutoff) {
                apply(store, &ns, ops, &mut removed)?;
                break 'deliveries;
            }
            let settled = serde_json::from_slice::<Delivery>(value).is_ok_and(|d| d.status != records::PENDING);
            if settled {
                ops.push(BatchOp::Delete(key.clone()));
            }
        }
        apply(store, &ns, ops, &mut removed)?;
    }
    loop {
        let pairs = store.scan(&ns, records::EVENTS.as_bytes(), None, CHUNK)?;
        let old: Vec<BatchOp> = pairs
            .iter()
            .take_while(|(key, _)| created_secs(&key[records::EVENTS.len()..]).is_some_and(|s| s < event_cutoff))
            .map(|(key, _)| BatchOp::Delete(key.clone()))
            .collect();
        let (done, count) = (old.len() < pairs.len() || pairs.len() < CHUNK, old.len());
        if count > 0 {
            store.batch(&ns, old)?;
        }
        removed += count;
        if done || count == 0 || removed >= MAX_PER_SWEEP {
            return Ok(removed);
        }
    }
}

/// Deletes settled deliveries, the list's count with them.
fn apply(store: &dyn Store, ns: &Namespace, mut ops: Vec<BatchOp>, removed: &mut usize) -> StoreResult<()> {
    if ops.is_empty() {
        return Ok(());
    }
    *removed += ops.len();
    ops.push(BatchOp::Add(records::COUNT.as_bytes().to_vec(), -(ops.len() as i64)));
    store.batch(ns, ops)
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
        })
        .unwrap()
    }

    #[test]
    fn settled_deliveries_and_old_events_go_the_rest_stays() {
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
            ops.push(BatchOp::Put(records::event_key(id).into_bytes(), b"{}".to_vec()));
        }
        store.batch(&ns, ops).unwrap();

        // Two settled deliveries past 30 days, one event past 37.
        assert_eq!(sweep(&store, "o", now).unwrap(), 3);
        let left: Vec<Vec<u8>> =
            store.scan(&ns, b"hook/dlv/", None, 100).unwrap().into_iter().map(|(k, _)| k).collect();
        let expected: Vec<Vec<u8>> =
            records[2..].iter().map(|(id, _)| records::delivery_key(id).into_bytes()).collect();
        assert_eq!(left, expected, "the pending one and the young ones stay");
        assert_eq!(store.get(&ns, records::COUNT.as_bytes()).unwrap(), Some(b"3".to_vec()));
        assert_eq!(store.scan(&ns, b"hook/evt/", None, 100).unwrap().len(), 4);
        assert_eq!(sweep(&store, "o", now).unwrap(), 0, "nothing more to do");
    }
}
