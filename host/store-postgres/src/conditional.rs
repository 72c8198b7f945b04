//! Conditional writes (`batch_if`, `compare_and_swap`) at read committed,
//! held by row locks rather than by serializable transactions.
//!
//! Every create of a contact adds to its organization's count: under
//! serializable isolation, concurrent creates would collide on that row and
//! all but one roll back and retry. With row locks they queue, each seeing the
//! one before it whole, as the embedded store's transactions do.
//!
//! How a batch's conditions hold until its commit:
//! - a key expected to hold a value, and a counter under a bound: its row is
//!   locked (`SELECT .. FOR UPDATE`, in key order); a counter's row exists
//!   by then ([`ensure_counters`]), so that there is a row to lock;
//! - a key expected absent: a placeholder row is inserted
//!   (`ON CONFLICT DO NOTHING`, which waits for a concurrent insert of the
//!   same key to end). If a row is there the condition fails; otherwise no one
//!   else can insert the key until the commit, where the placeholder has been
//!   overwritten by the batch's own write of the key or deleted: it is never
//!   seen.
//!
//! Any writer of those rows, conditional or not, waits for the commit, so a
//! condition checked here still holds when the batch lands.
//!
//! Deadlocks: a batch locks every existing row it will touch (conditions and
//! writes) in one pass in key order ([`lock_rows`]) before writing, so two
//! batches wait for each other's rows in one order. The rows two batches may
//! both create are counters; they are made to exist, committed, before the
//! transaction ([`ensure_counters`]), so that they too are locked in that
//! pass. (Without that, the first contacts of a new organization deadlocked
//! on its new counters, each cycle broken only after a second.)
//!
//! Many batches may commit in one transaction ([`commit_together`], fed by
//! the store's combiner): their keys are locked and held together, then
//! each batch is checked in turn against those rows as the batches before
//! it left them, as one sled transaction does.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use deadpool_postgres::{Client, Transaction};
use tokio_postgres::types::ToSql;

use crm_store::combine::Conditional;
use crm_store::{BatchOp, Condition, Conflict};

use crate::retry::Failure;

const ENSURE_ROWS: &str = "INSERT INTO crm_kv (ns, key, value) SELECT $1, k, convert_to('0', 'UTF8') FROM unnest($2::BYTEA[]) AS t (k) \
                           ON CONFLICT (ns, key) DO NOTHING";
/// One primary-key lookup per key, locked in the array's order (see
/// `store.rs` on why not `key = ANY(..)`).
const LOCK_ROWS: &str = "SELECT kv.key, kv.value FROM unnest($2::BYTEA[]) WITH ORDINALITY AS t (k, i) \
                         CROSS JOIN LATERAL (SELECT key, value FROM crm_kv WHERE ns = $1 AND key = t.k FOR UPDATE) AS kv \
                         ORDER BY t.i";
const HOLD_ABSENT: &str = "INSERT INTO crm_kv (ns, key, value) SELECT $1, k, ''::BYTEA FROM unnest($2::BYTEA[]) AS t (k) \
                           ON CONFLICT (ns, key) DO NOTHING RETURNING key";

const GET: &str = "SELECT value FROM crm_kv WHERE ns = $1 AND key = $2";
const INSERT_IF_ABSENT: &str =
    "INSERT INTO crm_kv (ns, key, value) VALUES ($1, $2, $3) ON CONFLICT (ns, key) DO NOTHING RETURNING key";
const UPDATE_IF: &str = "UPDATE crm_kv SET value = $4 WHERE ns = $1 AND key = $2 AND value = $3";
const DELETE_IF: &str = "DELETE FROM crm_kv WHERE ns = $1 AND key = $2 AND value = $3";

/// The keys of a batch's conditions, by how each is held; sorted, so that
/// batches take their locks in one order.
#[derive(Default)]
struct Held {
    absent: Vec<Vec<u8>>,
    locked: Vec<Vec<u8>>,
}

impl Held {
    fn of<'a>(conditions: impl IntoIterator<Item = &'a Condition>) -> Held {
        let mut held = Held::default();
        for condition in conditions {
            match condition {
                Condition::Equals(key, None) => held.absent.push(key.clone()),
                Condition::Equals(key, Some(_)) => held.locked.push(key.clone()),
                Condition::Below(key, _) => held.locked.push(key.clone()),
            }
        }
        for keys in [&mut held.absent, &mut held.locked] {
            keys.sort();
            keys.dedup();
        }
        held
    }
}

/// Commits `batches` as one transaction's writes, inside `tx`: each checks
/// its conditions against the locked rows and the batches before it (as
/// sled's combined commit does) and is applied whole only if they hold; the
/// answer says which were. Nothing is written when none holds. The caller
/// commits (or drops `tx`: rollback).
pub(crate) async fn commit_together(
    tx: &Transaction<'_>,
    ns: &str,
    batches: &[Conditional],
) -> Result<Vec<bool>, Failure> {
    let held = Held::of(batches.iter().flat_map(|b| &b.conditions));
    let mut touched: Vec<Vec<u8>> = held.locked.clone();
    touched.extend(batches.iter().flat_map(|b| &b.ops).map(|op| op.key().to_vec()));
    let touched = in_lock_order(touched);
    let (lock, hold) = tokio::try_join!(tx.prepare_cached(LOCK_ROWS), tx.prepare_cached(HOLD_ABSENT))?;
    // Sent together, in this order (a query is sent when first polled): the
    // locks, then the placeholders, so the hot rows are held one round trip
    // less. When the locks fail, the placeholders only say the transaction
    // is aborted: the locks' failure is the one reported.
    let holding = async {
        match held.absent.is_empty() {
            true => Ok(Vec::new()),
            false => tx.query(&hold, &[&ns, &held.absent]).await,
        }
    };
    let locking: [&(dyn ToSql + Sync); 2] = [&ns, &touched];
    let (locked, placed) = tokio::join!(tx.query(&lock, &locking), holding);
    let found = values(locked?);
    let placed: HashSet<Vec<u8>> = placed?.into_iter().map(|r| r.get(0)).collect();
    let mut rows = Rows { found, taken: held.absent.into_iter().filter(|k| !placed.contains(k)).collect() };

    let mut applied = Vec::with_capacity(batches.len());
    let mut ops = Vec::new();
    for batch in batches {
        let holds = batch.conditions.iter().all(|c| rows.holds(c));
        if holds {
            batch.ops.iter().for_each(|op| rows.apply(op));
            ops.extend_from_slice(&batch.ops);
        }
        applied.push(holds);
    }
    if ops.is_empty() {
        return Ok(applied);
    }
    // Placeholders no applied batch wrote go before the commit.
    let written: HashSet<&[u8]> = ops.iter().map(BatchOp::key).collect();
    let unwritten: Vec<BatchOp> =
        placed.iter().filter(|k| !written.contains(k.as_slice())).cloned().map(BatchOp::Delete).collect();
    ops.extend(unwritten);
    crate::writes::apply(tx, ns, &ops).await?;
    Ok(applied)
}

/// The rows of a combined commit as its batches see them in turn: what the
/// lock pass found, changed by the batches applied so far.
struct Rows {
    found: HashMap<Vec<u8>, Vec<u8>>,
    /// Keys expected absent whose placeholder could not be inserted: a row
    /// is there, not locked and not read.
    taken: HashSet<Vec<u8>>,
}

impl Rows {
    fn holds(&self, condition: &Condition) -> bool {
        match condition {
            Condition::Equals(key, None) if self.taken.contains(key) => false,
            _ => condition.holds_on(self.found.get(condition.key()).map(Vec::as_slice)),
        }
    }

    fn apply(&mut self, op: &BatchOp) {
        let key = op.key();
        self.taken.remove(key);
        match op.applied_to(self.found.get(key).map(Vec::as_slice)) {
            Some(value) => drop(self.found.insert(key.to_vec(), value)),
            None => drop(self.found.remove(key)),
        }
    }
}

/// Makes the counters the batches add to or bound exist (as `0`, which
/// reads as absent does), in a statement of its own committed before the
/// batches' transaction begins: concurrent batches then find them and lock
/// them in key order like any other row, instead of racing to create them.
/// Counters this store made sure of before are not asked for again
/// ([`Ensured`]).
pub(crate) async fn ensure_counters(
    client: &Client,
    ensured: &Ensured,
    ns: &str,
    batches: &[Conditional],
) -> Result<(), Failure> {
    let mut keys: Vec<Vec<u8>> = batches.iter().flat_map(counters).filter(|k| !ensured.knows(ns, k)).cloned().collect();
    if keys.is_empty() {
        return Ok(());
    }
    keys.sort();
    keys.dedup();
    client.execute(&client.prepare_cached(ENSURE_ROWS).await?, &[&ns, &keys]).await?;
    ensured.remember(ns, keys);
    Ok(())
}

/// The counters a batch adds to or bounds, but for those it expects absent:
/// those must stay so (a placeholder holds them instead).
fn counters(batch: &Conditional) -> impl Iterator<Item = &Vec<u8>> {
    let added = batch.ops.iter().filter_map(|op| match op {
        BatchOp::Add(k, _) => Some(k),
        _ => None,
    });
    let bounded = batch.conditions.iter().filter_map(|c| match c {
        Condition::Below(k, _) => Some(k),
        _ => None,
    });
    added
        .chain(bounded)
        .filter(|k| !batch.conditions.iter().any(|c| matches!(c, Condition::Equals(key, None) if key == *k)))
}

/// The counters this store has made sure exist, so that the batches of a
/// busy organization do not ask for its count row each time. Only a
/// shortcut: a counter deleted since (its namespace dropped, here or by
/// another host) is made again by the batch's own add, as correct, only
/// without the protection against two new counters' deadlock (which is
/// retried).
#[derive(Default)]
pub(crate) struct Ensured(Mutex<HashMap<String, HashSet<Vec<u8>>>>);

impl Ensured {
    /// Past this many namespaces, the set starts over rather than grow (a
    /// namespace's counters are few: its count, its cities', its states').
    const MOST: usize = 10_000;

    fn knows(&self, ns: &str, key: &[u8]) -> bool {
        self.0.lock().expect("ensured counters").get(ns).is_some_and(|keys| keys.contains(key))
    }

    fn remember(&self, ns: &str, keys: Vec<Vec<u8>>) {
        let mut known = self.0.lock().expect("ensured counters");
        if known.len() >= Self::MOST && !known.contains_key(ns) {
            known.clear();
        }
        known.entry(ns.to_owned()).or_default().extend(keys);
    }

    /// Forgets a dropped namespace's counters.
    pub(crate) fn forget(&self, ns: &str) {
        self.0.lock().expect("ensured counters").remove(ns);
    }
}

/// Locks the existing rows of `keys` in key order (one pass, so that batches
/// wait for each other in one order); answers their values.
pub(crate) async fn lock_rows(
    tx: &Transaction<'_>,
    ns: &str,
    keys: Vec<Vec<u8>>,
) -> Result<HashMap<Vec<u8>, Vec<u8>>, Failure> {
    let keys = in_lock_order(keys);
    if keys.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = tx.query(&tx.prepare_cached(LOCK_ROWS).await?, &[&ns, &keys]).await?;
    Ok(values(rows))
}

/// Keys as [`LOCK_ROWS`] takes them: sorted, once each.
fn in_lock_order(mut keys: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    keys.sort();
    keys.dedup();
    keys
}

/// Rows of `(key, value)` by key.
fn values(rows: Vec<tokio_postgres::Row>) -> HashMap<Vec<u8>, Vec<u8>> {
    rows.into_iter().map(|r| (r.get(0), r.get(1))).collect()
}

/// Compare-and-swap in one statement: an insert that does nothing on a
/// conflict, or an update or delete conditioned on the expected value (read
/// committed re-checks that on the newest version of a row it waited for).
/// When it did not swap, the value found instead; a value equal to the
/// expected one means a race moved it away and back: that is tried again.
pub(crate) async fn compare_and_swap(
    client: &Client,
    ns: &str,
    key: &[u8],
    expected: Option<&[u8]>,
    new: Option<&[u8]>,
) -> Result<Result<(), Conflict>, Failure> {
    let swapped = match (expected, new) {
        (None, Some(value)) => {
            let params: [&(dyn ToSql + Sync); 3] = [&ns, &key, &value];
            client.query_opt(&client.prepare_cached(INSERT_IF_ABSENT).await?, &params).await?.is_some()
        }
        (Some(old), Some(value)) => {
            let params: [&(dyn ToSql + Sync); 4] = [&ns, &key, &old, &value];
            client.execute(&client.prepare_cached(UPDATE_IF).await?, &params).await? == 1
        }
        (Some(old), None) => {
            let params: [&(dyn ToSql + Sync); 3] = [&ns, &key, &old];
            client.execute(&client.prepare_cached(DELETE_IF).await?, &params).await? == 1
        }
        (None, None) => false, // nothing to write: the answer is the current value
    };
    if swapped {
        return Ok(Ok(()));
    }
    let current: Option<Vec<u8>> =
        client.query_opt(&client.prepare_cached(GET).await?, &[&ns, &key]).await?.map(|r| r.get(0));
    match current.as_deref() == expected {
        true if new.is_none() && expected.is_none() => Ok(Ok(())),
        true => Err(Failure::raced()),
        false => Ok(Err(current)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn equals(key: &str, value: Option<&str>) -> Condition {
        Condition::Equals(key.into(), value.map(Into::into))
    }

    /// What later batches of one combined commit see: the rows found, as
    /// the batches before them changed them.
    #[test]
    fn each_batch_sees_the_rows_as_the_batches_before_it_left_them() {
        let mut rows = Rows { found: HashMap::from([(b"n".to_vec(), b"1".to_vec())]), taken: HashSet::new() };
        assert!(rows.holds(&equals("claim", None)) && rows.holds(&Condition::Below("n".into(), 2)));
        rows.apply(&BatchOp::Put("claim".into(), "a".into()));
        rows.apply(&BatchOp::Add("n".into(), 1));
        assert!(!rows.holds(&equals("claim", None)), "the first claim won");
        assert!(rows.holds(&equals("claim", Some("a"))));
        assert!(!rows.holds(&Condition::Below("n".into(), 2)), "the bound is reached");
        rows.apply(&BatchOp::Delete("claim".into()));
        assert!(rows.holds(&equals("claim", None)));
    }

    /// A key expected absent that a concurrent writer inserted first: no
    /// placeholder, and its row was neither locked nor read.
    #[test]
    fn a_key_taken_by_another_writer_is_not_absent_until_written() {
        let mut rows = Rows { found: HashMap::new(), taken: HashSet::from([b"k".to_vec()]) };
        assert!(!rows.holds(&equals("k", None)));
        rows.apply(&BatchOp::Delete("k".into()));
        assert!(rows.holds(&equals("k", None)));
    }
}
