//! Which failures are worth another attempt, and how many attempts a call gets.
//!
//! A serialization failure (`40001`, what every engine answers when two
//! transactions collide) or a deadlock (`40P01`) rolled the transaction back:
//! repeating it is always safe. A connection lost mid-call may or may not have
//! committed: only calls whose repetition changes nothing (reads, puts,
//! deletes, batches without counters) are repeated then.
//!
//! A failure that says no primary answers ([`Failure::unreachable`]: no
//! connection could be made to a server that takes writes, one was lost, a
//! server shutting down or in recovery, `25006` from a server that became
//! read-only) is tried again for at most [`UNREACHABLE_FOR`], so that a
//! client waits no longer than that for its 503 while a standby is promoted.
//! A `25006` also retires every connection made before it ([`retired`]): the
//! servers behind the URL changed roles, and a connection that lands on one
//! that no longer takes writes must not be handed out again.

use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio_postgres::error::SqlState;

/// Whether a call may run twice.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// Twice is the same as once.
    Safe,
    /// It adds a counter or checks conditions: only a call known to have
    /// rolled back is repeated.
    OnlyIfRolledBack,
}

/// Why a call failed.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) message: String,
    outcome: Outcome,
    /// No primary answered: the store is unavailable, not broken.
    pub(crate) unreachable: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Nothing was applied (a collision, a deadlock, no connection to be had).
    RolledBack,
    /// The connection went away: the call may have been applied.
    Unknown,
    /// A fault retrying will not cure.
    Final,
}

impl Failure {
    /// A compare-and-swap that lost to a change undone before it looked:
    /// nothing was written, so it runs again.
    pub(crate) fn raced() -> Failure {
        Failure {
            message: "the value changed while it was compared".into(),
            outcome: Outcome::RolledBack,
            unreachable: false,
        }
    }

    pub(crate) fn final_(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), outcome: Outcome::Final, unreachable: false }
    }

    /// A server that did not answer in time: it cannot be reached now.
    pub(crate) fn unanswered(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), outcome: Outcome::Final, unreachable: true }
    }

    /// As the store's callers see it: unavailable when no primary answered.
    pub(crate) fn into_store_error(self) -> crm_store::StoreError {
        let message = format!("PostgreSQL: {}", self.message);
        match self.unreachable {
            true => crm_store::StoreError::unavailable(message),
            false => crm_store::StoreError::new(message),
        }
    }

    fn worth_retrying(&self, repeat: Repeat) -> bool {
        match self.outcome {
            Outcome::RolledBack => true,
            Outcome::Unknown => repeat == Repeat::Safe,
            Outcome::Final => false,
        }
    }
}

impl From<tokio_postgres::Error> for Failure {
    fn from(e: tokio_postgres::Error) -> Failure {
        let (outcome, unreachable) = match e.code() {
            Some(code) if *code == SqlState::T_R_SERIALIZATION_FAILURE || *code == SqlState::T_R_DEADLOCK_DETECTED => {
                (Outcome::RolledBack, false)
            }
            // A server that no longer takes writes refused the statement:
            // nothing was applied, and the next connection may reach the
            // new primary.
            Some(code) if *code == SqlState::READ_ONLY_SQL_TRANSACTION => {
                retire_connections();
                (Outcome::RolledBack, true)
            }
            // Class 08 is "connection exception"; 57P01 an administrator's
            // shutdown, 57P02 a crash's, 57P03 a server not accepting
            // connections yet (starting, in recovery); CockroachDB's 40003
            // "statement completion unknown".
            Some(code)
                if code.code().starts_with("08")
                    || *code == SqlState::ADMIN_SHUTDOWN
                    || *code == SqlState::CRASH_SHUTDOWN
                    || *code == SqlState::CANNOT_CONNECT_NOW =>
            {
                (Outcome::Unknown, true)
            }
            Some(code) if *code == SqlState::T_R_STATEMENT_COMPLETION_UNKNOWN => (Outcome::Unknown, false),
            Some(_) => (Outcome::Final, false),
            // No SQLSTATE: the connection closed, or an I/O error on the socket.
            None => (Outcome::Unknown, true),
        };
        let message = match e.as_db_error() {
            Some(db) => format!("{} ({})", db.message(), db.code().code()),
            None => with_causes(&e),
        };
        Failure { message, outcome, unreachable }
    }
}

impl From<deadpool_postgres::PoolError> for Failure {
    /// No connection was handed out, so nothing was sent: a failed connect
    /// is worth another try, a pool still full after its wait is not.
    fn from(e: deadpool_postgres::PoolError) -> Failure {
        // A connection that could not be made (every server refused, or
        // none takes writes: a failover) or made in time is no primary
        // answering; a pool still full after its wait is load.
        let (outcome, unreachable) = match e {
            deadpool_postgres::PoolError::Backend(_) => (Outcome::RolledBack, true),
            deadpool_postgres::PoolError::Timeout(deadpool_postgres::TimeoutType::Create) => {
                (Outcome::RolledBack, true)
            }
            _ => (Outcome::Final, false),
        };
        Failure { message: format!("no database connection: {}", with_causes(&e)), outcome, unreachable }
    }
}

/// An error with what caused it, down to the first cause: "error performing
/// TLS handshake" alone does not say that the certificate was not trusted.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !message.ends_with(&text) {
            message = format!("{message}: {text}");
        }
        cause = c.source();
    }
    message
}

/// Attempts per call. Collisions on one hot row (an organization's contact
/// count) are settled by the engine one winner at a time, so a call may lose
/// several rounds under load.
const ATTEMPTS: u32 = 40;
/// No attempt starts after this long: the call is answered (500) instead.
const GIVE_UP_AFTER: Duration = Duration::from_secs(10);
/// No attempt starts after this long while no primary answers: the call is
/// answered (503) instead.
pub(crate) const UNREACHABLE_FOR: Duration = Duration::from_millis(1500);

/// Runs `attempt` until it succeeds, fails for good, or runs out of attempts,
/// backing off (with jitter) between attempts.
pub(crate) async fn run<T, F, Fut>(what: &str, repeat: Repeat, mut attempt: F) -> Result<T, Failure>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Failure>>,
{
    let (mut tries, started) = (0, std::time::Instant::now());
    loop {
        tries += 1;
        match attempt().await {
            Ok(value) => return Ok(value),
            Err(failure)
                if tries < ATTEMPTS
                    && started.elapsed() < if failure.unreachable { UNREACHABLE_FOR } else { GIVE_UP_AFTER }
                    && failure.worth_retrying(repeat) =>
            {
                tracing::debug!(what, tries, error = %failure.message, "retrying a store call");
                tokio::time::sleep(backoff(tries)).await;
            }
            Err(failure) => return Err(failure),
        }
    }
}

/// When the last `25006` was seen: connections made before it are retired
/// ([`retired`]).
static RETIRE_BEFORE: Mutex<Option<Instant>> = Mutex::new(None);

fn retire_connections() {
    *RETIRE_BEFORE.lock().expect("retire lock") = Some(Instant::now());
}

/// Whether a pooled connection made at `created` is to be dropped rather
/// than handed out: it was made before a server answered that it no longer
/// takes writes. Checked by the pool's `post_recycle` hook (`store.rs`).
pub(crate) fn retired(created: Instant) -> bool {
    RETIRE_BEFORE.lock().expect("retire lock").is_some_and(|before| created < before)
}

/// 1 ms doubling to 64 ms, each with up to as much again of jitter.
fn backoff(tries: u32) -> Duration {
    let base = 1u64 << tries.min(6);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    Duration::from_micros(base * 1000 + u64::from(nanos) % (base * 1000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_connection_is_retried_only_for_calls_safe_to_repeat() {
        let lost = Failure { message: "closed".into(), outcome: Outcome::Unknown, unreachable: true };
        assert!(lost.worth_retrying(Repeat::Safe));
        assert!(!lost.worth_retrying(Repeat::OnlyIfRolledBack));
        let collided = Failure { message: "40001".into(), outcome: Outcome::RolledBack, unreachable: false };
        assert!(collided.worth_retrying(Repeat::OnlyIfRolledBack));
        assert!(!Failure::final_("syntax").worth_retrying(Repeat::Safe));
    }

    #[test]
    fn a_failure_reaching_no_primary_is_an_unavailable_store_and_gives_up_sooner() {
        let lost = Failure { message: "closed".into(), outcome: Outcome::Unknown, unreachable: true };
        assert!(lost.into_store_error().is_unavailable());
        assert!(!Failure::final_("syntax").into_store_error().is_unavailable());
        assert!(UNREACHABLE_FOR < Duration::from_secs(2), "a client's 503 within two seconds");
    }

    #[test]
    fn a_server_turned_read_only_retires_the_connections_made_before_it() {
        let before = Instant::now();
        std::thread::sleep(Duration::from_millis(2));
        retire_connections();
        assert!(retired(before));
        assert!(!retired(Instant::now()), "connections made after it are kept");
    }

    #[test]
    fn backoff_grows_and_is_bounded() {
        assert!(backoff(1) >= Duration::from_millis(2) && backoff(1) < Duration::from_millis(4));
        assert!(backoff(30) < Duration::from_millis(128));
    }
}
