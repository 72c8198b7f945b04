//! Secondary indexes, written in the same atomic batch as the record:
//!
//! - `ix/c/<createdAt>/<id>` and `ix/u/<updatedAt>/<id>`: order by creation and update;
//! - `ix/city/<cityCode>/<createdAt>/<id>` and `ix/state/<stateCode>/<createdAt>/<id>`.
//!
//! Times are fixed-width RFC 3339 (`2026-11-22T13:29:07.097Z`), so key order is
//! time order. Index values are empty: the key says everything.
//!
//! `s/<id>`, the search projection, is [`crate::search`]'s; `n/<epoch><posting>`,
//! the contact's entry in the trigram lists' log, [`crate::postings`]'.
//!
//! `r/<id>` is the read model: the contact's flattened JSON, rendered at write
//! time so a list page is a concatenation, not a parse and a render per row.
//!
//! `meta/contacts`, `meta/city/<code>` and `meta/state/<code>` are the
//! counters list totals come from, added to in the same commit.

use crm_sdk::http::Error;
use crm_sdk::kv;
use crm_sdk::store::{self, Condition, Write};

use std::collections::HashSet;

use crate::postings::Unlogged;
use crate::record::{self, Contact, Stored};
use crate::search;
use crate::unique::{self, Claims};

/// Every list index key of `c`.
fn entries(c: &Contact) -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    let mut push = |key: String| keys.push(key.into_bytes());
    push(format!("ix/c/{}/{}", c.created_at, c.id));
    push(format!("ix/u/{}/{}", c.updated_at, c.id));
    if let Some(code) = &c.city_code {
        push(format!("ix/city/{code}/{}/{}", c.created_at, c.id));
    }
    if let Some(code) = &c.state_code {
        push(format!("ix/state/{code}/{}/{}", c.created_at, c.id));
    }
    keys
}

/// What writing `new` (a create when `old` is `None`) takes: its index
/// entries moved from those of `old`, its read model, its search projection
/// (and its entry in the search log, when search sees it anew), the unique
/// keys it takes and gives back, and the counters lists take
/// their totals from, all for one atomic commit, so a crash at any instant
/// leaves every count exact. The commit is refused (nothing written) when a
/// key to take changed hands, for an update when the record is no longer as
/// `old` read it, for a create when the organization already holds
/// `limit` contacts, or when a fold sealed the log's epoch meanwhile. A
/// create's `contact.created` event is staged for that commit.
pub fn changes(old: Option<&Stored>, new: &Contact, limit: Option<u64>, claims: &Claims) -> Result<Changes, Error> {
    // Only what changed: an update that keeps its city keeps its city's entry.
    let fresh = entries(new);
    let before = old.map(|old| entries(&old.contact)).unwrap_or_default();
    let (fresh_set, before_set): (HashSet<&Vec<u8>>, HashSet<&Vec<u8>>) =
        (fresh.iter().collect(), before.iter().collect());
    let mut writes: Vec<Write> =
        before.iter().filter(|k| !fresh_set.contains(k)).map(|k| Write::Delete(k.clone())).collect();
    writes.extend(fresh.iter().filter(|k| !before_set.contains(k)).map(|k| Write::Put((k.clone(), Vec::new()))));
    let record = serde_json::to_vec(new).map_err(Error::internal)?;
    writes.push(Write::Put((record::key(&new.id).into_bytes(), record)));
    let rendered = serde_json::to_vec(&new.flattened()).map_err(Error::internal)?;
    writes.push(Write::Put((rendered_key(&new.id).into_bytes(), rendered)));
    let projected = search::projection(new);
    let (mut conditions, claimed) = claims.commit_parts(&new.id);
    let logged =
        old.is_none_or(|old| search::projection(&old.contact) != projected).then(|| Unlogged::new(new, &projected));
    writes.push(Write::Put((search::projection_key(&new.id).into_bytes(), projected.into_bytes())));
    writes.extend(claimed);
    if let Some(old) = old {
        conditions.push(Condition::Equals((record::key(&new.id).into_bytes(), Some(old.raw.clone()))));
    }
    if old.is_none() {
        writes.push(Write::Add((unique::COUNT_KEY.as_bytes().to_vec(), 1)));
        writes.push(Write::Add((search::INDEXED_KEY.as_bytes().to_vec(), 1)));
        if let Some(limit) = limit {
            conditions.push(Condition::Below((unique::COUNT_KEY.as_bytes().to_vec(), limit)));
        }
    }
    for (family, before, after) in [
        ("city", old.and_then(|o| o.contact.city_code.as_deref()), new.city_code.as_deref()),
        ("state", old.and_then(|o| o.contact.state_code.as_deref()), new.state_code.as_deref()),
    ] {
        if before != after {
            writes.extend(after.map(|code| Write::Add((unique::code_count_key(family, code).into_bytes(), 1))));
            writes.extend(before.map(|code| Write::Add((unique::code_count_key(family, code).into_bytes(), -1))));
        }
    }
    if old.is_none() {
        crm_sdk::emit("contact.created", &new.flattened())?;
    }
    Ok(Changes { conditions, writes, logged })
}

/// One save's part of a commit.
pub struct Changes {
    pub conditions: Vec<Condition>,
    pub writes: Vec<Write>,
    /// Its entry in the search log, which takes the epoch open at the commit.
    pub logged: Option<Unlogged>,
}

fn rendered_key(id: &str) -> String {
    format!("r/{id}")
}

/// The flattened JSON of each contact, in the order of `ids` (missing ones skipped).
pub fn rendered(ids: &[String]) -> Result<Vec<Vec<u8>>, Error> {
    let keys: Vec<String> = ids.iter().map(|id| rendered_key(id)).collect();
    Ok(kv::get_many_raw(&keys)?.into_iter().flatten().collect())
}

/// Most index keys one store call brings back.
const CHUNK: u32 = 256;

/// A walk over one index prefix (`ix/c/`, `ix/city/05001/`...), forward or
/// backward, a chunk at a time: memory stays bounded however large the index.
/// Entries are the key after the prefix: `<time>/<id>`.
pub struct Cursor {
    prefix: Vec<u8>,
    ascending: bool,
    /// Keys per store call: small when the caller needs only a short page.
    chunk: u32,
    /// Forward: the next key to read (inclusive). Backward: the key to read
    /// below (exclusive).
    from: Option<Vec<u8>>,
    /// Forward: stop at keys at or above it. Backward: stop below it.
    stop: Option<Vec<u8>>,
    buffer: std::collections::VecDeque<Vec<u8>>,
    exhausted: bool,
}

impl Cursor {
    /// A walk over `prefix`; `after` and `until` bound the entries' time
    /// (inclusive both, fixed-width RFC 3339 text).
    pub fn new(prefix: &str, ascending: bool, after: Option<&str>, until: Option<&str>) -> Cursor {
        let lower = after.map(|t| format!("{prefix}{t}").into_bytes());
        // `~` sorts after every id character, so `<until>/~` is past every entry of `until`.
        let upper = until.map(|t| format!("{prefix}{t}/~").into_bytes());
        let (from, stop) = if ascending { (lower, upper) } else { (upper, lower) };
        Cursor {
            prefix: prefix.as_bytes().to_vec(),
            ascending,
            chunk: CHUNK,
            from,
            stop,
            buffer: Default::default(),
            exhausted: false,
        }
    }

    /// Reads at most `n` keys per store call (at least 1, at most 256):
    /// for a walk that will stop after `n` entries.
    pub fn reading(mut self, n: u64) -> Cursor {
        self.chunk = n.clamp(1, CHUNK as u64) as u32;
        self
    }

    fn fill(&mut self) -> Result<(), Error> {
        if !self.buffer.is_empty() || self.exhausted {
            return Ok(());
        }
        let chunk = if self.ascending {
            store::scan(&self.prefix, self.from.as_deref(), self.chunk)?
        } else {
            store::scan_reverse(&self.prefix, self.from.as_deref(), self.chunk)?
        };
        self.exhausted = chunk.len() < self.chunk as usize;
        // Later chunks of a walk that went on are read whole.
        self.chunk = CHUNK;
        if let Some((last, _)) = chunk.last() {
            self.from = Some(if self.ascending {
                let mut next = last.clone();
                next.push(0);
                next
            } else {
                last.clone()
            });
        }
        for (key, _) in chunk {
            let past = self.stop.as_ref().is_some_and(|stop| if self.ascending { key >= *stop } else { key < *stop });
            if past {
                self.exhausted = true;
                break;
            }
            self.buffer.push_back(key.strip_prefix(self.prefix.as_slice()).unwrap_or(&key).to_vec());
        }
        Ok(())
    }
}

/// Several walks of one index family (the cities of `cityCode=A&cityCode=B`)
/// merged into one order. A contact has one city and one state, so no entry
/// appears in two of them.
pub struct Merge {
    cursors: Vec<Cursor>,
    ascending: bool,
}

impl Merge {
    pub fn new(cursors: Vec<Cursor>, ascending: bool) -> Merge {
        Merge { cursors, ascending }
    }

    /// The next `<time>/<id>` entry in order, or `None` at the end.
    pub fn next_entry(&mut self) -> Result<Option<Vec<u8>>, Error> {
        for cursor in &mut self.cursors {
            cursor.fill()?;
        }
        let heads = self.cursors.iter().enumerate().filter_map(|(i, c)| c.buffer.front().map(|h| (i, h)));
        let best = if self.ascending { heads.min_by_key(|(_, h)| *h) } else { heads.max_by_key(|(_, h)| *h) };
        Ok(best.map(|(i, _)| i).and_then(|i| self.cursors.get_mut(i)?.buffer.pop_front()))
    }
}
