//! The delivery worker: sends every pending delivery when it is due, at
//! least once, and records what happened.
//!
//! Pending deliveries are found through each organization's `hook/due/`
//! index, which is the only state that matters: a delivery leaves it only in
//! the write that records its attempt, so a `kill -9` before that write sends
//! it again after the restart (receivers de-duplicate by `webhook-id`). In
//! memory the worker keeps which organizations have something due and when
//! (seeded at start, rung by [`Outbox::wake`]).
//!
//! Isolation: each organization has at most [`PER_ORG`] attempts in flight,
//! so receivers that hang (15 s each) hold only their own organization's
//! slots; attempts run on their own tasks, never on a request's.
//!
//! Many hosts on one store: only the holder of the `webhook-delivery`
//! [`Lease`] delivers. On a shared store other hosts' commits do not ring this
//! host's bell, so the holder also looks at every organization's outbox every
//! [`RESCAN`].

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crm_store::lease::Lease;
use crm_store::{BatchOp, Condition, Namespace, StoreResult};
use crm_tenancy::webhook_secrets::WebhookSecret;
use crm_tenancy::{Tenancy, clock};

use crate::departure::{self, Pace, Wait};
use crate::endpoints::{self, Endpoint, Health};
use crate::outbox::Outbox;
use crate::records::{self, Delivery};
use crate::retention;
use crate::schedule::{self, Outcome};
use crate::sender::{Attempt, Sender};
use crate::sign;

/// Attempts in flight for one organization, and for the whole host.
pub const PER_ORG: usize = 8;
const TOTAL: usize = 512;
/// Held deliveries sent back per organization per round, once their
/// endpoint is enabled.
const RELEASE: usize = 100;
/// Due entries read per organization per round: enough to fill its free
/// slots past the ones in flight (which are the earliest due).
const SCAN: usize = PER_ORG + 1;
/// The longest the worker sleeps without looking (a safety net: wake-ups
/// come from [`Outbox::wake`] and from the earliest due time).
const IDLE: Duration = Duration::from_secs(5);
/// How often settled deliveries past their retention are swept away.
const SWEEP_EVERY: Duration = Duration::from_secs(3600);
/// How long the delivery lease lasts unless renewed: how long deliveries may
/// pause when the host holding it dies.
pub const LEASE: Duration = Duration::from_secs(10);
/// On a shared store, how often the lease holder reads every outbox for
/// events other hosts committed.
pub const RESCAN: Duration = Duration::from_secs(1);

pub struct Worker {
    outbox: Arc<Outbox>,
    lease: Lease,
    /// `Some(RESCAN)` on a shared store.
    rescan: Option<Duration>,
    tenancy: Tenancy,
    sender: Sender,
    in_flight: Mutex<HashSet<String>>,
    per_org: Mutex<HashMap<String, usize>>,
    permits: tokio::sync::Semaphore,
    pace: Pace,
    health: Health,
}

/// A due delivery, read: its entry, its record as stored (the condition
/// its attempt's commit keeps), and its endpoint's health.
struct Due {
    ns: Namespace,
    due_key: Vec<u8>,
    due_value: Vec<u8>,
    delivery_key: String,
    delivery: Delivery,
    unchanged: Condition,
    endpoint: Option<(Endpoint, Vec<u8>)>,
}

/// The delivery after an attempt with `outcome` at `now`: its counts, its
/// status, its next attempt; the writes besides its record (its due entry
/// gone, its first count, its next due entry).
fn settled(
    delivery: &mut Delivery,
    outcome: &Outcome,
    now: chrono::DateTime<chrono::Utc>,
    due_key: Vec<u8>,
) -> Vec<BatchOp> {
    delivery.attempts += 1;
    delivery.updated_at = clock::format(now);
    let (label, code, error) = match outcome {
        Outcome::Delivered(s) => ("delivered", Some(*s), None),
        Outcome::Gone => ("gone", Some(410), None),
        Outcome::Refused { status, .. } => ("refused", Some(*status), None),
        Outcome::Failed(why) => ("failed", None, Some(why.clone())),
    };
    metrics::counter!("crm_webhook_attempts_total", "outcome" => label).increment(1);
    (delivery.last_status_code, delivery.last_error) = (code, error);
    let mut ops = vec![BatchOp::Delete(due_key)];
    if !delivery.counted {
        delivery.counted = true;
        ops.push(BatchOp::Add(records::COUNT.as_bytes().to_vec(), 1));
    }
    delivery.next_attempt_millis = None;
    if let Outcome::Delivered(_) = outcome {
        delivery.status = records::DELIVERED.into();
    } else if let Some(wait) = schedule::next_wait(delivery.attempts, outcome, schedule::jitter()) {
        let next = now.timestamp_millis().max(0) as u64 + wait.as_millis() as u64;
        delivery.next_attempt_millis = Some(next);
        ops.push(BatchOp::Put(records::due_key(next, &delivery.id).into_bytes(), Vec::new()));
    } else {
        delivery.status = records::FAILED.into();
    }
    ops
}

fn now_millis() -> u64 {
    clock::now().timestamp_millis().max(0) as u64
}

/// A running worker: stop it to give its lease up at once.
pub struct Running {
    task: tokio::task::JoinHandle<()>,
    worker: Arc<Worker>,
}

impl Running {
    /// Stops delivering (an attempt cut short is sent again later: at least
    /// once) and releases the lease for another host.
    pub fn stop(self) {
        self.task.abort();
        if let Err(e) = self.worker.lease.release() {
            tracing::warn!(error = %e, "could not release the webhook delivery lease");
        }
    }
}

impl Worker {
    /// Starts the worker on the current tokio runtime. `host` names this
    /// host among those sharing the store (`shared`).
    pub fn start(outbox: Arc<Outbox>, tenancy: Tenancy, health: Health, host: &str, shared: bool) -> Running {
        let worker = Worker::new(outbox, tenancy, health, host, shared);
        Running { task: tokio::spawn(worker.clone().run()), worker }
    }

    /// The worker, not yet delivering (the tests drive its attempts).
    fn new(outbox: Arc<Outbox>, tenancy: Tenancy, health: Health, host: &str, shared: bool) -> Arc<Worker> {
        Arc::new(Worker {
            sender: Sender::new(outbox.policy()),
            lease: Lease::new(outbox.store().clone(), "webhook-delivery", host, LEASE),
            rescan: shared.then_some(RESCAN),
            outbox,
            tenancy,
            in_flight: Mutex::default(),
            per_org: Mutex::default(),
            permits: tokio::sync::Semaphore::new(TOTAL),
            pace: Pace::default(),
            health,
        })
    }

    /// Whether this host holds the delivery lease now (taking or renewing it).
    fn holds_lease(&self) -> bool {
        self.lease.hold(now_millis()).unwrap_or_else(|e| {
            tracing::error!(error = %e, "webhook worker could not read its lease");
            false
        })
    }

    /// Every organization with a pending delivery, from the store.
    fn seed(&self) -> StoreResult<()> {
        let store = self.outbox.store();
        for org in self.tenancy.list_orgs()? {
            let first = store.scan(&Namespace::org(&org.id), records::DUE.as_bytes(), None, 1)?;
            if let Some((millis, _)) = first.first().and_then(|(k, _)| records::parse_due_key(k)) {
                self.outbox.due.lock().expect("outbox lock").insert(org.id, millis);
            }
        }
        Ok(())
    }

    async fn run(self: Arc<Self>) {
        tokio::spawn(self.clone().sweep_every(SWEEP_EVERY));
        let renew = self.lease.renew_every();
        loop {
            // Wait for the lease; whoever held it before may have left
            // deliveries due, so the outboxes are read on taking it.
            while !self.holds_lease() {
                tokio::time::sleep(renew).await;
            }
            if let Err(e) = self.seed() {
                tracing::error!(error = %e, "webhook worker could not read the outboxes");
            }
            let mut renewed = Instant::now();
            let mut seeded = Instant::now();
            loop {
                if renewed.elapsed() >= renew {
                    if !self.holds_lease() {
                        break;
                    }
                    renewed = Instant::now();
                }
                if let Some(every) = self.rescan
                    && seeded.elapsed() >= every
                {
                    if let Err(e) = self.seed() {
                        tracing::error!(error = %e, "webhook worker could not read the outboxes");
                    }
                    seeded = Instant::now();
                }
                let wait = self.dispatch().min(renew).min(self.rescan.unwrap_or(renew));
                tokio::select! {
                    _ = self.outbox.bell.notified() => {}
                    _ = tokio::time::sleep(wait) => {}
                }
            }
        }
    }

    /// Removes what [`retention`] no longer keeps, for every organization,
    /// at start and then every `period`, off the threads that serve I/O.
    async fn sweep_every(self: Arc<Self>, period: Duration) {
        loop {
            let worker = self.clone();
            let swept = tokio::task::spawn_blocking(move || -> StoreResult<usize> {
                if !worker.holds_lease() {
                    return Ok(0);
                }
                let now = clock::now().timestamp().max(0) as u64;
                let mut removed = 0;
                for org in worker.tenancy.list_orgs()? {
                    removed += retention::sweep(worker.outbox.store().as_ref(), &org.id, now)?;
                }
                Ok(removed)
            })
            .await;
            match swept {
                Ok(Ok(removed)) if removed > 0 => tracing::info!(removed, "webhook retention sweep"),
                Ok(Err(e)) => tracing::error!(error = %e, "webhook retention sweep failed"),
                _ => {}
            }
            tokio::time::sleep(period).await;
        }
    }

    /// Starts every attempt that is due; answers how long to sleep.
    fn dispatch(self: &Arc<Self>) -> Duration {
        let now = now_millis();
        let ready: Vec<String> = {
            let mut due = self.outbox.due.lock().expect("outbox lock");
            let ready: Vec<String> = due.iter().filter(|(_, t)| **t <= now).map(|(org, _)| org.clone()).collect();
            ready.iter().for_each(|org| {
                due.remove(org);
            });
            ready
        };
        for org in ready {
            let next = match self.dispatch_org(&org, now) {
                Ok(next) => next,
                Err(e) => {
                    tracing::error!(error = %e, org, "webhook worker could not read the outbox");
                    Some(now + 1000)
                }
            };
            if let Some(t) = next {
                let mut due = self.outbox.due.lock().expect("outbox lock");
                due.entry(org).and_modify(|e| *e = (*e).min(t)).or_insert(t);
            }
        }
        let earliest = self.outbox.due.lock().expect("outbox lock").values().min().copied();
        earliest.map_or(IDLE, |t| Duration::from_millis(t.saturating_sub(now_millis())).min(IDLE))
    }

    /// Starts the due attempts of one organization; answers when to look again
    /// (`None`: when an attempt in flight ends, or a new event rings).
    fn dispatch_org(self: &Arc<Self>, org: &str, now: u64) -> StoreResult<Option<u64>> {
        if self.tenancy.org(org)?.is_none() {
            return Ok(None); // deleted: its outbox went with it
        }
        if endpoints::release(self.outbox.store().as_ref(), org, RELEASE)? > 0 {
            return Ok(Some(now)); // an enabled endpoint's held deliveries are due now
        }
        let entries = self.outbox.store().scan(&Namespace::org(org), records::DUE.as_bytes(), None, SCAN)?;
        let scanned = entries.len();
        for (key, _) in entries {
            let Some((millis, id)) = records::parse_due_key(&key) else { continue };
            if self.in_flight.lock().expect("worker lock").contains(&id) {
                continue;
            }
            if millis > now {
                return Ok(Some(millis));
            }
            {
                let mut per_org = self.per_org.lock().expect("worker lock");
                let running = per_org.entry(org.to_string()).or_default();
                if *running >= PER_ORG {
                    return Ok(None);
                }
                *running += 1;
            }
            self.in_flight.lock().expect("worker lock").insert(id.clone());
            let (worker, org, key) = (self.clone(), org.to_string(), key.to_vec());
            tokio::spawn(async move {
                let outcome = match worker.permits.acquire().await {
                    Ok(_permit) => worker.attempt(&org, &id, key).await,
                    Err(_) => Ok(()),
                };
                if let Err(e) = outcome {
                    tracing::error!(error = %e, org, delivery = id, "webhook attempt could not be recorded");
                }
                worker.in_flight.lock().expect("worker lock").remove(&id);
                if let Some(n) = worker.per_org.lock().expect("worker lock").get_mut(&org) {
                    *n -= 1;
                }
                worker.outbox.wake(&org);
            });
        }
        Ok((scanned == SCAN).then_some(now))
    }

    /// One attempt of delivery `id`, whose due entry is `due_key`, unless it
    /// must wait its slot (then its due entry moves).
    async fn attempt(&self, org: &str, id: &str, due_key: Vec<u8>) -> StoreResult<()> {
        let Some(mut due) = self.due(org, id, due_key)? else { return Ok(()) };
        if !self.may_leave(org, &mut due).await? {
            return Ok(());
        }
        // The change an event tells of is on disk before anyone hears of it.
        self.outbox.store().durable().await?;
        let secret = self.tenancy.webhook_secret(org)?;
        if let Some(per_second) = due.delivery.max_per_second {
            // After every wait (one flush releases many attempts at once),
            // with nothing awaited between it and the request.
            while let Err(at) = self.pace.depart(org, &due.delivery.url, per_second, Instant::now()) {
                tokio::time::sleep_until(at.into()).await;
            }
        }
        tracing::debug!(
            org,
            delivery = id,
            event = due.delivery.event_id,
            per_second = due.delivery.max_per_second.unwrap_or(0),
            "a webhook attempt leaves"
        );
        let outcome = self.send(&secret, &due.delivery).await;
        if self.tenancy.org(org)?.is_none() {
            return Ok(()); // deleted meanwhile: nothing to record
        }
        self.record(org, due, &outcome).await
    }

    /// The delivery a due entry announces, when it is still to be attempted
    /// (an entry whose delivery is gone or settled is removed).
    fn due(&self, org: &str, id: &str, due_key: Vec<u8>) -> StoreResult<Option<Due>> {
        let store = self.outbox.store();
        if self.tenancy.org(org)?.is_none() {
            return Ok(None); // deleted meanwhile: writing now would bring its namespace back
        }
        let ns = Namespace::org(org);
        // The scan that found `due_key` may have read it just before the
        // previous attempt's commit removed it (that attempt leaves
        // `in_flight` only after its commit): the attempt it announced was
        // made, and the next one is due later, under another key.
        let Some(due_value) = store.get(&ns, &due_key)? else { return Ok(None) };
        let delivery_key = records::delivery_key(id);
        let Some(stored) = store.get(&ns, delivery_key.as_bytes())? else {
            store.delete(&ns, &due_key)?;
            return Ok(None);
        };
        let delivery: Delivery = serde_json::from_slice(&stored)
            .map_err(|e| crm_store::StoreError::new(format!("corrupt delivery {id}: {e}")))?;
        if delivery.status != records::PENDING {
            store.delete(&ns, &due_key)?;
            return Ok(None);
        }
        let unchanged = Condition::Equals(delivery_key.clone().into_bytes(), Some(stored));
        let endpoint = endpoints::read(store.as_ref(), &ns, &delivery.url)?;
        Ok(Some(Due { ns, due_key, due_value, delivery_key, delivery, unchanged, endpoint }))
    }

    /// Whether the attempt may leave now: not to a disabled endpoint (it is
    /// held there), and once its target's pace or order lets it (it sleeps
    /// for a short wait, and is put off for a longer one).
    async fn may_leave(&self, org: &str, due: &mut Due) -> StoreResult<bool> {
        let store = self.outbox.store();
        if due.endpoint.as_ref().is_some_and(|(e, _)| e.disabled_at.is_some()) {
            let hold = endpoints::holding(&mut due.delivery, &due.due_key);
            store.batch_if(&due.ns, vec![due.unchanged.clone()], hold)?;
            return Ok(false);
        }
        match self.wait(org, &due.ns, &due.delivery, &due.due_value)? {
            None => Ok(true),
            Some(Wait::Spaced { until }) => {
                tokio::time::sleep(Duration::from_millis(until.saturating_sub(now_millis()))).await;
                Ok(true)
            }
            Some(wait) => {
                let (mut conditions, ops) = departure::postponement(&due.delivery, &due.due_key, &wait);
                conditions.push(due.unchanged.clone());
                store.batch_if(&due.ns, conditions, ops)?;
                Ok(false)
            }
        }
    }

    /// Records an attempt's `outcome`: the delivery's new state and its next
    /// attempt, the endpoint's health (disabling it past its period), and in
    /// an ordered queue the next delivery its place.
    async fn record(&self, org: &str, due: Due, outcome: &Outcome) -> StoreResult<()> {
        let Due { ns, due_key, delivery_key, mut delivery, unchanged, endpoint, .. } = due;
        let now = clock::now();
        let mut ops = settled(&mut delivery, outcome, now, due_key);
        let bytes = serde_json::to_vec(&delivery).expect("records serialise");
        ops.push(BatchOp::Put(delivery_key.into_bytes(), bytes));
        let failure = match outcome {
            Outcome::Delivered(_) => None,
            Outcome::Gone => Some("410 Gone".to_string()),
            Outcome::Refused { status, .. } => Some(format!("answered {status}")),
            Outcome::Failed(why) => Some(why.clone()),
        };
        let read = endpoint.as_ref().map(|(e, _)| e);
        let (health, disabled) =
            endpoints::after_attempt(&delivery.url, read, failure.as_deref(), now, self.health.disable_after);
        match &disabled {
            Some(disabled) => self.disable(org, &ns, disabled, endpoint.map(|(_, bytes)| bytes), health)?,
            None => ops.extend(health),
        }
        let store = self.outbox.store();
        // Only if nobody changed the delivery meanwhile (a manual retry, a
        // purge); committed with other attempts' records and the requests'
        // batches where the store can: nobody waits on this one.
        if delivery.status == records::PENDING || delivery.queue.is_none() {
            store.batch_if_background(ns, vec![unchanged], ops).await?;
            return Ok(());
        }
        // Settled in its ordered queue: the next one's place comes with this
        // write (read again if the next one moved meanwhile).
        for _ in 0..3 {
            let (mut conditions, mut settle) = departure::settlement(store.as_ref(), &ns, &delivery, now_millis())?;
            conditions.push(unchanged.clone());
            settle.extend(ops.iter().cloned());
            if store.batch_if_background(ns.clone(), conditions, settle).await? {
                break;
            }
        }
        Ok(())
    }

    /// Disables an endpoint (stored as `read`) with `writes`, unless another
    /// attempt's outcome changed it meanwhile; the one that does tells the
    /// organization: a notification (through [`Health::on_disabled`]) and a
    /// `webhook.endpoint_disabled` event to its other endpoints.
    fn disable(
        &self,
        org: &str,
        ns: &Namespace,
        endpoint: &Endpoint,
        read: Option<Vec<u8>>,
        writes: Vec<BatchOp>,
    ) -> StoreResult<()> {
        let key = endpoints::key(&endpoint.url).into_bytes();
        if !self.outbox.store().batch_if(ns, vec![Condition::Equals(key, read)], writes)? {
            return Ok(());
        }
        let url = crate::webhook_url::for_logs(&endpoint.url);
        tracing::warn!(org, url, since = endpoint.failing_since, "webhook endpoint disabled");
        metrics::counter!("crm_webhook_endpoints_disabled_total").increment(1);
        let data = serde_json::json!({
            "url": endpoint.url,
            "failingSince": endpoint.failing_since,
            "disabledAt": endpoint.disabled_at,
            "lastError": endpoint.last_error,
        });
        self.outbox.announce(org, endpoints::ENDPOINT_DISABLED, &data, |t| t.url == endpoint.url)?;
        (self.health.on_disabled)(org, endpoint);
        Ok(())
    }

    /// Whether `delivery` (its due entry's value `due_value`) must wait:
    /// behind an earlier one of its ordered queue, or for its pace.
    fn wait(&self, org: &str, ns: &Namespace, delivery: &Delivery, due_value: &[u8]) -> StoreResult<Option<Wait>> {
        let now = now_millis();
        if let Some(wait) = departure::ordered_wait(self.outbox.store().as_ref(), ns, delivery, now)? {
            return Ok(Some(wait));
        }
        let Some(per_second) = delivery.max_per_second else { return Ok(None) };
        let given = due_value == records::PACED_SLOT;
        let slot = self.pace.take(org, &delivery.url, per_second, now, given);
        Ok(match (slot > now, given) {
            (false, _) => None,
            (true, true) => Some(Wait::Spaced { until: slot }),
            (true, false) => Some(Wait::Paced { until: slot }),
        })
    }

    /// Signs (with its organization's `secret`) and sends the delivery's
    /// event to its target.
    async fn send(&self, secret: &WebhookSecret, delivery: &Delivery) -> Outcome {
        let body = delivery.body.as_bytes().to_vec();
        let timestamp = clock::now().timestamp();
        let signature = sign::header_for(secret, &delivery.event_id, timestamp, &body);
        let attempt = Attempt {
            url: &delivery.url,
            headers: &delivery.headers,
            webhook_id: &delivery.event_id,
            timestamp,
            signature: &signature,
            body,
        };
        self.sender.send(attempt).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use std::future::Future;
    use std::pin::Pin;

    use crm_store::{KeyValue, SledStore};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;
    use crate::webhook_url::Policy;

    /// A receiver on loopback that answers every request with a redirect
    /// (a failed attempt, retried in 5 s) and counts them.
    async fn redirecting_receiver() -> (String, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let count = Arc::new(AtomicUsize::new(0));
        let counted = count.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                // The whole request: headers, then the two-byte body `{}`.
                while !request.ends_with(b"\r\n\r\n{}") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let answer =
                    "HTTP/1.1 302 Found\r\nlocation: /elsewhere\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
                let _ = socket.write_all(answer.as_bytes()).await;
            }
        });
        (url, count)
    }

    /// A store whose flushes end only at every `every` since `origin`, as a
    /// slow disk's group commit does: every attempt that waited on one
    /// flush is released at once.
    struct SlowFlush {
        inner: Arc<dyn crm_store::Store>,
        origin: Instant,
        every: Duration,
    }

    impl crm_store::Store for SlowFlush {
        fn get(&self, ns: &Namespace, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
            self.inner.get(ns, key)
        }
        fn put(&self, ns: &Namespace, key: &[u8], value: &[u8]) -> StoreResult<()> {
            self.inner.put(ns, key, value)
        }
        fn delete(&self, ns: &Namespace, key: &[u8]) -> StoreResult<()> {
            self.inner.delete(ns, key)
        }
        fn compare_and_swap(
            &self,
            ns: &Namespace,
            key: &[u8],
            expected: Option<&[u8]>,
            new: Option<&[u8]>,
        ) -> StoreResult<Result<(), crm_store::Conflict>> {
            self.inner.compare_and_swap(ns, key, expected, new)
        }
        fn scan(
            &self,
            ns: &Namespace,
            prefix: &[u8],
            start: Option<&[u8]>,
            limit: usize,
        ) -> StoreResult<Vec<KeyValue>> {
            self.inner.scan(ns, prefix, start, limit)
        }
        fn scan_reverse(
            &self,
            ns: &Namespace,
            prefix: &[u8],
            before: Option<&[u8]>,
            limit: usize,
        ) -> StoreResult<Vec<KeyValue>> {
            self.inner.scan_reverse(ns, prefix, before, limit)
        }
        fn find(&self, ns: &Namespace, prefix: &[u8], needle: &[u8], limit: usize) -> StoreResult<Vec<Vec<u8>>> {
            self.inner.find(ns, prefix, needle, limit)
        }
        fn count_found(&self, ns: &Namespace, prefix: &[u8], needle: &[u8]) -> StoreResult<u64> {
            self.inner.count_found(ns, prefix, needle)
        }
        fn batch(&self, ns: &Namespace, ops: Vec<BatchOp>) -> StoreResult<()> {
            self.inner.batch(ns, ops)
        }
        fn batch_if(&self, ns: &Namespace, conditions: Vec<Condition>, ops: Vec<BatchOp>) -> StoreResult<bool> {
            self.inner.batch_if(ns, conditions, ops)
        }
        fn combiner(&self) -> Option<&crm_store::combine::Combiner> {
            self.inner.combiner()
        }
        fn drop_namespace(&self, ns: &Namespace) -> StoreResult<()> {
            self.inner.drop_namespace(ns)
        }
        fn durable(&self) -> Pin<Box<dyn Future<Output = StoreResult<()>> + Send + '_>> {
            Box::pin(async move {
                self.inner.durable().await?;
                let flushes = self.origin.elapsed().as_micros() / self.every.as_micros() + 1;
                tokio::time::sleep_until((self.origin + self.every * flushes as u32).into()).await;
                Ok(())
            })
        }
    }

    /// A receiver on loopback, on a thread of its own, that answers every
    /// request 200 and stamps when each request's head arrived.
    fn stamping_receiver() -> (String, Arc<Mutex<Vec<Instant>>>) {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let arrivals = Arc::new(Mutex::new(Vec::new()));
        let stamped = arrivals.clone();
        std::thread::spawn(move || {
            for mut socket in listener.incoming().map_while(Result::ok) {
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                stamped.lock().unwrap().push(Instant::now());
                let answer = "HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
                let _ = socket.write_all(answer.as_bytes());
            }
        });
        (url, arrivals)
    }

    /// A delivery of `url` due at once, paced at `per_second`.
    fn paced(id: &str, url: &str, per_second: u32) -> Delivery {
        Delivery {
            id: id.into(),
            event_id: format!("e-{id}"),
            event_type: "contact.created".into(),
            subscription: "automations/a".into(),
            url: url.into(),
            headers: Vec::new(),
            status: records::PENDING.into(),
            attempts: 0,
            last_status_code: None,
            last_error: None,
            next_attempt_millis: Some(1),
            created_at: String::new(),
            updated_at: String::new(),
            body: "{}".into(),
            counted: false,
            max_per_second: Some(per_second),
            queue: None,
        }
    }

    /// The worker stalled on purpose: its flushes end only every two seconds,
    /// so the attempts of four slots wait on one flush and are released
    /// together. They still leave an interval apart: no second holds more
    /// than the pace (two) and one at its edge, where the attempts that one
    /// flush released would leave four at once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn attempts_one_slow_flush_releases_together_still_leave_at_the_pace() {
        const PACE: u32 = 2;
        const DELIVERIES: usize = 8;
        let dir = tempfile::tempdir().unwrap();
        let sled: Arc<dyn crm_store::Store> = Arc::new(SledStore::open(dir.path()).unwrap());
        let store: Arc<dyn crm_store::Store> =
            Arc::new(SlowFlush { inner: sled, origin: Instant::now(), every: Duration::from_secs(2) });
        let tenancy = Tenancy::new(store.clone());
        let org = tenancy.create_org("Acme".into(), "pro".into(), Default::default(), Default::default()).unwrap();
        let (url, arrivals) = stamping_receiver();
        let ns = Namespace::org(&org.id);
        for i in 0..DELIVERIES {
            let (id, record) = (format!("d{i}"), paced(&format!("d{i}"), &url, PACE));
            let record = serde_json::to_vec(&record).unwrap();
            let ops = vec![
                BatchOp::Put(records::delivery_key(&id).into_bytes(), record),
                BatchOp::Put(records::due_key(1, &id).into_bytes(), Vec::new()),
            ];
            store.batch(&ns, ops).unwrap();
        }
        let health = Health { disable_after: Health::DISABLE_AFTER, on_disabled: Arc::new(|_, _| {}) };
        let outbox = Outbox::new(store.clone(), Policy { allow_private: true });
        let running = Worker::start(outbox, tenancy, health, "h", false);
        let until = Instant::now() + Duration::from_secs(60);
        while arrivals.lock().unwrap().len() < DELIVERIES {
            assert!(Instant::now() < until, "{} of {DELIVERIES} arrived", arrivals.lock().unwrap().len());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        running.stop();
        let arrivals = arrivals.lock().unwrap().clone();
        let first = arrivals[0];
        let offsets: Vec<u128> = arrivals.iter().map(|a| a.duration_since(first).as_millis()).collect();
        eprintln!("arrivals (ms from the first): {offsets:?}");
        for (i, at) in arrivals.iter().enumerate() {
            let in_a_second =
                arrivals[i..].iter().take_while(|later| later.duration_since(*at) < Duration::from_secs(1));
            assert!(in_a_second.count() <= PACE as usize + 1, "a burst from arrival {i}: {offsets:?} ms");
        }
    }

    /// A due entry read by a scan that raced the previous attempt's commit
    /// announces an attempt already made: it must not send a second one.
    #[tokio::test]
    async fn a_due_entry_already_attempted_is_not_sent_again() {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn crm_store::Store> = Arc::new(SledStore::open(dir.path()).unwrap());
        let tenancy = Tenancy::new(store.clone());
        let org = tenancy.create_org("Acme".into(), "pro".into(), Default::default(), Default::default()).unwrap();
        let (url, received) = redirecting_receiver().await;
        let health = Health { disable_after: Health::DISABLE_AFTER, on_disabled: Arc::new(|_, _| {}) };
        let worker =
            Worker::new(Outbox::new(store.clone(), Policy { allow_private: true }), tenancy, health, "h", false);

        let (id, due) = ("d1", records::due_key(1, "d1"));
        let delivery = Delivery {
            id: id.into(),
            event_id: "e1".into(),
            event_type: "contact.created".into(),
            subscription: "automations/a".into(),
            url,
            headers: Vec::new(),
            status: records::PENDING.into(),
            attempts: 0,
            last_status_code: None,
            last_error: None,
            next_attempt_millis: Some(1),
            created_at: String::new(),
            updated_at: String::new(),
            body: "{}".into(),
            counted: false,
            max_per_second: None,
            queue: None,
        };
        let ns = Namespace::org(&org.id);
        let record = serde_json::to_vec(&delivery).unwrap();
        store
            .batch(
                &ns,
                vec![
                    BatchOp::Put(records::delivery_key(id).into_bytes(), record),
                    BatchOp::Put(due.clone().into_bytes(), Vec::new()),
                ],
            )
            .unwrap();

        worker.attempt(&org.id, id, due.clone().into_bytes()).await.unwrap();
        worker.attempt(&org.id, id, due.into_bytes()).await.unwrap();

        assert_eq!(received.load(Ordering::SeqCst), 1, "one attempt for one due entry");
        let stored = store.get(&ns, records::delivery_key(id).as_bytes()).unwrap().unwrap();
        let after: Delivery = serde_json::from_slice(&stored).unwrap();
        assert_eq!((after.status.as_str(), after.attempts, after.last_status_code), (records::PENDING, 1, Some(302)));
        let due_now = store.scan(&ns, records::DUE.as_bytes(), None, 10).unwrap();
        assert_eq!(due_now.len(), 1, "the next attempt is due under its own key");
    }
}
