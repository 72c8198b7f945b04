//! A test send (`POST /api/webhooks/test`): a signed sample of an event
//! type sent once, now, to a URL, and what the receiver answered, for an
//! integrator building a receiver. Nothing is stored or retried; the
//! address rules, the signature and the bounds are a delivery's.

use std::time::{Duration, Instant};

use crm_store::StoreResult;
use crm_tenancy::{Tenancy, clock, ids};
use serde_json::Value;

use crate::records;
use crate::schedule::Outcome;
use crate::sender::{Attempt, Sender};
use crate::sign;

/// How much of the receiver's answer is shown.
pub const BODY_SHOWN: usize = 1024;

/// What the receiver answered.
pub struct TestSent {
    /// `None` when no answer came (refused address, connection, timeout).
    pub status: Option<u16>,
    pub latency: Duration,
    /// The first [`BODY_SHOWN`] bytes of the answer, as text.
    pub body: String,
    /// Why no answer came.
    pub error: Option<String>,
}

/// Sends an event of `event_type` carrying `data` (a sample) to `url`,
/// signed with organization `org`'s secret.
pub async fn send(
    sender: &Sender,
    tenancy: &Tenancy,
    (org, url): (&str, &str),
    event_type: &str,
    data: &Value,
) -> StoreResult<TestSent> {
    let id = ids::new_id();
    let body = records::event_body(&id, event_type, &clock::now_text(), org, data).into_bytes();
    let timestamp = clock::now().timestamp();
    let signature = sign::header_for(&tenancy.webhook_secret(org)?, &id, timestamp, &body);
    let attempt = Attempt { url, headers: &[], webhook_id: &id, timestamp, signature: &signature, body };
    let started = Instant::now();
    let (outcome, kept) = sender.send_keeping(attempt, BODY_SHOWN).await;
    let latency = started.elapsed();
    let (status, error) = match outcome {
        Outcome::Delivered(status) | Outcome::Refused { status, .. } => (Some(status), None),
        Outcome::Gone => (Some(410), None),
        Outcome::Failed(why) => (None, Some(why)),
    };
    Ok(TestSent { status, latency, body: String::from_utf8_lossy(&kept).into_owned(), error })
}
