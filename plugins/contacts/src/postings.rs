//! The trigram lists behind `search=`, kept so that a contact's write
//! touches one key of them, not one per trigram:
//!
//! - `n/<epoch><posting>`, the log: a create, or an update that changes what
//!   search sees, writes its contact's entry, the projection as value, in
//!   the contact's own commit ([`crate::index::changes`]), under the log's
//!   open epoch ([`Epoch`]).
//! - `b/<trigram><first posting>`, a list's sealed blocks, and
//!   `b/<trigram>` + [`OPEN`], its open block: postings, ascending, 18 bytes
//!   each. The blocks of a list hold disjoint ranges in key order, the open
//!   one the newest; a list with any posting has an open block, and the open
//!   block seals its oldest [`BLOCK`] postings once it holds more.
//! - [`fold`] moves the log into the lists an epoch at a time, and deletes
//!   it: the host calls it (the `contacts-upkeep` export) every 200 ms after
//!   contacts are written, the admin API's reindex at once. A fold rewrites one open block per trigram it
//!   touches, not one key per contact and trigram.
//!
//! Why epochs: an LSM store keeps a deleted key's tombstone until a
//! compaction reaches its last level, and a scan steps over every one, so a
//! log read from its start would cross the whole history of folded entries
//! (70 ms after a million). Readers start at the first epoch not yet folded
//! instead. Three counters make that safe: writers write to the epoch
//! `meta/search-epoch`, and their commit requires it to be at or above
//! `meta/search-sealed`, so no entry lands in an epoch once sealed; a fold
//! moves the open epoch on, seals those [`LAG`] behind, folds sealed epochs
//! and then moves `meta/search-folded` past them.
//!
//! Search reads the log from `meta/search-folded` first ([`logged`]), then
//! the lists ([`List`]): a fold committed between the two leaves what it
//! moved in the lists read after. The lists only gain postings: a renamed
//! contact keeps its old trigrams' postings, and the log may hold an
//! earlier projection of a contact beside its latest; search rules both out
//! against the projection ([`crate::search::matching`]).

use std::collections::{BTreeMap, BTreeSet};

use crm_sdk::http::Error;
use crm_sdk::kv;
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
        key.last_chunk::<POSTING_LEN>().map(|posting| Posting(*posting))
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
/// Epochs searched by the host one at a time; a log spread over more (a
/// fold far behind) makes search walk the contacts instead.
const MOST_EPOCHS: u64 = 16;
/// Pairs per store call (the host's bound).
const MOST_PER_CALL: usize = 1000;
/// Epochs between the open one and those sealed: a write may take up to
/// this many folds (400 ms) between reading the epoch and its commit before
/// its commit is refused (and the write tried again).
const LAG: u64 = 2;

const LOG: &[u8] = b"n/";
const EPOCH_KEY: &str = "meta/search-epoch";
const SEALED_KEY: &str = "meta/search-sealed";
const FOLDED_KEY: &str = "meta/search-folded";

/// The log's open epoch, as a write read it.
pub struct Epoch(u64);

impl Epoch {
    pub fn open() -> Result<Epoch, store::Error> {
        Ok(Epoch(kv::counter_value(store::get(EPOCH_KEY.as_bytes())?.as_deref())))
    }

    /// `c`'s log entry with its projection `projected`, for the commit that writes it.
    pub fn entry(&self, c: &Contact, projected: &str) -> Write {
        self.put(Posting::of(c), projected.as_bytes().to_vec())
    }

    fn put(&self, posting: Posting, projected: Vec<u8>) -> Write {
        Write::Put(([epoch_prefix(self.0).as_slice(), posting.bytes()].concat(), projected))
    }

    /// What that commit requires: the epoch not sealed meanwhile.
    pub fn condition(&self) -> Condition {
        Condition::Below((SEALED_KEY.as_bytes().to_vec(), self.0 + 1))
    }
}

/// A contact's entry in the log before its epoch is chosen: it takes the
/// epoch open when its commit is made ([`commit_logging`]). A chunk of an
/// import reads the store for up to a hundred rows before it commits; under
/// the epoch its first row read, a slow store (PostgreSQL beside a debug
/// host: half a second a chunk) saw more than [`LAG`] folds meanwhile, and
/// the chunk was refused with nothing else changed.
pub struct Unlogged {
    posting: Posting,
    projected: Vec<u8>,
}

impl Unlogged {
    pub fn new(c: &Contact, projected: &str) -> Unlogged {
        Unlogged { posting: Posting::of(c), projected: projected.as_bytes().to_vec() }
    }
}

/// Commits `writes` under `conditions`, with `entries` in the log's epoch
/// read just before: `false` when the commit was refused.
pub fn commit_logging(
    mut conditions: Vec<Condition>,
    mut writes: Vec<Write>,
    entries: Vec<Unlogged>,
) -> Result<bool, store::Error> {
    if !entries.is_empty() {
        let epoch = Epoch::open()?;
        writes.extend(entries.into_iter().map(|e| epoch.put(e.posting, e.projected)));
        conditions.push(epoch.condition());
    }
    store::commit(&conditions, &writes)
}

fn epoch_prefix(epoch: u64) -> Vec<u8> {
    [LOG, &(epoch as u32).to_be_bytes()].concat()
}

/// The log's counters as read: the open epoch, the first not sealed, the
/// first not folded.
struct Counters {
    epoch: Counter,
    sealed: Counter,
    folded: Counter,
}

/// One counter as read: its value, and its bytes, which a fold's commit
/// requires unchanged (a counter a commit bounds may be stored as `0`, or
/// absent).
struct Counter {
    key: &'static str,
    value: u64,
    read: Option<Vec<u8>>,
}

impl Counters {
    fn read() -> Result<Counters, Error> {
        let keys = [EPOCH_KEY, SEALED_KEY, FOLDED_KEY];
        let mut read = kv::get_many_raw(&keys.map(String::from))?.into_iter();
        let [epoch, sealed, folded] = keys.map(|key| {
            let read = read.next().flatten();
            Counter { key, value: kv::counter_value(read.as_deref()), read }
        });
        Ok(Counters { epoch, sealed, folded })
    }
}

impl Counter {
    /// The counter as read.
    fn unchanged(&self) -> Condition {
        Condition::Equals((self.key.as_bytes().to_vec(), self.read.clone()))
    }

    /// Writes `value` to the counter, and remembers it as read.
    fn set(&mut self, value: u64) -> Write {
        self.value = value;
        self.read = Some(value.to_string().into_bytes());
        Write::Put((self.key.as_bytes().to_vec(), value.to_string().into_bytes()))
    }
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
    block.as_chunks::<POSTING_LEN>().0.iter().map(|p| Posting(*p)).collect()
}

fn encode(postings: &[Posting]) -> Vec<u8> {
    postings.iter().flat_map(|p| p.0).collect()
}

/// The epochs of the log a search reads: from the first not folded to the
/// open one.
pub struct Unfolded {
    folded: u64,
    epoch: u64,
}

impl Unfolded {
    /// Where they are read from, for a caller's own `get-many`.
    pub const KEYS: [&str; 2] = [FOLDED_KEY, EPOCH_KEY];

    /// From the stored values of [`Self::KEYS`].
    pub fn from_values(values: &[Option<Vec<u8>>]) -> Unfolded {
        let [folded, epoch] = [0, 1].map(|i| kv::counter_at(values, i));
        Unfolded { folded, epoch }
    }
}

/// The contacts the log holds a projection of with `needle` in it (their
/// latest, or one before): candidates to check; `None` past `most`, or when
/// the log is spread over more than [`MOST_EPOCHS`] epochs.
pub fn logged(needle: &str, most: usize, unfolded: &Unfolded) -> Result<Option<Vec<Posting>>, Error> {
    let &Unfolded { folded, epoch } = unfolded;
    let first = store::scan(LOG, Some(&epoch_prefix(folded)), SMALL_LOG)?;
    let mut found: Vec<Posting> = Vec::new();
    if first.len() < SMALL_LOG as usize {
        let holds = |projected: &[u8]| std::str::from_utf8(projected).is_ok_and(|p| p.contains(needle));
        found.extend(first.iter().filter(|(_, p)| holds(p)).filter_map(|(key, _)| Posting::from_key(key)));
    } else if epoch.saturating_sub(folded) >= MOST_EPOCHS {
        return Ok(None);
    } else {
        for e in folded..=epoch {
            let keys = store::find(&epoch_prefix(e), needle.as_bytes(), most as u32 + 1)?;
            found.extend(keys.iter().filter_map(|key| Posting::from_key(key)));
        }
    }
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

/// Folds the sealed epochs of the log, up to [`FOLD_ROUNDS`] ×
/// [`FOLD_BATCH`] entries, then moves the open epoch on while the log holds
/// entries no fold may take yet, sealing those [`LAG`] behind; answers how
/// many entries it folded. `at_once`: first seals every epoch written to,
/// and folds them all (a write still holding one is refused and tried
/// again). Safe beside writes and beside another fold: a commit holds only
/// while the blocks and counters it read are unchanged, and folding an
/// entry twice adds nothing.
pub fn fold(at_once: bool) -> Result<usize, Error> {
    if at_once {
        for _ in 0..16 {
            let mut counters = Counters::read()?;
            let sealing = counters.epoch.value + 1;
            if move_on(&mut counters, sealing)? {
                break;
            }
        }
    }
    let mut counters = Counters::read()?;
    let most = if at_once { usize::MAX } else { FOLD_ROUNDS };
    let (mut moved, mut batches) = (0, 0);
    while counters.folded.value < counters.sealed.value && batches < most {
        let folded = counters.folded.value;
        let (entries, done) = fold_epoch(folded, most - batches)?;
        moved += entries;
        batches += entries.div_ceil(FOLD_BATCH).max(1);
        if !done {
            return Ok(moved);
        }
        let condition = counters.folded.unchanged();
        let write = counters.folded.set(folded + 1);
        if !store::commit(&[condition], &[write])? {
            return Ok(moved);
        }
    }
    if !at_once && !store::scan(LOG, Some(&epoch_prefix(counters.sealed.value)), 1)?.is_empty() {
        let sealing = (counters.epoch.value + 1).saturating_sub(LAG);
        move_on(&mut counters, sealing)?;
    }
    Ok(moved)
}

/// Opens the epoch after the open one and seals those below `sealing`,
/// unless another fold moved them first (`false`).
fn move_on(counters: &mut Counters, sealing: u64) -> Result<bool, Error> {
    let conditions = [counters.epoch.unchanged(), counters.sealed.unchanged()];
    let mut writes = vec![counters.epoch.set(counters.epoch.value + 1)];
    if sealing > counters.sealed.value {
        writes.push(counters.sealed.set(sealing));
    }
    Ok(store::commit(&conditions, &writes)?)
}

/// Folds and deletes up to `batches` × [`FOLD_BATCH`] entries of a sealed
/// epoch (no write adds to it any more); answers how many, and whether the
/// epoch is empty now.
fn fold_epoch(epoch: u64, batches: usize) -> Result<(usize, bool), Error> {
    let prefix = epoch_prefix(epoch);
    let (mut moved, mut from) = (0, None::<Vec<u8>>);
    for _ in 0..batches {
        let log = read_log(&prefix, from.as_deref(), FOLD_BATCH)?;
        let Some((last, _)) = log.last() else { return Ok((moved, true)) };
        from = Some([last.as_slice(), &[0]].concat());
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
        let deletes: Vec<Write> = log.iter().map(|(key, _)| Write::Delete(key.clone())).collect();
        store::commit(&[], &deletes)?;
        moved += log.len();
        if log.len() < FOLD_BATCH {
            return Ok((moved, true));
        }
    }
    Ok((moved, false))
}

/// One commit of a fold: what it requires and what it writes.
#[derive(Default)]
struct Commit {
    conditions: Vec<Condition>,
    writes: Vec<Write>,
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
    Err(Error::new(503, "BUSY", "Another fold kept changing the same search lists; it is tried again"))
}

/// A log entry: its key and the projection it logged.
type Entry = (Vec<u8>, Vec<u8>);

/// Up to `most` log entries under `prefix` from `from` on.
fn read_log(prefix: &[u8], from: Option<&[u8]>, most: usize) -> Result<Vec<Entry>, Error> {
    let mut log: Vec<Entry> = Vec::new();
    let mut from = from.map(<[u8]>::to_vec);
    while log.len() < most {
        let want = (most - log.len()).min(MOST_PER_CALL) as u32;
        let chunk = store::scan(prefix, from.as_deref(), want)?;
        let ended = chunk.len() < want as usize;
        from = chunk.last().map(|(key, _)| [key.as_slice(), &[0]].concat());
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
    // While it holds more than a block.
    while let Some((sealed, more)) = rest.split_first_chunk::<BLOCK>().filter(|(_, more)| !more.is_empty()) {
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
        let Some(first) = piece.first() else { continue };
        let key = [prefix, first.bytes()].concat();
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
