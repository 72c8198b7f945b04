//! An edge host (`--store-read-url`): reads from a PostgreSQL hot standby
//! beside the host, writes through the primary a WAN away, and
//! read-your-writes over plain REST. `docs/operators.md`, "Hosts near your
//! customers", is the operator's side of it.
//!
//! - [`watch`]: how far behind the replica is, and whether each side answers;
//! - [`bookmark`]: `Crm-Bookmark`, and each credential's last write;
//! - [`credentials`]: tokens verified a moment ago, answered without a query;
//! - the replica's answers kept while it replays nothing new
//!   ([`ReadCache`], under the position [`watch`] last saw);
//! - [`forward`]: writes forwarded to a host beside the primary;
//! - this file: which side a request reads from.
//!
//! Which requests are writes is decided by method ([`only_reads`]): `POST`,
//! `PUT`, `PATCH` and `DELETE` are forwarded whole (the public form door
//! too), or without a write host served here on the primary alone. A `GET`
//! reads through [`Split`]: its reads from the side chosen for it, any
//! write it makes to the primary. The admin API and the background work
//! (deliveries, tracking, leases, sweeps) use the primary alone, so their
//! once-per-cluster guarantees are those of any host sharing the database.

pub mod bookmark;
pub mod credentials;
pub mod forward;
pub mod watch;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crm_store::Store;
use crm_store::read_cache::ReadCache;
use crm_store::split::Split;
use crm_store_postgres::PostgresStore;
use http::Method;

use quick_cache::sync::Cache;
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::fairness::form_rate::FormRate;
use crate::http::{ApiError, ApiRequest, Response};
use bookmark::RecentWrites;
use forward::Forwarder;
use watch::{Seen, Watch};

/// How long a read waits for the replica to reach the position it needs
/// before it reads the primary instead.
const CATCH_UP: Duration = Duration::from_millis(100);

/// The replica's answers an edge host keeps while the replica stands still
/// ([`ReadCache`]), at most.
const READ_CACHE_BYTES: u64 = 64 << 20;

/// How long a forwarded request may take: past every route's own deadline
/// (an import's is 3 minutes), only so that nothing waits forever; a cut
/// link ends a forward within a second ([`Edge::forward`]).
const FORWARD_AT_MOST: Duration = Duration::from_secs(600);

pub struct Edge {
    primary: Arc<dyn Store>,
    /// Reads from the replica, writes to the primary.
    replica: Arc<dyn Store>,
    watch: Arc<Watch>,
    max_staleness: Duration,
    recent: RecentWrites,
    forwarder: Option<Forwarder>,
    /// Tokens verified against the replica a moment ago, and tokens the
    /// primary did not know.
    pub credentials: credentials::Credentials,
    /// The public doors' calls counted here before one is forwarded.
    form_rate: FormRate,
    /// Public ids (a form's) the primary said nobody published, and when.
    unknown_public_ids: Cache<[u8; 32], Instant>,
    prefers: Prefers,
}

/// Which side a host reads first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefers {
    /// An edge host (`--store-read-url`): its standby beside it, while
    /// fresh enough.
    Replica,
    /// A host whose `--store-url` names standbys beside its primary (a
    /// failover manager's multi-host URL): the primary, and a standby only
    /// while no primary answers.
    Primary,
}

/// `/readyz`'s mode of an edge host, from which sides answer and whether
/// the replica is within the staleness bound.
fn edge_mode(primary: bool, replica: bool, fresh: bool) -> &'static str {
    match (primary, replica) {
        (true, true) if fresh => "edge",
        (true, true) => "edge-replica-behind",
        (true, false) => "edge-primary-only",
        (false, true) => "edge-read-only",
        (false, false) => "edge-unavailable",
    }
}

/// Public ids the primary did not know, kept at most, and for how long:
/// a form made a moment ago is found once the replica holds it.
const UNKNOWN_IDS_KEPT: usize = 10_000;
const UNKNOWN_IDS_FOR: Duration = Duration::from_secs(10);

fn public_id_key(module: &str, id: &str) -> [u8; 32] {
    Sha256::digest(format!("{module}\n{id}").as_bytes()).into()
}

/// Which side a request reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Replica,
    Primary,
}

/// Whether a request of this method only reads, and so may be served from
/// the replica. Any other is a write: forwarded, or without a write host
/// served here reading the primary, so that what it reads to decide is
/// what it writes against.
pub fn only_reads(method: &Method) -> bool {
    [Method::GET, Method::HEAD, Method::OPTIONS].contains(method)
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Replica => "replica",
            Side::Primary => "primary",
        }
    }
}

/// Where one request reads, chosen on its head.
#[derive(Clone)]
pub struct Reading {
    pub store: Arc<dyn Store>,
    pub side: Side,
    /// At least as fresh as this: the answer's `Crm-Bookmark`.
    pub position: u64,
    /// Set when the primary cannot be reached and the replica is read
    /// whatever its staleness: how far behind it may be (`Crm-Staleness-Ms`).
    pub staleness: Option<Duration>,
}

impl Edge {
    /// Starts watching both sides of the store.
    pub fn start(config: &Config, primary: Arc<PostgresStore>, replica: Arc<PostgresStore>, prefers: Prefers) -> Edge {
        let watch = Watch::start(primary.clone(), replica.clone());
        let max_staleness = Duration::from_millis(config.edge.max_staleness_ms);
        let primary: Arc<dyn Store> = primary;
        let watching = watch.clone();
        let known = Box::new(move || watching.seen().replica_position);
        let replica = Arc::new(ReadCache::new(replica, known, READ_CACHE_BYTES));
        Edge {
            replica: Arc::new(Split::new(replica, primary.clone())),
            primary,
            watch,
            max_staleness,
            recent: RecentWrites::new(max_staleness),
            forwarder: (!config.edge.write_host_url.is_empty()).then(|| {
                Forwarder::new(config.edge.write_host_url.clone(), FORWARD_AT_MOST, config.jobs.http_proxy_from_env)
            }),
            credentials: Default::default(),
            form_rate: FormRate::new(config.limits.form_rate_per_minute, false),
            unknown_public_ids: Cache::new(UNKNOWN_IDS_KEPT),
            prefers,
        }
    }

    /// Whether the primary answered the watch a moment ago: a write sent
    /// now can reach it.
    pub fn primary_up(&self) -> bool {
        self.watch.seen().primary_up()
    }

    /// Where a request's caller is checked, at once: the replica when it
    /// may be read (fresh enough, or the primary lost), else the primary.
    /// No bookmark is waited on before the caller is known
    /// ([`Edge::reading_after`] waits, for a read of a known caller).
    pub fn checking(&self) -> Reading {
        let seen = self.watch.seen();
        if self.prefers == Prefers::Primary {
            return self.primary_or_standby(&seen, 0);
        }
        match (seen.replica_up(), seen.primary_up()) {
            (true, false) => self.on_replica(&seen, 0),
            (true, true) if self.fresh_enough(&seen) => self.on_replica(&seen, 0),
            _ => self.on_primary(0),
        }
    }

    /// Where a read reads once its caller was checked on `checked`: on the
    /// primary when the caller was found there (a token made a moment ago)
    /// or the replica could not be read, else as [`Edge::reading`] decides
    /// (after waiting for the replica to reach what the request must see).
    pub fn reading_after(&self, req: &ApiRequest, checked: &Reading) -> Result<Reading, ApiError> {
        match checked.side {
            Side::Primary => Ok(self.on_primary(self.needed(req)?)),
            Side::Replica => self.reading(req),
        }
    }

    /// The local count of a public door's calls ([`FormRate`] in memory):
    /// this host sees some of the calls its write host counts for the whole
    /// cluster, so a call refused here would be refused there too, and a
    /// client over its rate costs no forward.
    pub fn form_rate(&self) -> &FormRate {
        &self.form_rate
    }

    /// Whether the primary said a moment ago that no organization published
    /// this public id (`module` and `id` of a token-less route).
    pub fn public_id_unknown(&self, module: &str, id: &str) -> bool {
        self.unknown_public_ids.get(&public_id_key(module, id)).is_some_and(|at| at.elapsed() < UNKNOWN_IDS_FOR)
    }

    /// Keeps the primary's word that nobody published this public id.
    pub fn remember_unknown_public_id(&self, module: &str, id: &str) {
        self.unknown_public_ids.insert(public_id_key(module, id), Instant::now());
    }

    /// The replica itself, for what a request checks on its head (the
    /// organization a public id names).
    pub fn replica(&self) -> &Arc<dyn Store> {
        &self.replica
    }

    /// The primary, for what the replica may not hold yet.
    pub fn primary(&self) -> &Arc<dyn Store> {
        &self.primary
    }

    /// Whether this request is forwarded to the write host.
    pub fn forwards(&self, method: &Method) -> bool {
        self.forwarder.is_some() && !only_reads(method)
    }

    /// Forwards a write, unless the primary is known not to answer; the
    /// forward is abandoned as soon as it stops answering.
    pub async fn forward(&self, req: &ApiRequest) -> Response {
        let Some(forwarder) = &self.forwarder else { return ApiError::internal().into_response() };
        if !self.watch.seen().primary_up() {
            return ApiError::store_unavailable("the primary database does not answer").into_response();
        }
        let lost = async {
            loop {
                tokio::time::sleep(Duration::from_millis(100)).await;
                if !self.watch.seen().primary_up() {
                    return;
                }
            }
        };
        let answer = tokio::select! {
            answer = forwarder.forward(req) => answer,
            () = lost => Err(ApiError::store_unavailable("the primary database stopped answering")),
        };
        match answer {
            Ok(response) => {
                if let Some(position) = bookmark::carried(&response) {
                    self.recent.record(bookmark::credential(req), position);
                }
                response
            }
            Err(e) => e.into_response(),
        }
    }

    /// Remembers a write this host served itself (without a write host) for
    /// its credential, as a forwarded one is.
    pub fn remember_write(&self, credential: [u8; 32], position: u64) {
        self.recent.record(credential, position);
    }

    /// Where a read request reads: the replica when it is fresh enough (or
    /// the primary cannot be reached) and holds what the request must see
    /// (its bookmark, its credential's last write here), after waiting up
    /// to [`CATCH_UP`] for it; else the primary. May block for that wait.
    pub fn reading(&self, req: &ApiRequest) -> Result<Reading, ApiError> {
        let needed = self.needed(req)?;
        let seen = self.watch.seen();
        if self.prefers == Prefers::Primary {
            return Ok(self.primary_or_standby(&seen, needed));
        }
        let side = match (seen.replica_up(), seen.primary_up()) {
            (false, _) => Side::Primary,
            (true, false) => Side::Replica,
            (true, true) if !self.fresh_enough(&seen) => Side::Primary,
            (true, true) => match self.replica_reaches(needed, seen.replica_position) {
                true => Side::Replica,
                false => Side::Primary,
            },
        };
        Ok(match side {
            Side::Replica => self.on_replica(&self.watch.seen(), needed),
            Side::Primary => self.on_primary(needed),
        })
    }

    /// A host that prefers its primary: the primary while it answers, the
    /// standby (saying how stale) while it does not.
    fn primary_or_standby(&self, seen: &Seen, needed: u64) -> Reading {
        match (seen.primary_up(), seen.replica_up()) {
            (false, true) => self.on_replica(seen, needed),
            _ => self.on_primary(needed),
        }
    }

    /// How fresh a request's read must be: its bookmark, and its
    /// credential's last write through this host.
    fn needed(&self, req: &ApiRequest) -> Result<u64, ApiError> {
        let sent = bookmark::sent(req)?;
        Ok(sent.max(self.recent.of(&bookmark::credential(req))).unwrap_or(0))
    }

    /// A read on the replica, at least as fresh as `needed`, with its
    /// staleness when the primary cannot be reached.
    fn on_replica(&self, seen: &Seen, needed: u64) -> Reading {
        Reading {
            store: self.replica.clone(),
            side: Side::Replica,
            position: needed.max(seen.replica_position),
            staleness: (!seen.primary_up()).then(|| seen.staleness().unwrap_or(Duration::MAX)),
        }
    }

    /// Puts on a read's answer how fresh it is (`Crm-Bookmark`, and while
    /// the primary cannot be reached `Crm-Staleness-Ms`), and counts it.
    pub fn stamp(reading: &Reading, response: &mut Response) {
        metrics::counter!("crm_store_reads_total", "side" => reading.side.name()).increment(1);
        bookmark::stamp(response, reading.position);
        if let Some(staleness) = reading.staleness {
            let ms = u64::try_from(staleness.as_millis()).unwrap_or(u64::MAX).to_string();
            let value = http::HeaderValue::from_str(&ms).expect("digits are a header value");
            response.headers.push((http::HeaderName::from_static("crm-staleness-ms"), value));
        }
    }

    /// `reading` moved to the primary (a token the replica does not know yet).
    pub fn reading_primary(&self, reading: &Reading) -> Reading {
        self.on_primary(reading.position)
    }

    /// A read on the primary, at least as fresh as `needed` (and as this
    /// host's own last flush).
    fn on_primary(&self, needed: u64) -> Reading {
        Reading {
            store: self.primary.clone(),
            side: Side::Primary,
            position: needed.max(self.primary.position().unwrap_or(0)),
            staleness: None,
        }
    }

    fn fresh_enough(&self, seen: &Seen) -> bool {
        seen.staleness().is_some_and(|behind| behind <= self.max_staleness)
    }

    /// Whether the replica reaches `needed`, asking it again (a local round
    /// trip) until it does or [`CATCH_UP`] has passed.
    fn replica_reaches(&self, needed: u64, last_seen: u64) -> bool {
        if last_seen >= needed {
            return true;
        }
        let until = Instant::now() + CATCH_UP;
        let wait = || loop {
            if self.watch.replica_position_now().is_some_and(|position| position >= needed) {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        // The wait blocks its thread: a runtime's worker hands its other tasks on first.
        match tokio::runtime::Handle::try_current() {
            Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(wait)
            }
            _ => wait(),
        }
    }

    /// What `/readyz` says of the store, and whether either side answers
    /// (when neither does, nothing can be served).
    pub fn state(&self) -> (serde_json::Value, bool) {
        let seen = self.watch.seen();
        let up = |up: bool| if up { "up" } else { "down" };
        let mode = match (self.prefers, seen.primary_up(), seen.replica_up()) {
            (Prefers::Primary, true, _) => "primary",
            (Prefers::Primary, false, true) => "no-primary-reading-standby",
            (Prefers::Primary, false, false) => "no-primary",
            (Prefers::Replica, primary, replica) => edge_mode(primary, replica, self.fresh_enough(&seen)),
        };
        let state = serde_json::json!({
            "mode": mode,
            "primary": up(seen.primary_up()),
            "replica": up(seen.replica_up()),
            "stalenessMs": seen.staleness().map(|s| s.as_millis() as u64),
            "maxStalenessMs": self.max_staleness.as_millis() as u64,
        });
        (state, seen.primary_up() || seen.replica_up())
    }
}
