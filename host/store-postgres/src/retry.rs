//! Which failures are worth another attempt, and how many attempts a call gets.
//!
//! A serialization failure (`40001`, what every engine answers when two
//! transactions collide) or a deadlock (`40P01`) rolled the transaction back:
//! repeating it is always safe. A connection lost mid-call may or may not have
//! committed: only calls whose repetition changes nothing (reads, puts,
//! deletes, batches without counters) are repeated then.

use std::future::Future;
use std::time::Duration;

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
        Failure { message: "the value changed while it was compared".into(), outcome: Outcome::RolledBack }
    }

    pub(crate) fn final_(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), outcome: Outcome::Final }
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
        let outcome = match e.code() {
            Some(code) if *code == SqlState::T_R_SERIALIZATION_FAILURE || *code == SqlState::T_R_DEADLOCK_DETECTED => {
                Outcome::RolledBack
            }
            // Class 08 is "connection exception"; 57P01 an administrator's
            // shutdown; CockroachDB's 40003 "statement completion unknown".
            Some(code)
                if code.code().starts_with("08")
                    || *code == SqlState::ADMIN_SHUTDOWN
                    || *code == SqlState::T_R_STATEMENT_COMPLETION_UNKNOWN =>
            {
                Outcome::Unknown
            }
            Some(_) => Outcome::Final,
            None if e.is_closed() => Outcome::Unknown,
            // No SQLSTATE: an I/O error on the socket.
            None => Outcome::Unknown,
        };
        let message = match e.as_db_error() {
            Some(db) => format!("{} ({})", db.message(), db.code().code()),
            None => with_causes(&e),
        };
        Failure { message, outcome }
    }
}

impl From<deadpool_postgres::PoolError> for Failure {
    /// No connection was handed out, so nothing was sent: a failed connect
    /// is worth another try, a pool still full after its wait is not.
    fn from(e: deadpool_postgres::PoolError) -> Failure {
        let outcome = match e {
            deadpool_postgres::PoolError::Backend(_) => Outcome::RolledBack,
            _ => Outcome::Final,
        };
        Failure { message: format!("no database connection: {}", with_causes(&e)), outcome }
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
            Err(failure) if tries < ATTEMPTS && started.elapsed() < GIVE_UP_AFTER && failure.worth_retrying(repeat) => {
                tracing::debug!(what, tries, error = %failure.message, "retrying a store call");
                tokio::time::sleep(backoff(tries)).await;
            }
            Err(failure) => return Err(failure),
        }
    }
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
        let lost = Failure { message: "closed".into(), outcome: Outcome::Unknown };
        assert!(lost.worth_retrying(Repeat::Safe));
        assert!(!lost.worth_retrying(Repeat::OnlyIfRolledBack));
        let collided = Failure { message: "40001".into(), outcome: Outcome::RolledBack };
        assert!(collided.worth_retrying(Repeat::OnlyIfRolledBack));
        assert!(!Failure::final_("syntax").worth_retrying(Repeat::Safe));
    }

    #[test]
    fn backoff_grows_and_is_bounded() {
        assert!(backoff(1) >= Duration::from_millis(2) && backoff(1) < Duration::from_millis(4));
        assert!(backoff(30) < Duration::from_millis(128));
    }
}
