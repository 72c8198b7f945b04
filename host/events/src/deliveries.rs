//! The deliveries as the API shows them (`GET /api/webhooks/deliveries`),
//! a failed one sent again (`POST .../{id}/retry`), and every failed one of
//! a window sent again (`POST .../recover`).

use chrono::{DateTime, Utc};
use crm_store::{Condition, Namespace, Store, StoreError, StoreResult, counter_value, key_after};
use crm_tenancy::{clock, ids};
use serde_json::{Value, json};

use crate::outbox::Outbox;
use crate::records::{self, Delivery};

/// A delivery as the API shows it: never the target's headers.
pub fn view(d: &Delivery) -> Value {
    let next = d.next_attempt_millis.and_then(|ms| clock::from_millis(ms as i64));
    json!({
        "id": d.id,
        "eventId": d.event_id,
        "eventType": d.event_type,
        "subscription": d.subscription,
        "url": d.url,
        "status": d.status,
        "attempts": d.attempts,
        "lastStatusCode": d.last_status_code,
        "lastError": d.last_error,
        "nextAttemptAt": next.map(clock::format),
        "createdAt": d.created_at,
        "updatedAt": d.updated_at,
    })
}

fn parse(id: &str, bytes: &[u8]) -> StoreResult<Delivery> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::new(format!("corrupt delivery {id}: {e}")))
}

/// The text a stored delivery holds when its status is `status`: the record
/// is compact JSON, and any other field's text is a JSON string, whose
/// quotes are escaped, so only the `status` field can hold it.
fn status_text(status: &str) -> Vec<u8> {
    format!("\"status\":{}", Value::from(status)).into_bytes()
}

/// How many deliveries the organization has (with `status`: in that
/// status, counted by the store without reading them out).
pub fn count(outbox: &Outbox, org: &str, status: Option<&str>) -> StoreResult<u64> {
    let (store, ns) = (outbox.store(), Namespace::org(org));
    if let Some(status) = status {
        return store.count_found(&ns, records::DELIVERIES.as_bytes(), &status_text(status));
    }
    let stored = store.get(&ns, records::COUNT.as_bytes())?;
    Ok(counter_value(stored.as_deref()).max(0) as u64)
}

/// Up to `limit` deliveries (with `status`: in that status), newest first,
/// after skipping `offset` of them.
pub fn page(outbox: &Outbox, org: &str, status: Option<&str>, offset: u64, limit: usize) -> StoreResult<Vec<Value>> {
    let (store, ns) = (outbox.store(), Namespace::org(org));
    let wanted = status.map(status_text);
    let (mut skip, mut before, mut out) = (offset, None::<Vec<u8>>, Vec::new());
    while out.len() < limit {
        // Unfiltered, a skip reads just what it skips; filtered, who knows.
        let want = match (&wanted, skip) {
            (Some(_), _) => 1000,
            (None, 0) => limit - out.len(),
            (None, skip) => skip.min(1000) as usize,
        };
        let pairs = store.scan_reverse(&ns, records::DELIVERIES.as_bytes(), before.as_deref(), want)?;
        let Some((last, _)) = pairs.last() else { break };
        before = Some(last.clone());
        let read = pairs.len();
        for (key, value) in pairs {
            if wanted.as_ref().is_some_and(|w| memchr::memmem::find(&value, w).is_none()) {
                continue;
            }
            if skip > 0 {
                skip -= 1;
            } else if out.len() < limit {
                out.push(view(&parse(&String::from_utf8_lossy(&key), &value)?));
            }
        }
        if read < want {
            break;
        }
    }
    Ok(out)
}

/// Why a retry was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum RetryRefusal {
    NotFound,
    /// Only a failed delivery is sent again; this is its status.
    NotFailed(String),
}

/// Sends failed delivery `id` again: pending, due at once, its schedule
/// started over. Answers the delivery as the API shows it.
pub fn retry(outbox: &Outbox, org: &str, id: &str) -> StoreResult<Result<Value, RetryRefusal>> {
    if !ids::is_id(id) {
        return Ok(Err(RetryRefusal::NotFound));
    }
    let (store, ns, key) = (outbox.store(), Namespace::org(org), records::delivery_key(id));
    let Some(stored) = store.get(&ns, key.as_bytes())? else { return Ok(Err(RetryRefusal::NotFound)) };
    let mut delivery = parse(id, &stored)?;
    if delivery.status != records::FAILED {
        return Ok(Err(RetryRefusal::NotFailed(delivery.status)));
    }
    if !requeue(store.as_ref(), &ns, &mut delivery, stored)? {
        // Changed between the read and the write: whatever it is now, it is not this failed one.
        return Ok(Err(RetryRefusal::NotFailed(records::PENDING.into())));
    }
    outbox.wake(org);
    Ok(Ok(view(&delivery)))
}

/// Makes failed `delivery` (stored as `stored`) pending again, due at once,
/// its schedule started over and its event's id kept (receivers
/// de-duplicate by it); `false` when it changed since it was read.
fn requeue(store: &dyn Store, ns: &Namespace, delivery: &mut Delivery, stored: Vec<u8>) -> StoreResult<bool> {
    delivery.attempts = 0;
    let ops = records::due_now(delivery, clock::now());
    let key = records::delivery_key(&delivery.id).into_bytes();
    store.batch_if(ns, vec![Condition::Equals(key, Some(stored))], ops)
}

/// Which failed deliveries [`recover`] sends again: those created in
/// `[since, until)`, to `url` when given.
pub struct Window<'a> {
    pub since: DateTime<Utc>,
    pub until: Option<DateTime<Utc>>,
    pub url: Option<&'a str>,
}

/// Most deliveries one [`recover`] sends again; a window holding more
/// answers `more`, for the caller to ask again.
pub const MAX_RECOVERED: u64 = 10_000;

#[derive(Debug, PartialEq, Eq)]
pub struct Recovered {
    pub queued: u64,
    pub more: bool,
}

/// Sends again every failed delivery of `window`, oldest first. Ids begin
/// with their second of creation, so the scan starts at `since`'s and stops
/// past `until`'s.
pub fn recover(outbox: &Outbox, org: &str, window: &Window<'_>) -> StoreResult<Recovered> {
    let (store, ns) = (outbox.store(), Namespace::org(org));
    let second = |t: DateTime<Utc>| format!("{}{:08x}", records::DELIVERIES, t.timestamp().clamp(0, u32::MAX.into()));
    let mut start = second(window.since).into_bytes();
    let past = window.until.map(|until| second(until + chrono::Duration::seconds(1)).into_bytes());
    let failed = status_text(records::FAILED);
    let mut recovered = Recovered { queued: 0, more: false };
    loop {
        let pairs = store.scan(&ns, records::DELIVERIES.as_bytes(), Some(&start), 1000)?;
        let Some((last, _)) = pairs.last() else { break };
        start = key_after(last);
        let read = pairs.len();
        for (key, value) in pairs {
            if past.as_ref().is_some_and(|past| key >= *past) {
                return Ok(finish(outbox, org, recovered));
            }
            if memchr::memmem::find(&value, &failed).is_none() {
                continue;
            }
            let mut delivery = parse(&String::from_utf8_lossy(&key), &value)?;
            let created = clock::parse(&delivery.created_at);
            let inside = created.is_some_and(|t| t >= window.since && window.until.is_none_or(|until| t < until));
            if !inside || window.url.is_some_and(|url| url != delivery.url) || delivery.status != records::FAILED {
                continue;
            }
            if recovered.queued == MAX_RECOVERED {
                recovered.more = true;
                return Ok(finish(outbox, org, recovered));
            }
            if requeue(store.as_ref(), &ns, &mut delivery, value)? {
                recovered.queued += 1;
            }
        }
        if read < 1000 {
            break;
        }
    }
    Ok(finish(outbox, org, recovered))
}

fn finish(outbox: &Outbox, org: &str, recovered: Recovered) -> Recovered {
    if recovered.queued > 0 {
        outbox.wake(org);
    }
    recovered
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivery(status: &str, text: &str) -> Delivery {
        Delivery {
            id: "d".into(),
            event_id: "e".into(),
            event_type: "deal.stage_changed".into(),
            subscription: "automations/a".into(),
            url: format!("https://x.co/?q={text}"),
            headers: vec![("x-note".into(), text.into())],
            status: status.into(),
            attempts: 1,
            last_status_code: None,
            last_error: Some(text.into()),
            next_attempt_millis: None,
            created_at: String::new(),
            updated_at: String::new(),
            body: format!("{{\"data\":{{\"status\":\"failed\",\"note\":{text:?}}}}}"),
            counted: true,
            max_per_second: None,
            queue: None,
        }
    }

    #[test]
    fn only_the_status_field_holds_the_status_text() {
        let found = |d: &Delivery, status: &str| {
            let stored = serde_json::to_vec(d).unwrap();
            memchr::memmem::find(&stored, &status_text(status)).is_some()
        };
        let sly = "\"status\":\"failed\"";
        let delivered = delivery(records::DELIVERED, sly);
        assert!(found(&delivered, records::DELIVERED));
        assert!(!found(&delivered, records::FAILED), "other fields' text is escaped");
        assert!(found(&delivery(records::FAILED, "x"), records::FAILED));
        assert!(!found(&delivery(records::PENDING, "x"), records::DELIVERED));
    }
}
