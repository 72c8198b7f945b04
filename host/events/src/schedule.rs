//! When a failed delivery is tried again: the Standard Webhooks schedule
//! (at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h
//! after each failure: about three days), each wait stretched by up to 10 %
//! at random so that a receiver coming back is not hit by every retry at once.

use std::time::Duration;

/// The waits after the 1st, 2nd, ... failed attempt; after the last, failed.
const WAITS_SECS: &[u64] = &[5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 14 * 3600, 20 * 3600, 24 * 3600];
/// The longest `Retry-After` honoured.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(24 * 3600);

/// Attempts a delivery gets in all.
pub const MAX_ATTEMPTS: u32 = WAITS_SECS.len() as u32 + 1;

/// What happened to one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A 2xx.
    Delivered(u16),
    /// 410 Gone: the receiver asks for no more.
    Gone,
    /// Any other status (a redirect included); with a 429's `Retry-After`.
    Refused { status: u16, retry_after: Option<Duration> },
    /// No status: timeout, connection failure, or an address not allowed.
    Failed(String),
}

/// How long to wait after `attempts` failed attempts, or `None` when the
/// delivery has had them all. `jitter` is in `0.0..1.0`.
pub fn next_wait(attempts: u32, outcome: &Outcome, jitter: f64) -> Option<Duration> {
    if matches!(outcome, Outcome::Gone | Outcome::Delivered(_)) || attempts >= MAX_ATTEMPTS {
        return None;
    }
    if let Outcome::Refused { retry_after: Some(wait), .. } = outcome {
        return Some((*wait).clamp(Duration::from_secs(1), MAX_RETRY_AFTER));
    }
    let base = Duration::from_secs(*WAITS_SECS.get((attempts.max(1) - 1) as usize)?);
    Some(base.mul_f64(1.0 + 0.1 * jitter.clamp(0.0, 1.0)))
}

/// A random number in `0.0..1.0` for [`next_wait`].
pub fn jitter() -> f64 {
    let mut bytes = [0u8; 4];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    u32::from_le_bytes(bytes) as f64 / (u32::MAX as f64 + 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ERROR: Outcome = Outcome::Refused { status: 500, retry_after: None };

    #[test]
    fn the_schedule_spans_about_three_days_then_stops() {
        let total: Duration = (1..MAX_ATTEMPTS).map(|n| next_wait(n, &ERROR, 0.0).unwrap()).sum();
        assert_eq!(total.as_secs(), 5 + 300 + 1800 + 3600 * (2 + 5 + 10 + 14 + 20 + 24));
        assert_eq!(next_wait(1, &ERROR, 0.0), Some(Duration::from_secs(5)));
        assert_eq!(next_wait(MAX_ATTEMPTS, &ERROR, 0.0), None);
    }

    #[test]
    fn jitter_stretches_by_at_most_a_tenth() {
        let wait = next_wait(2, &ERROR, 0.999).unwrap();
        assert!(wait >= Duration::from_secs(300) && wait < Duration::from_secs(330), "{wait:?}");
    }

    #[test]
    fn gone_stops_and_retry_after_is_honoured_within_bounds() {
        assert_eq!(next_wait(1, &Outcome::Gone, 0.0), None);
        let busy = |secs| Outcome::Refused { status: 429, retry_after: Some(Duration::from_secs(secs)) };
        assert_eq!(next_wait(1, &busy(120), 0.0), Some(Duration::from_secs(120)));
        assert_eq!(next_wait(1, &busy(0), 0.0), Some(Duration::from_secs(1)));
        assert_eq!(next_wait(1, &busy(10 * 86400), 0.0), Some(MAX_RETRY_AFTER));
    }
}
