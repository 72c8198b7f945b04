//! The outbox: what a component stages through the `events` import becomes
//! writes of its own atomic commit.
//!
//! An event is stored only when a subscription of the organization matches
//! it, as one pending delivery per target (carrying the event), due at once:
//! two keys in the change's commit. The [`Outbox`] keeps each organization's
//! subscriptions in memory (reloaded after a commit that changes them) and
//! is the doorbell of the delivery worker: a commit that made deliveries
//! rings it for its organization.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crm_store::{BatchOp, Namespace, Store, StoreResult};
use crm_tenancy::{clock, ids};
use serde_json::Value;
use tokio::sync::Notify;

use crate::endpoints;
use crate::records::{self, Delivery, Subscription, Target};
use crate::webhook_url::{self, Policy};

/// Largest `data` of one event, as JSON.
pub const MAX_EVENT_DATA: usize = 256 << 10;
/// Most targets of one subscription, and headers of one target.
pub const MAX_TARGETS: usize = 10;
pub const MAX_HEADERS: usize = 20;
/// Most subscriptions of one organization that an event is matched against.
pub const MAX_SUBSCRIPTIONS: usize = 1000;
/// The fastest pace a target may ask for, in attempts a second.
pub const MAX_PER_SECOND: u32 = 1000;

/// One thing a component staged for its next commit.
#[derive(Debug, Clone)]
pub enum Staged {
    Emit { event_type: String, data: Value },
    Subscribe(Subscription),
    Unsubscribe(String),
}

fn is_name(text: &str, max: usize, extra: &[u8]) -> bool {
    !text.is_empty()
        && text.len() <= max
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || extra.contains(&b))
}

/// An event type is `word.word`: lower-case words of letters and `_`.
fn check_event_type(event_type: &str) -> Result<(), String> {
    match is_name(event_type, 64, b".") && event_type.contains('.') {
        true => Ok(()),
        false => Err(format!("{event_type:?} is not an event type (like deal.stage_changed)")),
    }
}

/// An `emit`, checked: a known-shaped type and a JSON object of bounded size.
pub fn emit(event_type: &str, data: &str) -> Result<Staged, String> {
    check_event_type(event_type)?;
    if data.len() > MAX_EVENT_DATA {
        return Err(format!("event data larger than {MAX_EVENT_DATA} bytes"));
    }
    match serde_json::from_str::<Value>(data) {
        Ok(data @ Value::Object(_)) => Ok(Staged::Emit { event_type: event_type.into(), data }),
        _ => Err("event data must be a JSON object".into()),
    }
}

/// A `subscribe`, checked: bounded, and every target URL of an allowed form
/// (its addresses are checked again at each delivery).
pub fn subscribe(policy: Policy, module: &str, sub: Subscription) -> Result<Staged, String> {
    if !is_name(&sub.id, 128, b"") {
        return Err("a subscription id is 1 to 128 letters, digits, - or _".into());
    }
    check_event_type(&sub.event_type)?;
    if sub.filter.len() > 10 || sub.filter.iter().any(|(k, v)| k.len() > 64 || v.len() > 256) {
        return Err("a filter has at most 10 fields of 64 bytes and values of 256".into());
    }
    if sub.targets.is_empty() || sub.targets.len() > MAX_TARGETS {
        return Err(format!("a subscription has 1 to {MAX_TARGETS} targets"));
    }
    for target in &sub.targets {
        webhook_url::parse(policy, &target.url)?;
        if target.headers.len() > MAX_HEADERS || target.headers.iter().any(|(k, v)| k.len() > 64 || v.len() > 1000) {
            return Err(format!("a target has at most {MAX_HEADERS} headers of 64 bytes and values of 1000"));
        }
        if target.max_per_second.is_some_and(|n| !(1..=MAX_PER_SECOND).contains(&n)) {
            return Err(format!("a target's max-per-second is 1 to {MAX_PER_SECOND}"));
        }
    }
    Ok(Staged::Subscribe(Subscription { module: module.into(), ..sub }))
}

/// One event on its way to the targets that subscribed to it.
struct Event<'a> {
    org_id: &'a str,
    event_type: &'a str,
    data: &'a Value,
    at: chrono::DateTime<chrono::Utc>,
}

impl Event<'_> {
    /// Pushes one pending delivery (and its due entry, and its place in an
    /// ordered queue) per matching target that `wanted` takes; answers how
    /// many. The event is stored only inside its deliveries.
    fn deliveries(&self, subs: &[Subscription], wanted: impl Fn(&Target) -> bool, ops: &mut Vec<BatchOp>) -> usize {
        let targets: Vec<(&Subscription, &Target)> = subs
            .iter()
            .filter(|s| s.matches(self.event_type, self.data))
            .flat_map(|s| s.targets.iter().map(move |t| (s, t)))
            .filter(|(_, t)| wanted(t))
            .collect();
        if targets.is_empty() {
            return 0;
        }
        let (now_text, now_millis) = (clock::format(self.at), self.at.timestamp_millis().max(0) as u64);
        let event_id = ids::new_id();
        let body = records::event_body(&event_id, self.event_type, &now_text, self.org_id, self.data);
        for (sub, target) in &targets {
            let queue = target.ordered.then(|| ordered_queue(sub, target, self.data));
            let delivery = Delivery {
                id: ids::new_id(),
                event_id: event_id.clone(),
                event_type: self.event_type.to_string(),
                subscription: format!("{}/{}", sub.module, sub.id),
                url: target.url.clone(),
                headers: target.headers.clone(),
                status: records::PENDING.into(),
                attempts: 0,
                last_status_code: None,
                last_error: None,
                next_attempt_millis: Some(now_millis),
                created_at: now_text.clone(),
                updated_at: now_text.clone(),
                body: body.clone(),
                counted: false,
                max_per_second: target.max_per_second,
                queue,
            };
            if let Some(queue) = &delivery.queue {
                ops.push(BatchOp::Put(records::ordered_key(queue, &delivery.id).into_bytes(), Vec::new()));
            }
            let bytes = serde_json::to_vec(&delivery).expect("records serialise");
            ops.push(BatchOp::Put(records::delivery_key(&delivery.id).into_bytes(), bytes));
            ops.push(BatchOp::Put(records::due_key(now_millis, &delivery.id).into_bytes(), Vec::new()));
        }
        targets.len()
    }
}

/// The queue an ordered target's deliveries about one resource (the event's
/// `data.id`) wait in.
fn ordered_queue(sub: &Subscription, target: &Target, data: &Value) -> String {
    let resource = match data.get("id") {
        Some(Value::String(id)) => id.clone(),
        other => other.map(Value::to_string).unwrap_or_default(),
    };
    records::digest(&[&sub.module, &sub.id, &target.url, &resource])
}

/// Whether `id` may name a subscription.
pub fn unsubscribe(id: &str) -> Result<Staged, String> {
    match is_name(id, 128, b"") {
        true => Ok(Staged::Unsubscribe(id.into())),
        false => Err("a subscription id is 1 to 128 letters, digits, - or _".into()),
    }
}

/// The writes that carry what was staged, how many deliveries they make,
/// and whether they change the organization's subscriptions (then
/// [`Outbox::forget_subscriptions`] once they are applied).
#[derive(Default)]
pub struct Writes {
    pub ops: Vec<BatchOp>,
    pub deliveries: usize,
    pub subscriptions_changed: bool,
}

/// One organization's subscriptions as last read (and when), and a
/// generation that every change bumps, so a read that raced a change is not
/// kept.
#[derive(Default)]
struct Cached {
    generation: u64,
    subscriptions: Option<(Arc<Vec<Subscription>>, Instant)>,
}

/// How long subscriptions read from the store are trusted: a change made
/// through this host is seen at once, one made elsewhere within this.
const SUBSCRIPTIONS_FRESH: Duration = Duration::from_secs(1);

/// The shared outbox: turns staged items into writes and wakes the worker.
pub struct Outbox {
    store: Arc<dyn Store>,
    policy: Policy,
    /// Organizations with pending deliveries, by the earliest one's time (ms).
    pub(crate) due: Mutex<HashMap<String, u64>>,
    pub(crate) bell: Notify,
    subscriptions: Mutex<HashMap<String, Cached>>,
}

impl Outbox {
    pub fn new(store: Arc<dyn Store>, policy: Policy) -> Arc<Outbox> {
        Arc::new(Outbox { store, policy, due: Mutex::default(), bell: Notify::new(), subscriptions: Mutex::default() })
    }

    /// Where webhooks may go, as the operator set it.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    pub(crate) fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The writes for `staged` of `module` in organization `org_id`, to go in
    /// the same atomic batch as the change that staged them.
    pub fn writes(&self, org_id: &str, module: &str, staged: Vec<Staged>) -> StoreResult<Writes> {
        let mut writes = Writes { ops: Vec::new(), deliveries: 0, subscriptions_changed: false };
        let mut subscriptions: Option<Arc<Vec<Subscription>>> = None;
        let now = clock::now();
        for item in staged {
            match item {
                Staged::Subscribe(sub) => {
                    writes.subscriptions_changed = true;
                    // Saving what sends to an endpoint enables it again.
                    sub.targets.iter().for_each(|t| writes.ops.extend(endpoints::enabling(&t.url)));
                    let bytes = serde_json::to_vec(&sub).expect("records serialise");
                    writes.ops.push(BatchOp::Put(records::subscription_key(module, &sub.id).into_bytes(), bytes));
                }
                Staged::Unsubscribe(id) => {
                    writes.subscriptions_changed = true;
                    writes.ops.push(BatchOp::Delete(records::subscription_key(module, &id).into_bytes()));
                }
                Staged::Emit { event_type, data } => {
                    let subs = match &subscriptions {
                        Some(subs) => subs,
                        None => subscriptions.insert(self.subscriptions(org_id)?),
                    };
                    let event = Event { org_id, event_type: &event_type, data: &data, at: now };
                    writes.deliveries += event.deliveries(subs, |_| true, &mut writes.ops);
                }
            }
        }
        Ok(writes)
    }

    /// Emits an event of the host's own (not a component's): written at
    /// once, to every matching target but those `skip` names. Answers how
    /// many deliveries it made.
    pub fn announce(
        &self,
        org_id: &str,
        event_type: &str,
        data: &Value,
        skip: impl Fn(&Target) -> bool,
    ) -> StoreResult<usize> {
        let subs = self.subscriptions(org_id)?;
        let event = Event { org_id, event_type, data, at: clock::now() };
        let mut ops = Vec::new();
        let made = event.deliveries(&subs, |t| !skip(t), &mut ops);
        if made > 0 {
            self.store.batch(&Namespace::org(org_id), ops)?;
            self.wake(org_id);
        }
        Ok(made)
    }

    /// The organization's subscriptions: from memory, or read and kept
    /// unless a change landed meanwhile.
    fn subscriptions(&self, org_id: &str) -> StoreResult<Arc<Vec<Subscription>>> {
        let generation = {
            let cache = self.subscriptions.lock().expect("outbox lock");
            match cache.get(org_id) {
                Some(Cached { subscriptions: Some((subs, read)), .. }) if read.elapsed() < SUBSCRIPTIONS_FRESH => {
                    return Ok(subs.clone());
                }
                Some(cached) => cached.generation,
                None => 0,
            }
        };
        let pairs =
            self.store.scan(&Namespace::org(org_id), records::SUBSCRIPTIONS.as_bytes(), None, MAX_SUBSCRIPTIONS)?;
        let subs: Arc<Vec<Subscription>> =
            Arc::new(pairs.iter().filter_map(|(_, v)| serde_json::from_slice(v).ok()).collect());
        let mut cache = self.subscriptions.lock().expect("outbox lock");
        let entry = cache.entry(org_id.to_string()).or_default();
        if entry.generation == generation {
            entry.subscriptions = Some((subs.clone(), Instant::now()));
        }
        Ok(subs)
    }

    /// Whether any subscription of the organization is for `event_type`: an
    /// event nobody subscribed to is dropped when emitted, before its data
    /// is even read (a contact's creation with no automation costs nothing more).
    pub fn is_wanted(&self, org_id: &str, event_type: &str) -> StoreResult<bool> {
        Ok(self.subscriptions(org_id)?.iter().any(|s| s.event_type == event_type))
    }

    /// Drops the organization's subscriptions from memory: call after a
    /// commit that changed them is applied.
    pub fn forget_subscriptions(&self, org_id: &str) {
        let mut cache = self.subscriptions.lock().expect("outbox lock");
        let entry = cache.entry(org_id.to_string()).or_default();
        entry.generation += 1;
        entry.subscriptions = None;
    }

    /// Tells the worker that `org_id` has deliveries due now.
    pub fn wake(&self, org_id: &str) {
        self.due.lock().expect("outbox lock").insert(org_id.to_string(), 0);
        self.bell.notify_one();
    }
}
