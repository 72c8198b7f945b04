//! Each organization's webhook endpoints (destination URLs) and their
//! health: an endpoint whose every attempt has failed for
//! [`Health::disable_after`] (5 days by default) is disabled. Its deliveries
//! are then held, not attempted (listed `disabled`), until it is enabled
//! again: by saving what sends to it (an automation, a stage: its
//! subscription staged again) or by the app (`POST /admin/orgs/{org}/
//! webhook-endpoints/enable`). Its held deliveries then go out.
//!
//! Keys, in the organization's namespace:
//! - `hook/ep/<digest of the URL>`: an [`Endpoint`], only while it is failing
//!   or disabled (a healthy one has no record: a delivered attempt costs no
//!   write here);
//! - `hook/held/<digest>/<delivery id>`: the deliveries a disabled endpoint holds;
//! - `hook/enable/<digest>` (the URL): an endpoint enabled whose held
//!   deliveries the worker has not all sent back yet.

use std::sync::Arc;
use std::time::Duration;

use crm_store::{BatchOp, Namespace, Store, StoreError, StoreResult};
use crm_tenancy::clock;
use serde::{Deserialize, Serialize};

use crate::records::{self, Delivery};

pub const ENDPOINTS: &str = "hook/ep/";
pub const HELD: &str = "hook/held/";
pub const ENABLED: &str = "hook/enable/";
/// The event the organization's other endpoints get when one is disabled.
pub const ENDPOINT_DISABLED: &str = "webhook.endpoint_disabled";
/// The listed status of a delivery its disabled endpoint holds.
pub const DISABLED: &str = "disabled";
/// Most endpoints one organization's list shows (one per target URL).
pub const MAX_LISTED: usize = 1000;

/// Told of an endpoint disabled in an organization.
pub type OnDisabled = Arc<dyn Fn(&str, &Endpoint) + Send + Sync>;

/// What the worker needs to judge endpoints and tell of a disabled one.
#[derive(Clone)]
pub struct Health {
    /// How long every attempt must have failed before an endpoint is disabled.
    pub disable_after: Duration,
    /// Told once of each endpoint disabled (the server leaves the
    /// organization a notification).
    pub on_disabled: OnDisabled,
}

impl Health {
    /// Svix's rule: five days of failures and no success.
    pub const DISABLE_AFTER: Duration = Duration::from_secs(5 * 24 * 3600);
}

/// A failing or disabled endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    pub url: String,
    /// The first failure since its last success.
    pub failing_since: String,
    pub last_error: Option<String>,
    pub disabled_at: Option<String>,
}

impl Endpoint {
    /// How the app's list shows it.
    pub fn view(&self) -> serde_json::Value {
        let status = if self.disabled_at.is_some() { DISABLED } else { "failing" };
        serde_json::json!({
            "url": self.url,
            "status": status,
            "failingSince": self.failing_since,
            "lastError": self.last_error,
            "disabledAt": self.disabled_at,
        })
    }
}

pub fn key(url: &str) -> String {
    format!("{ENDPOINTS}{}", records::digest(&[url]))
}

fn held_prefix(url: &str) -> String {
    format!("{HELD}{}/", records::digest(&[url]))
}

pub fn held_key(url: &str, delivery_id: &str) -> String {
    format!("{}{delivery_id}", held_prefix(url))
}

/// The endpoint record of `url`, as stored (`None`: healthy).
pub fn read(store: &dyn Store, ns: &Namespace, url: &str) -> StoreResult<Option<(Endpoint, Vec<u8>)>> {
    let Some(bytes) = store.get(ns, key(url).as_bytes())? else { return Ok(None) };
    let endpoint =
        serde_json::from_slice(&bytes).map_err(|e| StoreError::new(format!("corrupt endpoint {url}: {e}")))?;
    Ok(Some((endpoint, bytes)))
}

/// The writes that enable `url` again: its record gone (healthy, its
/// failures forgotten) and its held deliveries marked for the worker.
pub fn enabling(url: &str) -> Vec<BatchOp> {
    vec![
        BatchOp::Delete(key(url).into_bytes()),
        BatchOp::Put(format!("{ENABLED}{}", records::digest(&[url])).into_bytes(), url.as_bytes().to_vec()),
    ]
}

/// The organization's failing and disabled endpoints.
pub fn list(store: &dyn Store, org: &str) -> StoreResult<Vec<Endpoint>> {
    let pairs = store.scan(&Namespace::org(org), ENDPOINTS.as_bytes(), None, MAX_LISTED)?;
    Ok(pairs.iter().filter_map(|(_, v)| serde_json::from_slice(v).ok()).collect())
}

/// The writes that hold `delivery` (due at `due_key`) for its disabled endpoint.
pub fn holding(delivery: &mut Delivery, due_key: &[u8]) -> Vec<BatchOp> {
    let mut ops = vec![
        BatchOp::Delete(due_key.to_vec()),
        BatchOp::Put(held_key(&delivery.url, &delivery.id).into_bytes(), Vec::new()),
    ];
    if !delivery.counted {
        // Listed from now on, so counted in the list's total (as an attempt does).
        delivery.counted = true;
        ops.push(BatchOp::Add(records::COUNT.as_bytes().to_vec(), 1));
    }
    delivery.status = DISABLED.into();
    delivery.next_attempt_millis = None;
    delivery.updated_at = clock::now_text();
    let bytes = serde_json::to_vec(delivery).expect("records serialise");
    ops.push(BatchOp::Put(records::delivery_key(&delivery.id).into_bytes(), bytes));
    ops
}

/// What an attempt's outcome changes in its endpoint's record (`stored`, as
/// read before the attempt), written with the attempt's own record; and
/// whether the endpoint is now due to be disabled.
pub fn after_attempt(
    url: &str,
    stored: Option<&Endpoint>,
    failure: Option<&str>,
    now: chrono::DateTime<chrono::Utc>,
    disable_after: Duration,
) -> (Vec<BatchOp>, Option<Endpoint>) {
    let put = |e: &Endpoint| BatchOp::Put(key(url).into_bytes(), serde_json::to_vec(e).expect("records serialise"));
    match (stored, failure) {
        (None, None) => (Vec::new(), None),
        (Some(_), None) => (vec![BatchOp::Delete(key(url).into_bytes())], None),
        (None, Some(why)) => {
            let first = Endpoint {
                url: url.into(),
                failing_since: clock::format(now),
                last_error: Some(why.into()),
                disabled_at: None,
            };
            (vec![put(&first)], None)
        }
        (Some(failing), Some(why)) => {
            let since = clock::parse(&failing.failing_since).unwrap_or(now);
            let mut next = Endpoint { last_error: Some(why.into()), ..failing.clone() };
            let due = failing.disabled_at.is_none() && (now - since).to_std().is_ok_and(|d| d >= disable_after);
            if due {
                next.disabled_at = Some(clock::format(now));
            }
            (vec![put(&next)], due.then_some(next))
        }
    }
}

/// Sends back up to `max` deliveries an enabled endpoint held (pending, due
/// now), for every endpoint enabled in `org`; answers how many went back.
/// An endpoint's mark goes once it holds none.
pub fn release(store: &dyn Store, org: &str, max: usize) -> StoreResult<usize> {
    let ns = Namespace::org(org);
    let mut released = 0;
    for (mark, url) in store.scan(&ns, ENABLED.as_bytes(), None, 16)? {
        let url = String::from_utf8_lossy(&url).into_owned();
        let prefix = held_prefix(&url);
        let held = store.scan(&ns, prefix.as_bytes(), None, max - released)?;
        if held.is_empty() {
            store.delete(&ns, &mark)?;
            continue;
        }
        let now = clock::now();
        for (held_key, _) in held {
            let id =
                String::from_utf8_lossy(held_key.strip_prefix(prefix.as_bytes()).unwrap_or(&held_key)).into_owned();
            let mut ops = vec![BatchOp::Delete(held_key)];
            if let Some(stored) = store.get(&ns, records::delivery_key(&id).as_bytes())?
                && let Ok(mut delivery) = serde_json::from_slice::<Delivery>(&stored)
                && delivery.status == DISABLED
            {
                ops.extend(records::due_now(&mut delivery, now));
            }
            store.batch(&ns, ops)?;
            released += 1;
        }
        if released >= max {
            break;
        }
    }
    Ok(released)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_past_the_period_disable_and_a_success_forgets_them() {
        let t0 = clock::parse("2026-11-01T00:00:00Z").unwrap();
        let day = chrono::Duration::days(1);
        let period = Health::DISABLE_AFTER;
        let url = "https://x.co/h";
        let (ops, disabled) = after_attempt(url, None, Some("timeout"), t0, period);
        assert_eq!((ops.len(), disabled), (1, None), "the first failure starts the clock");
        let failing =
            Endpoint { url: url.into(), failing_since: clock::format(t0), last_error: None, disabled_at: None };
        assert_eq!(after_attempt(url, Some(&failing), Some("503"), t0 + day * 4, period).1, None);
        let (_, disabled) = after_attempt(url, Some(&failing), Some("503"), t0 + day * 5, period);
        assert_eq!(disabled.unwrap().disabled_at, Some(clock::format(t0 + day * 5)));
        let (ops, disabled) = after_attempt(url, Some(&failing), None, t0 + day * 6, period);
        assert!(matches!((&ops[..], disabled), ([BatchOp::Delete(_)], None)), "a success forgets the failures");
        assert!(after_attempt(url, None, None, t0, period).0.is_empty(), "a healthy one costs no write");
    }
}
