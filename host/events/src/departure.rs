//! When a due delivery may go: its place in an ordered queue, and its
//! target's pace. A delivery that may not go yet is postponed (its due entry
//! moved), never sent early.
//!
//! **Order.** An ordered target's deliveries about one resource wait in a
//! queue (`hook/ord/<queue>/<delivery id>`, ids sorting by creation); only the
//! first may go. One that finds another before it records, in its queue entry,
//! the due entry it moved to, provided the one before is still there; the one
//! before, when it settles, deletes its own entry and brings the next one's
//! due entry to now, provided that entry is still as it read it. Whichever
//! of the two writes lands second sees the first and acts on it, so nobody
//! waits for a wake-up that never comes; a lost one (a crash between) costs
//! at most [`ORDER_SAFETY_NET`].
//!
//! **Pace.** Each organization's target URL with a pace has, in memory, its
//! next free slot and when one last went. A paced delivery due now takes the
//! next slot: now, or a later one, to which its due entry moves marked
//! [`records::PACED_SLOT`], so that when that time comes it goes without
//! taking another. A backlog thus drains at the pace, slot by slot; a slot
//! that comes up late (the worker was busy) waits an interval after the one
//! before it went, so late slots never go in a bunch.
//!
//! **Departure.** A slot is taken before the attempt's last awaited steps
//! (the store's flush of what the event tells of, which releases every
//! attempt waiting on one flush together), so the slots alone would let
//! several attempts that waited on one slow flush leave at once. The last
//! step before the request is [`Pace::depart`]: an attempt leaves an
//! interval after the one before it left, measured on a monotonic clock,
//! and nothing awaited lies between it and the request.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crm_store::{BatchOp, Condition, Namespace, Store, StoreResult};

use crate::records::{self, Delivery};

/// When a waiting ordered delivery looks again if the one before it never
/// brings it forward: past the one before's next attempt, by this.
pub const ORDER_SAFETY_NET: u64 = 5 * 60 * 1000;

/// Why a delivery does not go now, and until when.
#[derive(Debug, PartialEq, Eq)]
pub enum Wait {
    /// Behind `before` (its queue entry as read) in its ordered queue.
    Behind { until: u64, before: (Vec<u8>, Vec<u8>) },
    /// Its pace's next slot is later.
    Paced { until: u64 },
    /// It has its slot, but the slot before went late, less than an
    /// interval ago: it goes an interval after that one (waited in memory).
    Spaced { until: u64 },
}

/// Whether `delivery` is first in its ordered queue; if not, until when it
/// waits. A queue entry left by a delivery that is gone is removed.
pub fn ordered_wait(store: &dyn Store, ns: &Namespace, delivery: &Delivery, now: u64) -> StoreResult<Option<Wait>> {
    let Some(queue) = &delivery.queue else { return Ok(None) };
    let prefix = records::ordered_key(queue, "");
    loop {
        let first = store.scan(ns, prefix.as_bytes(), None, 1)?;
        let Some((key, value)) = first.into_iter().next() else { return Ok(None) };
        let head_id = String::from_utf8_lossy(key.strip_prefix(prefix.as_bytes()).unwrap_or(&key)).into_owned();
        if head_id == delivery.id {
            return Ok(None);
        }
        let head = store.get(ns, records::delivery_key(&head_id).as_bytes())?;
        match head.and_then(|bytes| serde_json::from_slice::<Delivery>(&bytes).ok()) {
            Some(head) if head.status == records::PENDING => {
                let next_attempt = head.next_attempt_millis.unwrap_or(now).max(now);
                return Ok(Some(Wait::Behind { until: next_attempt + ORDER_SAFETY_NET, before: (key, value) }));
            }
            _ => {
                store.batch_if(ns, vec![Condition::Equals(key.clone(), Some(value))], vec![BatchOp::Delete(key)])?;
            }
        }
    }
}

/// The conditions and writes that move `delivery`'s due entry `due_key` to
/// where `wait` says.
pub fn postponement(delivery: &Delivery, due_key: &[u8], wait: &Wait) -> (Vec<Condition>, Vec<BatchOp>) {
    let (until, value) = match wait {
        Wait::Behind { until, .. } => (*until, Vec::new()),
        Wait::Paced { until } | Wait::Spaced { until } => (*until, records::PACED_SLOT.to_vec()),
    };
    let moved = records::due_key(until, &delivery.id).into_bytes();
    let mut ops = vec![BatchOp::Delete(due_key.to_vec()), BatchOp::Put(moved.clone(), value)];
    // Read by the one before once it settles, so only while it is there.
    let mut conditions = Vec::new();
    if let (Wait::Behind { before: (before_key, before_value), .. }, Some(queue)) = (wait, &delivery.queue) {
        conditions.push(Condition::Equals(before_key.clone(), Some(before_value.clone())));
        ops.push(BatchOp::Put(records::ordered_key(queue, &delivery.id).into_bytes(), moved));
    }
    (conditions, ops)
}

/// What the settling of ordered `delivery` writes beside its record: its
/// queue entry removed, and the next one's due entry brought to `now` (with
/// the condition that the next one's entry is as read here).
pub fn settlement(
    store: &dyn Store,
    ns: &Namespace,
    delivery: &Delivery,
    now: u64,
) -> StoreResult<(Vec<Condition>, Vec<BatchOp>)> {
    let Some(queue) = &delivery.queue else { return Ok((Vec::new(), Vec::new())) };
    let own = records::ordered_key(queue, &delivery.id).into_bytes();
    let mut ops = vec![BatchOp::Delete(own.clone())];
    let prefix = records::ordered_key(queue, "");
    let next = store.scan(ns, prefix.as_bytes(), Some(&crm_store::key_after(&own)), 1)?;
    let Some((next_key, moved_to)) = next.into_iter().next() else { return Ok((Vec::new(), ops)) };
    let conditions = vec![Condition::Equals(next_key.clone(), Some(moved_to.clone()))];
    if let Some((_, next_id)) = records::parse_due_key(&moved_to) {
        ops.push(BatchOp::Delete(moved_to));
        ops.push(BatchOp::Put(records::due_key(now, &next_id).into_bytes(), Vec::new()));
        ops.push(BatchOp::Put(next_key, Vec::new()));
    }
    Ok((conditions, ops))
}

/// Each organization's paced target URLs: their next free slot and when
/// one last went, in microseconds since the epoch.
#[derive(Default)]
pub struct Pace {
    targets: Mutex<HashMap<(String, String), Slots>>,
}

#[derive(Default, Clone, Copy)]
struct Slots {
    next_free: u64,
    last_start: u64,
    /// When an attempt last left ([`Pace::depart`]).
    departed: Option<Instant>,
}

/// The longest interval a pace has (one attempt a second): a target whose
/// last attempt left longer ago than this has nothing left to space.
const LONGEST_INTERVAL: Duration = Duration::from_secs(1);

impl Pace {
    /// When a paced delivery of `org` to `url`, due at `now` (milliseconds),
    /// goes. One without a slot yet takes the next free one: now, or a later
    /// one to move it to. One with its slot (`given`: due at it) goes now, or,
    /// when a slot that came up late went less than an interval ago, that
    /// interval after it: a wait shorter than an interval, which the worker
    /// makes in memory. So late slots never bunch, and a slow store does not
    /// make each slot later than the one before.
    pub fn take(&self, org: &str, url: &str, per_second: u32, now: u64, given: bool) -> u64 {
        let interval = 1_000_000 / u64::from(per_second.max(1));
        let now_us = now * 1000;
        let mut targets = self.targets.lock().expect("pace lock");
        if targets.len() > 10_000 {
            // Slots all past and departures spaced: nothing to remember.
            targets.retain(|_, slots| {
                slots.next_free > now_us || slots.departed.is_some_and(|at| at.elapsed() < LONGEST_INTERVAL)
            });
        }
        let slots = targets.entry((org.to_string(), url.to_string())).or_default();
        let spaced = slots.last_start + interval;
        let start = match given {
            true => now_us.max(spaced),
            false => now_us.max(spaced).max(slots.next_free),
        };
        if given || start == now_us {
            slots.last_start = start;
        }
        slots.next_free = slots.next_free.max(start + interval);
        start.div_ceil(1000)
    }

    /// Whether a paced attempt of `org` to `url` may leave at `now`: `Ok`
    /// (recorded as the last to leave) when the one before left at least an
    /// interval ago, else `Err` with when it may. Asked right before the
    /// request, after every wait, so a late slot never makes the next one
    /// early: attempts that a slow flush released together leave an
    /// interval apart.
    pub fn depart(&self, org: &str, url: &str, per_second: u32, now: Instant) -> Result<(), Instant> {
        let interval = Duration::from_micros(1_000_000 / u64::from(per_second.max(1)));
        let mut targets = self.targets.lock().expect("pace lock");
        let slots = targets.entry((org.to_string(), url.to_string())).or_default();
        if let Some(departed) = slots.departed
            && now < departed + interval
        {
            return Err(departed + interval);
        }
        slots.departed = Some(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backlog_takes_slots_at_the_pace_and_late_slots_do_not_bunch() {
        let pace = Pace::default();
        let slots: Vec<u64> = (0..5).map(|_| pace.take("o", "https://x.co/", 4, 1000, false)).collect();
        assert_eq!(slots, [1000, 1250, 1500, 1750, 2000]);
        assert_eq!(pace.take("o", "https://other.co/", 4, 1000, false), 1000, "each URL has its own");
        assert_eq!(pace.take("p", "https://x.co/", 4, 1000, false), 1000, "each organization too");
        // The slots of 1250 and 1500 both come up late, at 1600: one goes,
        // the other an interval later; the one of 1750, at 1850, after it.
        assert_eq!(pace.take("o", "https://x.co/", 4, 1600, true), 1600);
        assert_eq!(pace.take("o", "https://x.co/", 4, 1600, true), 1850);
        assert_eq!(pace.take("o", "https://x.co/", 4, 1850, true), 2100);
        assert_eq!(pace.take("o", "https://x.co/", 4, 9000, false), 9000, "idle: at once");
    }

    #[test]
    fn an_attempt_leaves_an_interval_after_the_one_before_it_left() {
        let pace = Pace::default();
        let t = Instant::now();
        let interval = Duration::from_millis(250);
        assert_eq!(pace.depart("o", "https://x.co/", 4, t), Ok(()));
        // Two released together (one flush): the second waits an interval.
        assert_eq!(pace.depart("o", "https://x.co/", 4, t), Err(t + interval));
        assert_eq!(pace.depart("o", "https://x.co/", 4, t + interval / 2), Err(t + interval));
        assert_eq!(pace.depart("o", "https://other.co/", 4, t), Ok(()), "each URL has its own");
        assert_eq!(pace.depart("p", "https://x.co/", 4, t), Ok(()), "each organization too");
        assert_eq!(pace.depart("o", "https://x.co/", 4, t + interval), Ok(()));
        // A late one goes at once, and counts from when it left.
        let late = t + interval * 5;
        assert_eq!(pace.depart("o", "https://x.co/", 4, late), Ok(()));
        assert_eq!(pace.depart("o", "https://x.co/", 4, late + interval / 2), Err(late + interval));
    }
}
