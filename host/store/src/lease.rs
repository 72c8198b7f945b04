//! Leases: work that must run once among all the hosts sharing a store (the
//! tracking refresh, webhook delivery) runs on the host holding its lease.
//!
//! A lease is one key of the system namespace, `lease/<name>`, holding
//! `<holder> <expires-at-ms>`. It is taken when absent or expired and renewed
//! by its holder, both by compare-and-swap, so of hosts racing for it exactly
//! one wins. A holder that stops renewing (crashed, cut off) loses it when it
//! expires, and another host takes over. Expiry is wall-clock time: hosts'
//! clocks must agree to well within the lease's length (NTP does).
//!
//! A holder name must be stable across restarts of one host (a restarted
//! host takes its own lease back at once instead of waiting for it to expire)
//! and distinct between hosts.

use std::sync::Arc;
use std::time::Duration;

use crate::{Namespace, Store, StoreResult};

pub struct Lease {
    store: Arc<dyn Store>,
    key: Vec<u8>,
    holder: String,
    length: Duration,
}

impl Lease {
    pub fn new(store: Arc<dyn Store>, name: &str, holder: &str, length: Duration) -> Lease {
        Lease { store, key: format!("lease/{name}").into_bytes(), holder: holder.to_string(), length }
    }

    /// How often a holder should call [`Lease::hold`] to keep the lease.
    pub fn renew_every(&self) -> Duration {
        self.length / 3
    }

    /// Takes or renews the lease at `now_ms` (milliseconds since the epoch);
    /// whether this holder holds it until `now_ms` + its length.
    pub fn hold(&self, now_ms: u64) -> StoreResult<bool> {
        let ns = Namespace::system();
        let current = self.store.get(&ns, &self.key)?;
        if let Some((holder, expires)) = current.as_deref().and_then(parse)
            && holder != self.holder
            && expires > now_ms
        {
            return Ok(false);
        }
        let mine = format!("{} {}", self.holder, now_ms + self.length.as_millis() as u64);
        Ok(self.store.compare_and_swap(&ns, &self.key, current.as_deref(), Some(mine.as_bytes()))?.is_ok())
    }

    /// Gives the lease up if this holder has it (a clean shutdown), so
    /// another host need not wait for it to expire.
    pub fn release(&self) -> StoreResult<()> {
        let ns = Namespace::system();
        let current = self.store.get(&ns, &self.key)?;
        if current.as_deref().and_then(parse).is_some_and(|(holder, _)| holder == self.holder) {
            self.store.compare_and_swap(&ns, &self.key, current.as_deref(), None)?.ok();
        }
        Ok(())
    }
}

fn parse(value: &[u8]) -> Option<(&str, u64)> {
    let text = std::str::from_utf8(value).ok()?;
    let (holder, expires) = text.rsplit_once(' ')?;
    Some((holder, expires.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SledStore;

    #[test]
    fn one_holder_at_a_time_until_it_expires() {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> = Arc::new(SledStore::open(dir.path()).unwrap());
        let length = Duration::from_secs(10);
        let (a, b) = (Lease::new(store.clone(), "work", "host-a", length), Lease::new(store, "work", "host-b", length));
        assert!(a.hold(1_000).unwrap());
        assert!(!b.hold(2_000).unwrap(), "held by a");
        assert!(a.hold(5_000).unwrap(), "a renews");
        assert!(!b.hold(14_000).unwrap(), "a's renewal runs to 15,000");
        assert!(b.hold(15_001).unwrap(), "expired: b takes over");
        assert!(!a.hold(16_000).unwrap());
        b.release().unwrap();
        assert!(a.hold(16_001).unwrap(), "released: free at once");
    }
}
