//! How far behind its primary an edge host's replica is, and whether each
//! side answers: a thread for each side, asking every 100 ms (over a
//! connection of its own, `PostgresStore::log_position`, so that a busy
//! pool never looks like a lost primary).
//!
//! Staleness is measured against the primary's own log, never against the
//! clock of a commit: each probe of the primary records when it was sent
//! and the log position the primary had flushed to; once the replica has
//! replayed to that position, it holds everything committed before the
//! probe was sent. The replica is then at most `now - sent` behind. While
//! the primary does not answer, no newer probe exists, so the bound only
//! grows: what a client told "at most N ms behind" can rely on.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crm_store_postgres::PostgresStore;

/// How often each side is asked.
const EVERY: Duration = Duration::from_millis(100);
/// How long one question may take before its side counts as not answering.
const PATIENCE: Duration = Duration::from_millis(500);
/// A side that has not answered for this long is down.
pub const DOWN_AFTER: Duration = Duration::from_millis(1000);

/// Probes kept while the replica is behind (five minutes of them); older
/// ones are let go, which can only make the bound looser.
const MAX_PROBES: usize = 3000;

/// What the watch knows, as of its last round.
#[derive(Debug, Clone, Copy)]
pub struct Seen {
    /// The replica's replayed log position.
    pub replica_position: u64,
    /// When the newest probe of the primary that the replica has reached
    /// was sent; `None` before the first.
    pub replica_holds_since: Option<Instant>,
    pub primary_answered: Option<Instant>,
    pub replica_answered: Option<Instant>,
}

impl Seen {
    /// How far behind the primary the replica may be now; `None`: unknown.
    pub fn staleness(&self) -> Option<Duration> {
        self.replica_holds_since.map(|since| since.elapsed())
    }

    pub fn primary_up(&self) -> bool {
        self.primary_answered.is_some_and(|at| at.elapsed() < DOWN_AFTER)
    }

    /// The replica answered, at `position` (positions only grow).
    fn replica_at(&mut self, position: u64) {
        self.replica_position = self.replica_position.max(position);
        self.replica_answered = Some(Instant::now());
    }

    pub fn replica_up(&self) -> bool {
        self.replica_answered.is_some_and(|at| at.elapsed() < DOWN_AFTER)
    }
}

pub struct Watch {
    state: Mutex<State>,
    replica: Arc<PostgresStore>,
}

/// What the watch knows, and the primary's probes the replica has not reached.
struct State {
    seen: Seen,
    probes: VecDeque<(Instant, u64)>,
}

impl State {
    /// The newest probe the replica has reached, and none older kept.
    fn settle(&mut self) {
        while let Some(&(sent, position)) = self.probes.front() {
            if position > self.seen.replica_position {
                break;
            }
            self.seen.replica_holds_since = Some(sent);
            self.probes.pop_front();
        }
        if let Some(staleness) = self.seen.staleness() {
            metrics::gauge!("crm_store_replica_lag_seconds").set(staleness.as_secs_f64());
        }
    }
}

impl Watch {
    /// Starts watching, each side on a thread of its own (a side that does
    /// not answer must not make the other look silent too); the first round
    /// of each is done before this returns.
    pub fn start(primary: Arc<PostgresStore>, replica: Arc<PostgresStore>) -> Arc<Watch> {
        let seen =
            Seen { replica_position: 0, replica_holds_since: None, primary_answered: None, replica_answered: None };
        let watch = Arc::new(Watch { state: Mutex::new(State { seen, probes: VecDeque::new() }), replica });
        watch.probe_primary(&primary);
        watch.probe_replica();
        let watching = watch.clone();
        std::thread::Builder::new()
            .name("crm-primary-watch".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(EVERY);
                    watching.probe_primary(&primary);
                }
            })
            .expect("start the primary's watch");
        let watching = watch.clone();
        std::thread::Builder::new()
            .name("crm-replica-watch".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(EVERY);
                    watching.probe_replica();
                }
            })
            .expect("start the replica's watch");
        watch
    }

    pub fn seen(&self) -> Seen {
        self.state.lock().expect("watch lock").seen
    }

    /// The replica's position asked now (a local round trip), for a request
    /// that needs a newer one than the watch last saw; the answer is kept.
    pub fn replica_position_now(&self) -> Option<u64> {
        let position = self.replica.log_position(PATIENCE).ok()?;
        let mut state = self.state.lock().expect("watch lock");
        state.seen.replica_at(position);
        state.settle();
        Some(position)
    }

    /// A probe of the primary: where its log is flushed to, and when asked.
    fn probe_primary(&self, primary: &PostgresStore) {
        let sent = Instant::now();
        let Ok(position) = primary.primary_log_position(PATIENCE) else { return };
        let mut state = self.state.lock().expect("watch lock");
        if state.probes.len() == MAX_PROBES {
            state.probes.pop_front();
        }
        state.probes.push_back((sent, position));
        state.seen.primary_answered = Some(Instant::now());
        state.settle();
    }

    fn probe_replica(&self) {
        let _ = self.replica_position_now();
    }
}
