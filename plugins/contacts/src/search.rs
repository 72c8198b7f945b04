//! `search=`: what a contact is searched on, and the trigram index that finds
//! the few contacts holding a term without reading the others.
//!
//! - `s/<id>`: the search projection. First and last name, email, mobile,
//!   phone and company, lower case, without accents and with numbers written
//!   without separators ([`needle`]), one per line, and after them each name
//!   or company again with its initialisms joined, where it has any
//!   ([`joined_initialisms`]: `acme sas` finds `Acme S.A.S.`); a match is a
//!   literal substring of one line.
//! - `g/<trigram><posting>`: one key per distinct three-character window
//!   starting at an even position of a projection line, written and removed
//!   in the contact's own commit with its other index entries
//!   ([`crate::index::changes`]). The trigram is its UTF-8 (three whole
//!   characters, so no list's prefix is another's); the [`Posting`] is 18
//!   bytes that sort as `ix/c/<createdAt>/<id>` does. Empty values: the key
//!   says everything. Short keys on purpose: a contact has about twenty, and
//!   the store's disk and its recovery at start grow with their bytes.
//! - `meta/search-indexed-4`: contacts created with their trigram keys and
//!   a projection as [`projection`] writes it now, a counter written beside
//!   `meta/contacts`. The two differ only when the organization holds
//!   contacts written before (before the index, with accents, with the
//!   separators in numbers, or without the joined lines:
//!   `meta/search-indexed`, `-2` and `-3` then); search then scans until
//!   [`reindex`] has rewritten them (the host runs it at start). Until then
//!   a term finds such a contact only where its old projection holds it.
//!
//! Why even positions only: a term of four characters or more found at an
//! even position of a line has its trigrams at even offsets (0, 2, 4...) at
//! indexed positions, and found at an odd one, those at odd offsets. So
//! every match is in each key list of one of the term's two alignments, with
//! half the keys (and half the write cost) of indexing every position. A
//! term of three characters or fewer is a scan.
//!
//! [`matches`], for each alignment, reads a few of its lists in turns until
//! one ends (the shortest) and drops the candidates another list's read part
//! rules out; the candidates of both, newest first, are checked against
//! their projections. A term with more candidates than [`most_candidates`]
//! is [`Found::Many`]: the list walks its index instead, and the host counts
//! the matches.

use std::collections::{BTreeSet, HashSet};

use crm_first_party::raw_text::{Compared, RawFilter, joined_initialisms};
use crm_sdk::http::{self, Error, json_response};
use crm_sdk::kv;
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::{Request, Response};
use serde_json::json;

use crate::input::NUMBER_SEPARATORS;
use crate::record::{self, Contact};
use crate::unique;

/// Contacts written with their trigram keys and a projection as
/// [`projection`] writes it now (see the module note).
pub const INDEXED_KEY: &str = "meta/search-indexed-4";

/// A search whose candidates (or, without the index, matches) are at most
/// this many reads just those; more is [`Found::Many`].
const MOST_CANDIDATES: usize = 20_000;

/// Trigram lists of each alignment of a term probed; any subset finds every
/// match, since each candidate is checked against its projection.
const MOST_PROBED: usize = 4;
/// Keys of each probed list read first.
const PROBE: u32 = 128;
/// Keys per store call when following a list (the host's bound).
const CHUNK: u32 = 1000;
/// Keys of each list read before judging whether it is worth following.
const FOLLOW_BEFORE_JUDGING: usize = 2_000;

/// The candidates worth checking one by one in an organization of
/// `contacts`: a fifth of it (at least [`FOLLOW_BEFORE_JUDGING`]), at most
/// [`MOST_CANDIDATES`]. Checking a candidate (its posting, then its
/// projection) costs about ten times what the host's count of every
/// projection spends on one contact (2.9 µs against 0.27, measured at
/// 10,000 and 100,000), so past a fifth of the organization the count is
/// the cheaper way even for a term most candidates turn out not to hold.
fn most_candidates(contacts: u64) -> usize {
    (contacts / 5).clamp(FOLLOW_BEFORE_JUDGING as u64, MOST_CANDIDATES as u64) as usize
}

/// Text as the projection holds it, and a search term likewise: on one line,
/// folded ([`crm_first_party::raw_text::without_case_or_accents`]: without case or accents), so
/// `gomez` finds Gómez and `nunez` Núñez, as a Spanish speaker types on a
/// phone; and numbers without the separators people write in them
/// ([`joined_numbers`]), so `3001234567` finds `300 123 4567` and
/// `604 444 5555` finds `(604) 444-5555`.
pub fn needle(term: &str) -> String {
    joined_numbers(&crm_first_party::raw_text::without_case_or_accents(&term.replace('\n', " ")))
}

/// A search term as [`needle`] folds it, and a whole Colombian number with
/// its country code (`+57 300 123 4567`) as its ten national digits, so it
/// also finds a mobile stored without them; a term so shortened still finds
/// every text that holds the whole term.
pub fn term(text: &str) -> String {
    let folded = needle(text);
    match unique::national_number(&folded) {
        national if national.len() < folded.len() && folded.bytes().all(|b| b.is_ascii_digit()) => national.to_string(),
        _ => folded,
    }
}

/// The byte test of a stored record some text of which, made a [`needle`]
/// (or that needle's [`joined_initialisms`]), may hold `term` (a needle
/// too). A term without a digit is found in the record's folded text as it
/// is, but for the dots of initialisms (only separators beside a digit are
/// dropped); one with a digit may have been joined across separators the
/// record still holds, so it gets no byte test and every record is decoded.
pub fn raw_filter(term: &str) -> RawFilter {
    let mut filter = RawFilter::default();
    if !term.bytes().any(|b| b.is_ascii_digit()) {
        filter.any_of([term], Compared::FoldedOrJoined);
    }
    filter
}

/// Whether `text` holds `term` (a needle) as search sees it: made a
/// [`needle`], or that needle with its initialisms joined.
pub fn holds(text: &str, term: &str) -> bool {
    let needle = needle(text);
    needle.contains(term) || joined_initialisms(&needle).is_some_and(|joined| joined.contains(term))
}

/// `text` without the runs of [`NUMBER_SEPARATORS`] that sit inside a number
/// (a digit on each side) or at an end of the text beside a digit. A text
/// holding a term still holds it after both lose these runs, since the term
/// loses each run its text loses (a run the term cuts at its end is dropped
/// from the term whenever a digit follows); only a term made of separators
/// alone (`-`) can stop matching.
fn joined_numbers(text: &str) -> String {
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut joined = String::with_capacity(text.len());
    let mut at = 0;
    while at < chars.len() {
        if !NUMBER_SEPARATORS.contains(&chars[at]) {
            joined.push(chars[at]);
            at += 1;
            continue;
        }
        let end = (at..chars.len()).find(|&i| !NUMBER_SEPARATORS.contains(&chars[i])).unwrap_or(chars.len());
        let digit_before = at.checked_sub(1).map(|i| chars[i].is_ascii_digit());
        let digit_after = chars.get(end).map(char::is_ascii_digit);
        let inside_a_number = match (digit_before, digit_after) {
            (Some(before), Some(after)) => before && after,
            (None, Some(beside)) | (Some(beside), None) => beside,
            (None, None) => false,
        };
        if !inside_a_number {
            joined.extend(&chars[at..end]);
        }
        at = end;
    }
    joined
}

/// Where a contact's projection is stored.
pub fn projection_key(id: &str) -> String {
    format!("s/{id}")
}

/// The fields `search` looks in, one per line: first and last name, email,
/// mobile, phone, company; then the names and company whose initialisms
/// join, joined.
pub fn projection(c: &Contact) -> String {
    // Each field, and whether it may hold initialisms (an email or a number does not).
    let fields = [
        (&c.first_name, true),
        (&c.last_name, true),
        (&c.email, false),
        (&c.mobile, false),
        (&c.phone, false),
        (&c.company, true),
    ];
    let lines: Vec<(String, bool)> =
        fields.iter().map(|(f, words)| (needle(f.as_deref().unwrap_or("")), *words)).collect();
    let joined = lines.iter().filter(|(_, words)| *words).filter_map(|(line, _)| joined_initialisms(line));
    let joined: Vec<String> = joined.collect();
    lines.into_iter().map(|(line, _)| line).chain(joined).collect::<Vec<_>>().join("\n")
}

/// Where a contact sits in every trigram list: its creation time (6 bytes of
/// milliseconds) and its id (12 bytes), big-endian, so byte order is the
/// order of `ix/c/<createdAt>/<id>`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Posting([u8; POSTING_LEN]);

const POSTING_LEN: usize = 18;

impl Posting {
    /// `c`'s posting. Every contact's id is 24 hex characters (the host's
    /// `new-id`) and its `createdAt` the host's RFC 3339 (one that did not
    /// parse would sort as the oldest, nothing worse).
    fn of(c: &Contact) -> Posting {
        Posting::new(&c.created_at, &c.id)
    }

    /// The posting of the creation index's entry `<createdAt>/<id>`.
    fn of_entry(entry: &[u8]) -> Posting {
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

    /// The posting a list key ends with.
    fn from_key(key: &[u8]) -> Option<Posting> {
        key.len().checked_sub(POSTING_LEN).map(|start| Posting(key[start..].try_into().expect("18 bytes")))
    }

    /// The contact's id, as 24 hex characters.
    pub fn id(&self) -> String {
        crm_sdk::id_text(self.0[6..].try_into().expect("12 bytes"))
    }
}

/// The trigrams at even positions of one line of text: those it is indexed by.
fn indexed_trigrams(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    chars.windows(3).step_by(2).map(String::from_iter).collect()
}

/// The distinct trigrams of a term at even offsets and at odd ones, each a
/// sample of at most [`MOST_PROBED`] (any subset finds every match); `None`
/// for a term of three characters or fewer.
fn alignments(term: &str) -> Option<[Vec<String>; 2]> {
    let chars: Vec<char> = term.chars().collect();
    if chars.len() < 4 {
        return None;
    }
    let mut sets: [BTreeSet<String>; 2] = Default::default();
    for (offset, window) in chars.windows(3).enumerate() {
        sets[offset % 2].insert(String::from_iter(window));
    }
    Some(sets.map(|set| {
        let grams: Vec<String> = set.into_iter().collect();
        let step = grams.len().div_ceil(MOST_PROBED).max(1);
        grams.into_iter().step_by(step).collect()
    }))
}

fn list_prefix(trigram: &str) -> Vec<u8> {
    format!("g/{trigram}").into_bytes()
}

/// The trigram keys of `c`, from its projection `projected`.
pub fn keys(c: &Contact, projected: &str) -> Vec<Vec<u8>> {
    let grams: BTreeSet<String> = projected.split('\n').flat_map(indexed_trigrams).collect();
    let posting = Posting::of(c);
    grams.iter().map(|g| [list_prefix(g).as_slice(), &posting.0].concat()).collect()
}

/// What a search found.
pub enum Found {
    /// Every match, by id, newest first.
    Newest(Vec<String>),
    /// Every match, by id, in no useful order (found by a scan).
    Ids(Vec<String>),
    /// More than [`most_candidates`]: walk and test instead.
    Many,
}

/// The contacts whose searched fields contain `needle` (from [`needle`]).
pub fn matches(needle: &str) -> Result<Found, Error> {
    let (Some(contacts), Some(alignments)) = (indexed_contacts()?, alignments(needle)) else { return scan(needle) };
    let mut candidates = Vec::new();
    for grams in &alignments {
        match holding_all(grams, contacts)? {
            Some(found) => candidates.extend(found),
            None => return Ok(Found::Many),
        }
    }
    candidates.sort_unstable_by(|a, b| b.cmp(a));
    candidates.dedup();
    if candidates.len() > most_candidates(contacts) {
        return Ok(Found::Many);
    }
    let ids: Vec<String> = candidates.iter().map(Posting::id).collect();
    Ok(Found::Newest(matching(ids, needle)?))
}

/// The contacts whose keys include every trigram of `grams`, or some more
/// (candidates), newest first; `None` past [`most_candidates`].
fn holding_all(grams: &[String], contacts: u64) -> Result<Option<Vec<Posting>>, Error> {
    let mut probes = Vec::with_capacity(grams.len());
    for gram in grams {
        probes.push(Probe::read(gram)?);
    }
    // A rare term's lists end soon; lists still going past that are judged
    // before they are followed far, and those likely past the bound only
    // rule candidates out.
    let every: Vec<usize> = (0..probes.len()).collect();
    let mut chosen = race(&mut probes, &every, FOLLOW_BEFORE_JUDGING)?;
    if chosen.is_none() {
        let mut likely_short = Vec::new();
        for i in every {
            if !too_dense(&probes[i], contacts)? {
                likely_short.push(i);
            }
        }
        chosen = race(&mut probes, &likely_short, most_candidates(contacts))?;
    }
    let Some(chosen) = chosen else { return Ok(None) };
    Ok(Some(
        probes[chosen]
            .entries
            .iter()
            .filter(|e| probes.iter().enumerate().all(|(j, p)| j == chosen || !p.rules_out(e)))
            .copied()
            .collect(),
    ))
}

/// Reads the lists of `racing` a chunk each in turns until one ends, and
/// answers the shortest that did; `None` once every one holds more than
/// `most` keys. Turns rather than a guess at the sparsest list: a list can
/// look sparse among the newest contacts and hold a hundred thousand older
/// ones (`er4` of `user4242`), and the turns cost at most a chunk per list
/// more than the shortest list's length.
fn race(probes: &mut [Probe], racing: &[usize], most: usize) -> Result<Option<usize>, Error> {
    loop {
        let ended = racing.iter().copied().filter(|&i| probes[i].complete);
        if let Some(shortest) = ended.min_by_key(|&i| probes[i].entries.len()) {
            return Ok(Some(shortest));
        }
        let going: Vec<usize> = racing.iter().copied().filter(|&i| probes[i].entries.len() <= most).collect();
        if going.is_empty() {
            return Ok(None);
        }
        for i in going {
            probes[i].read_more(CHUNK)?;
        }
    }
}

/// The newest postings of one trigram's list, newest first.
struct Probe {
    prefix: Vec<u8>,
    entries: Vec<Posting>,
    /// Every key of the list is in `entries`.
    complete: bool,
    /// `entries` as a set, to rule candidates out.
    set: HashSet<Posting>,
}

impl Probe {
    fn read(gram: &str) -> Result<Probe, Error> {
        let prefix = list_prefix(gram);
        let mut probe = Probe { prefix, entries: Vec::new(), complete: false, set: HashSet::new() };
        probe.read_more(PROBE)?;
        Ok(probe)
    }

    /// Reads up to `n` more keys; marks the list complete at its end.
    fn read_more(&mut self, n: u32) -> Result<(), Error> {
        let before = self.entries.last().map(|e| [self.prefix.as_slice(), &e.0].concat());
        let keys = store::scan_reverse(&self.prefix, before.as_deref(), n)?;
        self.complete = keys.len() < n as usize;
        let read: Vec<Posting> = keys.iter().filter_map(|(k, _)| Posting::from_key(k)).collect();
        self.set.extend(read.iter().copied());
        self.entries.extend(read);
        Ok(())
    }

    /// `entry` is within the part read and not in it: not a match.
    fn rules_out(&self, entry: &Posting) -> bool {
        (self.complete || self.entries.last().is_none_or(|oldest| entry >= oldest)) && !self.set.contains(entry)
    }
}

/// How many contacts there are, when every one has its trigram keys (see
/// the module note).
fn indexed_contacts() -> Result<Option<u64>, Error> {
    let counters = kv::get_many_raw(&[unique::COUNT_KEY.to_string(), INDEXED_KEY.to_string()])?;
    let (contacts, indexed) = (kv::counter_value(counters[0].as_deref()), kv::counter_value(counters[1].as_deref()));
    Ok((contacts == indexed).then_some(contacts))
}

/// Whether a probed list is likely to hold more than [`most_candidates`]
/// keys: its first [`PROBE`] keys all lie among the newest `PROBE ×
/// contacts / most_candidates` contacts. Saves following a list only to stop
/// at the bound; a wrong guess costs time, never a wrong answer.
fn too_dense(probe: &Probe, contacts: u64) -> Result<bool, Error> {
    let rank = PROBE as u64 * contacts / most_candidates(contacts) as u64;
    if rank <= PROBE as u64 {
        return Ok(false);
    }
    let mut before: Option<Vec<u8>> = None;
    let mut left = rank;
    while left > 0 {
        let keys = store::scan_reverse(b"ix/c/", before.as_deref(), left.min(CHUNK as u64) as u32)?;
        let Some((last, _)) = keys.last() else { return Ok(false) };
        left = left.saturating_sub(keys.len() as u64);
        if keys.len() < CHUNK as usize && left > 0 {
            return Ok(false);
        }
        before = Some(last.clone());
    }
    let nth_newest = Posting::of_entry(&before.expect("read")[b"ix/c/".len()..]);
    Ok(probe.entries.get(PROBE as usize - 1).is_some_and(|e| *e >= nth_newest))
}

/// Without the index: the host scans every projection.
fn scan(needle: &str) -> Result<Found, Error> {
    let keys = store::find(b"s/", needle.as_bytes(), MOST_CANDIDATES as u32 + 1)?;
    Ok(match keys.len() > MOST_CANDIDATES {
        true => Found::Many,
        false => Found::Ids(keys.iter().map(|k| crate::record::id_of(k)).collect()),
    })
}

/// The contacts of `ids` whose searched fields contain `needle`, in order.
pub fn matching(ids: Vec<String>, needle: &str) -> Result<Vec<String>, Error> {
    let keys: Vec<String> = ids.iter().map(|id| projection_key(id)).collect();
    let projections = kv::get_many_raw(&keys)?;
    Ok(ids
        .into_iter()
        .zip(projections)
        .filter(|(_, p)| p.as_deref().is_some_and(|p| std::str::from_utf8(p).is_ok_and(|p| p.contains(needle))))
        .map(|(id, _)| id)
        .collect())
}

/// Contacts one reindex call goes through; the caller sends `after` again.
const REINDEX_PAGE: usize = 5_000;
/// Contacts written together.
const REINDEX_CHUNK: u32 = 256;

/// `POST /admin/contacts/reindex` `{after?}` (on the admin API as
/// `POST /admin/orgs/{org}/contacts/reindex`; `crm-host admin contacts
/// reindex ORG` repeats it): [`reindex_page`], answered as `{indexed, next}`.
pub fn reindex(req: &Request) -> Result<Response, Error> {
    let body = if req.body.is_empty() { Default::default() } else { http::json_object(req)? };
    let after = match body.get("after") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) if s.len() < 200 => Some(s.clone()),
        Some(_) => {
            return Err(Error::validation("after must be the cursor a reindex answered", json!({ "field": "after" })));
        }
    };
    let (indexed, next) = reindex_page(after)?;
    Ok(json_response(200, &json!({ "success": true, "indexed": indexed, "next": next })))
}

/// Writes the trigram keys of up to [`REINDEX_PAGE`] contacts in creation
/// order after the cursor `after`; answers how many, and the cursor to go on
/// from (`None` once every contact is indexed: search then uses the index).
/// Safe to repeat and to run under writes. A first call to an organization
/// whose index is current answers at once (`0`): the host calls it (the
/// `contacts-upkeep` export) for every organization at start.
pub fn reindex_page(mut after: Option<String>) -> Result<(usize, Option<String>), Error> {
    if after.is_none() && indexed_contacts()?.is_some() {
        return Ok((0, None));
    }
    let mut indexed = 0usize;
    while indexed < REINDEX_PAGE {
        let start = after.as_ref().map(|a| format!("ix/c/{a}\u{0}").into_bytes());
        let chunk = store::scan(b"ix/c/", start.as_deref(), REINDEX_CHUNK)?;
        let Some((last, _)) = chunk.last() else { break };
        let entries: Vec<String> = chunk.iter().map(|(k, _)| String::from_utf8_lossy(&k[5..]).into_owned()).collect();
        index_chunk(&entries)?;
        indexed += entries.len();
        after = Some(String::from_utf8_lossy(&last[5..]).into_owned());
        if chunk.len() < REINDEX_CHUNK as usize {
            after = None;
            break;
        }
    }
    if after.is_none() {
        mark_indexed()?;
    }
    Ok((indexed, after))
}

/// Writes the projection and trigram keys of the contacts of `entries`, each
/// as its record is now, and deletes the keys of the projection it replaces
/// (one written with accents, say): the commit holds only while no record
/// changed since it was read.
fn index_chunk(entries: &[String]) -> Result<(), Error> {
    let ids: Vec<String> = entries.iter().map(|e| crate::record::id_of(e.as_bytes())).collect();
    let keys: Vec<String> =
        ids.iter().map(|id| record::key(id)).chain(ids.iter().map(|id| projection_key(id))).collect();
    for _ in 0..16 {
        let mut raws = kv::get_many_raw(&keys)?;
        let projections = raws.split_off(ids.len());
        let (mut conditions, mut writes) = (Vec::new(), Vec::new());
        for ((key, raw), before) in keys[..ids.len()].iter().zip(raws).zip(projections) {
            conditions.push(Condition::Equals((key.clone().into_bytes(), raw.clone())));
            if let Some(raw) = raw {
                let c: Contact = kv::decode(key, &raw)?;
                let projected = projection(&c);
                let now: BTreeSet<Vec<u8>> = self::keys(&c, &projected).into_iter().collect();
                let before = before.and_then(|b| String::from_utf8(b).ok()).filter(|b| *b != projected);
                let stale =
                    before.map(|b| self::keys(&c, &b)).unwrap_or_default().into_iter().filter(|k| !now.contains(k));
                writes.extend(stale.map(Write::Delete));
                writes.extend(now.into_iter().map(|k| Write::Put((k, Vec::new()))));
                writes.push(Write::Put((projection_key(&c.id).into_bytes(), projected.into_bytes())));
            }
        }
        if store::commit(&conditions, &writes)? {
            return Ok(());
        }
    }
    Err(Error::new(503, "BUSY", "Contacts kept changing while being indexed; run the reindex again"))
}

/// Every contact has its keys: the index counter takes the contacts' count,
/// as long as no contact is created meanwhile (each of those is indexed).
fn mark_indexed() -> Result<(), Error> {
    for _ in 0..16 {
        let raw = store::get(unique::COUNT_KEY.as_bytes())?;
        let count = raw.as_deref().map(|v| v.to_vec()).unwrap_or_else(|| b"0".to_vec());
        let condition = Condition::Equals((unique::COUNT_KEY.as_bytes().to_vec(), raw));
        if store::commit(&[condition], &[Write::Put((INDEXED_KEY.as_bytes().to_vec(), count))])? {
            return Ok(());
        }
    }
    Err(Error::new(503, "BUSY", "Contacts kept being created; run the reindex again"))
}
