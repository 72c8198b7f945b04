//! How far behind its primary an edge host's replica is, and whether each
//! side answers: a thread that asks both every 100 ms.
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
    seen: Mutex<Seen>,
    replica: Arc<PostgresStore>,
}

impl Watch {
    /// Starts watching; the first round is done before this returns.
    pub fn start(primary: Arc<PostgresStore>, replica: Arc<PostgresStore>) -> Arc<Watch> {
        let seen =
            Seen { replica_position: 0, replica_holds_since: None, primary_answered: None, replica_answered: None };
        let watch = Arc::new(Watch { seen: Mutex::new(seen), replica });
        let mut probes = VecDeque::new();
        watch.round(&primary, &mut probes);
        let watching = watch.clone();
        std::thread::Builder::new()
            .name("crm-replica-watch".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(EVERY);
                    watching.round(&primary, &mut probes);
                }
            })
            .expect("start the replica watch");
        watch
    }

    pub fn seen(&self) -> Seen {
        *self.seen.lock().expect("watch lock")
    }

    /// The replica's position asked now (a local round trip), for a request
    /// that needs a newer one than the watch last saw; the answer is kept.
    pub fn replica_position_now(&self) -> Option<u64> {
        let position = self.replica.log_position(PATIENCE).ok()?;
        self.seen.lock().expect("watch lock").replica_at(position);
        Some(position)
    }

    /// One round: a probe of the primary, then the replica's position.
    fn round(&self, primary: &PostgresStore, probes: &mut VecDeque<(Instant, u64)>) {
        let sent = Instant::now();
        let primary_position = primary.log_position(PATIENCE).ok();
        let replica_position = self.replica.log_position(PATIENCE).ok();
        let mut seen = self.seen.lock().expect("watch lock");
        if let Some(position) = primary_position {
            if probes.len() == MAX_PROBES {
                probes.pop_front();
            }
            probes.push_back((sent, position));
            seen.primary_answered = Some(Instant::now());
        }
        if let Some(position) = replica_position {
            seen.replica_at(position);
        }
        // The newest probe the replica has reached, and none older kept.
        while let Some(&(sent, position)) = probes.front() {
            if position > seen.replica_position {
                break;
            }
            seen.replica_holds_since = Some(sent);
            probes.pop_front();
        }
        if let Some(staleness) = seen.staleness() {
            metrics::gauge!("crm_store_replica_lag_seconds").set(staleness.as_secs_f64());
        }
    }
}
