//! The token-less routes' rate limit: at most `CRM_FORM_RATE_PER_MINUTE` calls a
//! minute per public id (a form) and client (an IPv4 address, an IPv6 /64:
//! [`counted_as`]), answered 429 `RATE_LIMITED` with `Retry-After` past it.
//!
//! - One host (the embedded store): a token bucket in memory per id and
//!   address (governor's GCRA: smooth, no burst at a minute's edge).
//! - Many hosts on one database: a counter per id, address and minute in the
//!   organization's namespace, added to only below the limit in one
//!   conditional write, so every host counts the same calls. Counters of
//!   minutes past are deleted as calls come (a few per call).

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crm_store::{BatchOp, Condition, Namespace, Store, StoreResult};

use crate::fairness;
use crate::http::ApiError;

/// How many checks between two sweeps of idle in-memory buckets.
const SWEEP_EVERY: u64 = 4096;
/// Where the shared counters live in an organization's namespace.
const PREFIX: &str = "rate/public/";
/// Counters of past minutes deleted per call, at most.
const SWEEP_PER_CALL: usize = 8;

pub enum FormRate {
    Off,
    Local { buckets: DefaultKeyedRateLimiter<String>, checks: AtomicU64 },
    Shared { per_minute: u32 },
}

impl FormRate {
    /// `per_minute == 0` turns the limit off; `shared`: the store is shared by many hosts.
    pub fn new(per_minute: u32, shared: bool) -> FormRate {
        match NonZeroU32::new(per_minute) {
            None => FormRate::Off,
            Some(_) if shared => FormRate::Shared { per_minute },
            Some(n) => FormRate::Local { buckets: RateLimiter::keyed(Quota::per_minute(n)), checks: AtomicU64::new(0) },
        }
    }

    /// Counts one call of public id `id` of organization `org` from `client`.
    pub fn check(&self, store: &dyn Store, org: &str, id: &str, client: Option<IpAddr>) -> Result<(), ApiError> {
        let subject = format!("{id}/{}", client.map(counted_as).unwrap_or_default());
        match self {
            FormRate::Off => Ok(()),
            FormRate::Local { buckets, checks } => {
                if checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
                    buckets.retain_recent();
                }
                buckets.check_key(&subject).map_err(|not_until| {
                    let wait = not_until.wait_time_from(DefaultClock::default().now());
                    fairness::rate_limited((wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1))
                })
            }
            FormRate::Shared { per_minute } => {
                let now = crm_tenancy::clock::now().timestamp().max(0) as u64;
                match count(store, &Namespace::org(org), &subject, *per_minute, now)? {
                    true => Ok(()),
                    false => Err(fairness::rate_limited(60 - now % 60)),
                }
            }
        }
    }
}

/// The client a call counts for. An IPv4 address is one client. An IPv6
/// client counts by its /64: the block a home or office network gets, in
/// which a device picks new addresses at will (privacy addresses, RFC 8981),
/// so counting addresses one by one would give it a limit per address it
/// makes up. An IPv4 address a dual-stack socket reports as IPv6
/// (`::ffff:a.b.c.d`) is that IPv4 address.
fn counted_as(client: IpAddr) -> String {
    match client.to_canonical() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("{}/64", std::net::Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
    }
}

/// Adds one to `subject`'s counter of the minute of `now` (seconds) if it is
/// below `limit`; whether it was.
fn count(store: &dyn Store, ns: &Namespace, subject: &str, limit: u32, now: u64) -> StoreResult<bool> {
    let minute = now / 60;
    let key = format!("{PREFIX}{minute:012}/{subject}").into_bytes();
    let current = format!("{PREFIX}{minute:012}/").into_bytes();
    // Keys sort by minute: the first ones are the oldest.
    let past: Vec<BatchOp> = store
        .scan(ns, PREFIX.as_bytes(), None, SWEEP_PER_CALL)?
        .into_iter()
        .map(|(k, _)| k)
        .filter(|k| *k < current)
        .map(BatchOp::Delete)
        .collect();
    let mut ops = vec![BatchOp::Add(key.clone(), 1)];
    ops.extend(past);
    store.batch_if(ns, vec![Condition::Below(key, u64::from(limit))], ops)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crm_store::SledStore;

    use super::*;

    #[test]
    fn an_ipv6_client_counts_by_its_64_and_a_mapped_ipv4_as_itself() {
        let as_ip = |text: &str| counted_as(text.parse().unwrap());
        assert_eq!(as_ip("203.0.113.7"), "203.0.113.7");
        assert_eq!(as_ip("::ffff:203.0.113.7"), "203.0.113.7");
        assert_eq!(as_ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
        assert_eq!(as_ip("2001:db8:1:2::1"), as_ip("2001:db8:1:2:ffff::9"));
        assert_ne!(as_ip("2001:db8:1:2::1"), as_ip("2001:db8:1:3::1"));
    }

    #[test]
    fn a_shared_counter_allows_the_limit_each_minute_and_forgets_past_minutes() {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> = Arc::new(SledStore::open(dir.path()).unwrap());
        let ns = Namespace::org("o");
        let at = 60 * 1_000;
        assert!((0..3).all(|_| count(&*store, &ns, "f/1.2.3.4", 3, at).unwrap()));
        assert!(!count(&*store, &ns, "f/1.2.3.4", 3, at + 59).unwrap(), "the fourth of the minute");
        assert!(count(&*store, &ns, "f/5.6.7.8", 3, at).unwrap(), "another address counts apart");
        assert!(count(&*store, &ns, "f/1.2.3.4", 3, at + 60).unwrap(), "a new minute");
        let left = store.scan(&ns, PREFIX.as_bytes(), None, 10).unwrap();
        assert_eq!(left.len(), 1, "the past minute's counters are gone");
    }
}
