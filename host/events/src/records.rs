//! What the outbox keeps, and where, inside each organization's namespace
//! (beside the modules' `m/<module>/` keys, out of their reach):
//!
//! - `hook/sub/<module>/<id>`: a [`Subscription`] a module staged;
//! - `hook/dlv/<delivery id>`: a [`Delivery`], one per event and target, with
//!   the exact JSON body every attempt sends;
//! - `hook/due/<millis, 16 digits>/<delivery id>`: the pending deliveries by
//!   their next attempt, what the worker reads;
//! - `hook/ord/<queue>/<delivery id>`: the unsettled deliveries of an
//!   ordered target, one queue per subscription, target and resource, in
//!   the order they were made; the first one is the one that may go;
//! - `hook/count`: how many deliveries there are (the list's total), counted
//!   by the worker at a delivery's first attempt so a change's own commit
//!   carries only the delivery and its due entry.

use chrono::{DateTime, Utc};
use crm_store::BatchOp;
use crm_tenancy::clock;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const SUBSCRIPTIONS: &str = "hook/sub/";
pub const DELIVERIES: &str = "hook/dlv/";
pub const DUE: &str = "hook/due/";
pub const ORDERED: &str = "hook/ord/";
pub const COUNT: &str = "hook/count";

pub fn subscription_key(module: &str, id: &str) -> String {
    format!("{SUBSCRIPTIONS}{module}/{id}")
}

pub fn delivery_key(id: &str) -> String {
    format!("{DELIVERIES}{id}")
}

pub fn due_key(millis: u64, delivery_id: &str) -> String {
    format!("{DUE}{millis:016}/{delivery_id}")
}

/// A key part naming what `parts` name together (an endpoint's URL, an
/// ordered queue): the hex of 16 bytes of their SHA-256, so any text makes a
/// key of one shape.
pub fn digest(parts: &[&str]) -> String {
    let digest: [u8; 32] = Sha256::digest(parts.join("\n").as_bytes()).into();
    hex::encode(&digest[..16])
}

/// An event as every delivery of it sends it (Standard Webhooks' envelope):
/// `{id, type, occurredAt, organizationId, data}`.
pub fn event_body(id: &str, event_type: &str, occurred_at: &str, org_id: &str, data: &serde_json::Value) -> String {
    serde_json::json!({
        "id": id,
        "type": event_type,
        "occurredAt": occurred_at,
        "organizationId": org_id,
        "data": data,
    })
    .to_string()
}

/// The writes that make `delivery` pending and due at `now`: its record
/// and its due entry.
pub fn due_now(delivery: &mut Delivery, now: DateTime<Utc>) -> Vec<BatchOp> {
    let millis = now.timestamp_millis().max(0) as u64;
    delivery.status = PENDING.into();
    delivery.next_attempt_millis = Some(millis);
    delivery.updated_at = clock::format(now);
    let record = serde_json::to_vec(&delivery).expect("records serialise");
    vec![
        BatchOp::Put(delivery_key(&delivery.id).into_bytes(), record),
        BatchOp::Put(due_key(millis, &delivery.id).into_bytes(), Vec::new()),
    ]
}

/// Where an ordered delivery waits its place in `queue`.
pub fn ordered_key(queue: &str, delivery_id: &str) -> String {
    format!("{ORDERED}{queue}/{delivery_id}")
}

/// The due entry's value of a paced delivery given its slot: sent when due
/// without asking the pace again. Any other due entry's value is empty.
/// (The bytes are stored, so they keep the word the first version wrote.)
pub const PACED_SLOT: &[u8] = b"turn";

/// The time and delivery id of a due key.
pub fn parse_due_key(key: &[u8]) -> Option<(u64, String)> {
    let rest = std::str::from_utf8(key).ok()?.strip_prefix(DUE)?;
    let (millis, id) = rest.split_once('/')?;
    Some((millis.parse().ok()?, id.to_string()))
}

/// Where an event goes, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    pub url: String,
    pub headers: Vec<(String, String)>,
    /// At most this many attempts a second to this target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_per_second: Option<u32>,
    /// One resource's events in the order they were committed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ordered: bool,
}

/// Events of one type, filtered, sent to some targets (an active automation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    pub id: String,
    /// The module that staged it.
    pub module: String,
    pub event_type: String,
    pub filter: Vec<(String, String)>,
    pub targets: Vec<Target>,
}

impl Subscription {
    /// Whether an event of `event_type` with `data` goes to this subscription:
    /// the type is the same and every filter field of `data` is that text.
    pub fn matches(&self, event_type: &str, data: &serde_json::Value) -> bool {
        self.event_type == event_type
            && self.filter.iter().all(|(field, value)| data.get(field).and_then(|v| v.as_str()) == Some(value))
    }
}

/// One event on its way to one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub id: String,
    pub event_id: String,
    pub event_type: String,
    /// `<module>/<subscription id>`, e.g. `automations/6530…`.
    pub subscription: String,
    pub url: String,
    /// The target's own headers: kept for sending, never listed (they may
    /// carry the customer's credentials).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    pub attempts: u32,
    pub last_status_code: Option<u16>,
    /// Why the last attempt failed, when it did without a status (timeout,
    /// refused address, connection failure).
    pub last_error: Option<String>,
    /// When the next attempt is due (pending only), in milliseconds since the epoch.
    pub next_attempt_millis: Option<u64>,
    pub created_at: String,
    pub updated_at: String,
    /// The event as every attempt sends it (`{id, type, occurredAt,
    /// organizationId, data}`), never listed.
    #[serde(default)]
    pub body: String,
    /// Whether `hook/count` counts it yet (the worker counts it once).
    #[serde(default)]
    pub counted: bool,
    /// Its target's pace, in attempts a second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_per_second: Option<u32>,
    /// The ordered queue it waits its place in, until it settles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
}

pub const PENDING: &str = "pending";
pub const DELIVERED: &str = "delivered";
pub const FAILED: &str = "failed";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_subscription_matches_its_type_and_every_filter_field() {
        let sub = Subscription {
            id: "a".into(),
            module: "automations".into(),
            event_type: "deal.stage_changed".into(),
            filter: vec![("toStage".into(), "won".into())],
            targets: Vec::new(),
        };
        assert!(sub.matches("deal.stage_changed", &json!({ "toStage": "won", "id": "x" })));
        assert!(!sub.matches("deal.stage_changed", &json!({ "toStage": "lost" })));
        assert!(!sub.matches("deal.stage_changed", &json!({ "toStage": ["won"] })), "only a text equals");
        assert!(!sub.matches("contact.created", &json!({ "toStage": "won" })));
        assert!(Subscription { filter: Vec::new(), ..sub }.matches("deal.stage_changed", &json!({})));
    }

    #[test]
    fn due_keys_sort_by_time_and_read_back() {
        assert!(due_key(999, "b") < due_key(1000, "a"));
        assert_eq!(parse_due_key(due_key(1234, "abc").as_bytes()), Some((1234, "abc".into())));
        assert_eq!(parse_due_key(b"hook/due/x/y"), None);
    }
}
