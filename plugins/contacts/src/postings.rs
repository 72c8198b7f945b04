//! The trigram lists behind `search=`, kept so that a contact's write
//! touches one key of them, not one per trigram:
//!
//! - `n/<posting>`, the log: a create, or an update that changes what search
//!   sees, writes its contact's entry, the projection as value, in the
//!   contact's own commit ([`crate::index::changes`]). A later update
//!   overwrites it; [`fold`] deletes it once its trigrams are in the lists.
//! - `b/<trigram><first posting>`, a list's sealed blocks, and
//!   `b/<trigram>` + [`OPEN`], its open block: postings, ascending, 18 bytes
//!   each. The blocks of a list hold disjoint ranges in key order, the open
//!   one the newest; a list with any posting has an open block, and the open
//!   block seals its oldest [`BLOCK`] postings once it holds more.
//! - [`fold`] moves the log into the lists, a few thousand entries at a
//!   time: the host calls it (the `contacts-upkeep` export) soon after
//!   contacts are written. A fold rewrites one open block per trigram it
//!   touches, not one key per contact and trigram.
//!
//! Search reads the log first ([`logged_matches`]), then the lists
//! ([`List`]): a fold committed between the two leaves what it moved in the
//! lists read after.
//!
//! The lists only gain postings: a renamed contact keeps its old trigrams'
//! postings, which search rules out against the projection
//! ([`crate::search::matching`]).

use std::collections::{BTreeMap, BTreeSet};

use crm_sdk::http::Error;
use crm_sdk::store::{self, Condition, Write};

use crate::record::Contact;

/// Where a contact sits in every trigram list: its creation time (6 bytes of
/// milliseconds) and its id (12 bytes), big-endian, so byte order is the
/// order of `ix/c/<createdAt>/<id>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Posting([u8; POSTING_LEN]);

const POSTING_LEN: usize = 18;

impl Posting {
    /// `c`'s posting. Every contact's id is 24 hex characters (the host's
    /// `new-id`) and its `createdAt` the host's RFC 3339 (one that did not
    /// parse would sort as the oldest, nothing worse).
    pub fn of(c: &Contact) -> Posting {
        Posting::new(&c.created_at, &c.id)
    }

    /// The posting of the creation index's entry `<createdAt>/<id>`.
    pub fn of_entry(entry: &[u8]) -> Posting {
        let entry = String::from_utf8_lossy(entry);
        let (created_at, id) = entry.split_once('/').unwrap_or_default();
        Posting::new(created_at, id)
    }

    fn new(created_at: &str, id: &str) -> Posting {
        let millis = chrono::DateTime::parse_from_rfc3339(created_at).map_or(0, |t| t.timestamp_millis().max(0));
        let mut bytes = [0u8; POSTING_LEN];
        bytes[..6].copy_from_slice(&millis.to_be_bytes()[2..]);
        bytes[6..].copy_from_slice(&crm_sdk::id_bytes(id));
        Posting(bytes)
    }

    /// The posting a key ends with (a log entry's, a legacy list key's).
    pub fn from_key(key: &[u8]) -> Option<Posting> {
        key.len().checked_sub(POSTING_LEN).map(|start| Posting(key[start..].try_into().expect("18 bytes")))
    }

    /// The contact's id, as 24 hex characters.
    pub fn id(&self) -> String {
        crm_sdk::id_text(self.0[6..].try_into().expect("12 bytes"))
    }

    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// The open block's key after its list's prefix: above every posting, whose
/// first byte stays 0 until the year 10889.
const OPEN: &[u8] = b"~";
/// Postings of a sealed block (2.3 KB), and most the open block holds
/// between folds: what a fold rewrites per trigram it touches.
const BLOCK: usize = 128;
/// Log entries one fold commit moves.
const FOLD_BATCH: usize = 4_096;
/// Fold commits per call: the rest waits for the host's next call.
const FOLD_ROUNDS: usize = 4;
/// A log this short is read and matched here; a longer one the host searches.
const SMALL_LOG: u32 = 256;
/// Pairs per store call (the host's bound).
const MOST_PER_CALL: usize = 1000;

const LOG: &[u8] = b"n/";

/// `c`'s log entry: its projection `projected`, for the commit that writes it.
pub fn logged(c: &Contact, projected: &str) -> Write {
    Write::Put(([LOG, Posting::of(c).bytes()].concat(), projected.as_bytes().to_vec()))
}

/// The trigrams a projection is indexed by: each distinct three-character
/// window at an even position of one of its lines (see [`crate::search`]).
pub fn trigrams(projected: &str) -> BTreeSet<String> {
    projected.split('\n').flat_map(even_windows).collect()
}

fn even_windows(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    chars.windows(3).step_by(2).map(String::from_iter).collect()
}

fn list_prefix(trigram: &str) -> Vec<u8> {
    format!("b/{trigram}").into_bytes()
}

fn decode(block: &[u8]) -> Vec<Posting> {
    block.chunks_exact(POSTING_LEN).map(|p| Posting(p.try_into().expect("18 bytes"))).collect()
}

fn encode(postings: &[Posting]) -> Vec<u8> {
    postings.iter().flat_map(|p| p.0).collect()
}

/// The contacts written since the last fold whose projection holds `needle`;
/// `None` past `most`.
pub fn logged_matches(needle: &str, most: usize) -> Result<Option<Vec<Posting>>, Error> {
    let first = store::scan(LOG, None, SMALL_LOG)?;
    let found: Vec<Posting> = if first.len() < SMALL_LOG as usize {
        let holds = |projected: &[u8]| std::str::from_utf8(projected).is_ok_and(|p| p.contains(needle));
        first.iter().filter(|(_, projected)| holds(projected)).filter_map(|(key, _)| Posting::from_key(key)).collect()
    } else {
        let keys = store::find(LOG, needle.as_bytes(), most as u32 + 1)?;
        keys.iter().filter_map(|key| Posting::from_key(key)).collect()
    };
    Ok((found.len() <= most).then_some(found))
}

/// One trigram's list, read newest first a few blocks at a time.
pub struct List {
    prefix: Vec<u8>,
    /// The oldest block read: the next read is below it.
    below: Option<Vec<u8>>,
    ended: bool,
}

impl List {
    pub fn new(trigram: &str) -> List {
        List { prefix: list_prefix(trigram), below: None, ended: false }
    }

    /// At least `n` more postings, newest first (fewer at the list's end):
    /// whole blocks, so every posting down to the oldest answered is read.
    pub fn read(&mut self, n: usize) -> Result<Vec<Posting>, Error> {
        let mut read = Vec::new();
        while read.len() < n && !self.ended {
            let blocks = (n - read.len()).div_ceil(BLOCK).clamp(1, MOST_PER_CALL) as u32;
            let chunk = store::scan_reverse(&self.prefix, self.below.as_deref(), blocks)?;
            self.ended = chunk.len() < blocks as usize;
            for (key, block) in chunk {
                read.extend(decode(&block).into_iter().rev());
                self.below = Some(key);
            }
        }
        Ok(read)
    }

    /// Every posting of the list has been read.
    pub fn ended(&self) -> bool {
        self.ended
    }
}

/// Moves up to [`FOLD_ROUNDS`] × [`FOLD_BATCH`] log entries into the lists;
/// answers how many. Safe beside writes and beside another fold: a commit
/// holds only while the entries and blocks it read are unchanged.
pub fn fold() -> Result<usize, Error> {
    let mut folded = 0;
    for _ in 0..FOLD_ROUNDS {
        let moved = fold_batch()?;
        folded += moved;
        if moved < FOLD_BATCH {
            break;
        }
    }
    Ok(folded)
}

/// One commit of a fold: what it requires and what it writes.
#[derive(Default)]
struct Commit {
    conditions: Vec<Condition>,
    writes: Vec<Write>,
}

/// Folds the oldest [`FOLD_BATCH`] log entries; answers how many. The lists
/// first, a thousand trigrams to a commit (so a fold's memory stays small
/// however varied the names), then the log entries, deleted as read: one
/// an update rewrote meanwhile fails that commit, and the fold starts over.
/// Adding a posting a list already holds changes nothing, so a fold cut
/// short anywhere is simply done again.
fn fold_batch() -> Result<usize, Error> {
    for _ in 0..16 {
        let log = read_log(FOLD_BATCH)?;
        if log.is_empty() {
            return Ok(0);
        }
        let mut lists: BTreeMap<String, Vec<Posting>> = BTreeMap::new();
        for (key, projected) in &log {
            let Some(posting) = Posting::from_key(key) else { continue };
            for trigram in trigrams(&String::from_utf8_lossy(projected)) {
                lists.entry(trigram).or_default().push(posting);
            }
        }
        let trigrams: Vec<&String> = lists.keys().collect();
        for chunk in trigrams.chunks(MOST_PER_CALL) {
            add_to_lists(chunk, &lists)?;
        }
        let mut commit = Commit::default();
        for (key, projected) in log.iter().cloned() {
            commit.conditions.push(Condition::Equals((key.clone(), Some(projected))));
            commit.writes.push(Write::Delete(key));
        }
        if store::commit(&commit.conditions, &commit.writes)? {
            return Ok(log.len());
        }
    }
    Err(busy())
}

/// Adds each list of `trigrams` its postings in `lists`, in one commit,
/// tried again while another fold changes the same blocks.
fn add_to_lists(trigrams: &[&String], lists: &BTreeMap<String, Vec<Posting>>) -> Result<(), Error> {
    for _ in 0..16 {
        let open_keys: Vec<Vec<u8>> = trigrams.iter().map(|t| [list_prefix(t).as_slice(), OPEN].concat()).collect();
        let opens = store::get_many(&open_keys)?;
        let mut commit = Commit::default();
        for (trigram, open) in trigrams.iter().zip(opens) {
            let mut postings = lists[*trigram].clone();
            postings.sort_unstable();
            postings.dedup();
            add_to_list(&list_prefix(trigram), &postings, open, &mut commit)?;
        }
        if commit.writes.is_empty() || store::commit(&commit.conditions, &commit.writes)? {
            return Ok(());
        }
    }
    Err(busy())
}

fn busy() -> Error {
    Error::new(503, "BUSY", "Contacts kept changing while their search index was written; it is tried again")
}

/// A log entry: its key and the projection it logged.
type Entry = (Vec<u8>, Vec<u8>);

/// The oldest `most` log entries.
fn read_log(most: usize) -> Result<Vec<Entry>, Error> {
    let mut log: Vec<Entry> = Vec::new();
    while log.len() < most {
        let from = log.last().map(|(key, _)| [key.as_slice(), &[0]].concat());
        let want = (most - log.len()).min(MOST_PER_CALL) as u32;
        let chunk = store::scan(LOG, from.as_deref(), want)?;
        let ended = chunk.len() < want as usize;
        log.extend(chunk);
        if ended {
            break;
        }
    }
    Ok(log)
}

/// A block of a list as read, and its postings as the fold leaves them.
struct Block {
    read: Option<Vec<u8>>,
    postings: Vec<Posting>,
}

/// Adds `new` (ascending, distinct) to the list under `prefix`, whose open
/// block was read as `open`. Most postings are a new contact's, newer than
/// any in the list: they join the open block. An older one (a contact
/// created long ago and renamed) joins the sealed block whose range holds
/// it, found by a read of its own.
fn add_to_list(prefix: &[u8], new: &[Posting], open: Option<Vec<u8>>, commit: &mut Commit) -> Result<(), Error> {
    let open_key = [prefix, OPEN].concat();
    let open_postings = open.as_deref().map(decode).unwrap_or_default();
    let open_first = open_postings.first().copied();
    let mut blocks = BTreeMap::from([(open_key.clone(), Block { read: open, postings: open_postings })]);
    for &posting in new {
        let key = match open_first {
            Some(first) if posting < first => sealed_block_of(prefix, posting, &open_key, &mut blocks)?,
            _ => open_key.clone(),
        };
        blocks.get_mut(&key).expect("located").postings.push(posting);
    }
    for (key, mut block) in blocks {
        block.postings.sort_unstable();
        block.postings.dedup();
        let before = block.read.as_deref().map_or(0, |b| b.len() / POSTING_LEN);
        if block.postings.len() == before {
            continue;
        }
        commit.conditions.push(Condition::Equals((key.clone(), block.read)));
        if key == open_key {
            seal_and_write_open(prefix, &open_key, &block.postings, commit);
        } else {
            rewrite_sealed(prefix, &key, &block.postings, commit);
        }
    }
    Ok(())
}

/// The key of the block `posting` (older than the open block's first)
/// belongs in, read into `blocks`: the sealed block with the greatest first
/// posting not above it, or the list's first block when it is older than
/// every one.
fn sealed_block_of(
    prefix: &[u8],
    posting: Posting,
    open_key: &[u8],
    blocks: &mut BTreeMap<Vec<u8>, Block>,
) -> Result<Vec<u8>, Error> {
    let just_above = [prefix, posting.bytes(), &[0]].concat();
    let mut found = store::scan_reverse(prefix, Some(&just_above), 1)?;
    if found.is_empty() {
        found = store::scan(prefix, None, 1)?;
    }
    let Some((key, value)) = found.pop() else { return Ok(open_key.to_vec()) };
    blocks.entry(key.clone()).or_insert_with(|| Block { postings: decode(&value), read: Some(value) });
    Ok(key)
}

/// Writes the open block, sealing its oldest [`BLOCK`] postings at a time
/// while it holds more.
fn seal_and_write_open(prefix: &[u8], open_key: &[u8], postings: &[Posting], commit: &mut Commit) {
    let mut rest = postings;
    while rest.len() > BLOCK {
        let (sealed, more) = rest.split_at(BLOCK);
        let key = [prefix, sealed[0].bytes()].concat();
        commit.conditions.push(Condition::Equals((key.clone(), None)));
        commit.writes.push(Write::Put((key, encode(sealed))));
        rest = more;
    }
    commit.writes.push(Write::Put((open_key.to_vec(), encode(rest))));
}

/// Writes a sealed block that gained postings under the key of its first
/// (which an older posting changes), split in blocks of [`BLOCK`] once it
/// holds twice that.
fn rewrite_sealed(prefix: &[u8], read_key: &[u8], postings: &[Posting], commit: &mut Commit) {
    let pieces: Vec<&[Posting]> =
        if postings.len() > 2 * BLOCK { postings.chunks(BLOCK).collect() } else { vec![postings] };
    let mut kept = false;
    for piece in pieces {
        let key = [prefix, piece[0].bytes()].concat();
        if key == read_key {
            kept = true;
        } else {
            commit.conditions.push(Condition::Equals((key.clone(), None)));
        }
        commit.writes.push(Write::Put((key, encode(piece))));
    }
    if !kept {
        commit.writes.push(Write::Delete(read_key.to_vec()));
    }
}
