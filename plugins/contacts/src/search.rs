//! `search=`: what a contact is searched on, and the trigram index that finds
//! the few contacts holding a term without reading the others.
//!
//! - `s/<id>`: the search projection. First and last name, email, mobile,
//!   phone and company, lower case, without accents and with numbers written
//!   without separators ([`needle`]), one per line, and after them each name
//!   or company again with its initialisms joined, where it has any
//!   ([`joined_initialisms`]: `acme sas` finds `Acme S.A.S.`); a match is a
//!   literal substring of one line.
//! - The trigram lists ([`crate::postings`]): for each distinct
//!   three-character window starting at an even position of a projection
//!   line, the contacts whose projection has it, in blocks of postings that
//!   sort as `ix/c/<createdAt>/<id>` does, fed through a log that the
//!   contact's own commit writes one key of.
//! - `meta/search-indexed-5`: contacts created with a log entry and a
//!   projection as [`projection`] writes it now, a counter written beside
//!   `meta/contacts`. The two differ only when the organization holds
//!   contacts written before (before the index, with accents, with the
//!   separators in numbers, without the joined lines, or with a key per
//!   trigram and contact: `meta/search-indexed`, `-2`, `-3` and `-4` then);
//!   search then scans until [`crate::reindex`] has rewritten them (the host
//!   runs it at start). Until then a term finds such a contact only where
//!   its old projection holds it.
//!
//! Why even positions only: a term of four characters or more found at an
//! even position of a line has its trigrams at even offsets (0, 2, 4...) at
//! indexed positions, and found at an odd one, those at odd offsets. So
//! every match is in each key list of one of the term's two alignments, with
//! half the keys (and half the write cost) of indexing every position. A
//! term of three characters or fewer is a scan.
//!
//! [`matches()`], for each alignment, reads a few of its lists in turns until
//! one ends (the shortest) and drops the candidates another list's read part
//! rules out; the candidates of both, newest first, are checked against
//! their projections, with the contacts the lists' log holds the term for.
//! A term with more candidates than [`most_candidates`] is [`Found::Many`]:
//! the list walks its index instead, and the host counts the matches.

use std::collections::{BTreeSet, HashSet};

use crm_first_party::raw_text::{Compared, RawFilter, joined_initialisms};
use crm_sdk::http::Error;
use crm_sdk::kv;
use crm_sdk::store;

use crate::input::NUMBER_SEPARATORS;
use crate::postings::{self, List, Posting, Unfolded};
use crate::record::Contact;
use crate::unique;

/// Contacts written with a log entry and a projection as [`projection`]
/// writes it now (see the module note).
pub const INDEXED_KEY: &str = "meta/search-indexed-5";

/// A search whose candidates (or, without the index, matches) are at most
/// this many reads just those; more is [`Found::Many`].
const MOST_CANDIDATES: usize = 20_000;

/// Trigram lists of each alignment of a term probed; any subset finds every
/// match, since each candidate is checked against its projection.
const MOST_PROBED: usize = 4;
/// Postings of each probed list read first.
const PROBE: u32 = 128;
/// Postings read at a time when following a list.
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
    let separator = |c: &char| NUMBER_SEPARATORS.contains(c);
    let chars: Vec<char> = text.chars().collect();
    let mut joined = String::with_capacity(text.len());
    // Runs of separators between runs of other characters.
    let mut runs = chars.chunk_by(|a, b| separator(a) == separator(b)).peekable();
    let mut before: Option<char> = None;
    while let Some(run) = runs.next() {
        let digit_before = before.as_ref().map(char::is_ascii_digit);
        let digit_after = runs.peek().and_then(|next| next.first()).map(char::is_ascii_digit);
        let inside_a_number = match (digit_before, digit_after) {
            (Some(before), Some(after)) => before && after,
            (None, Some(beside)) | (Some(beside), None) => beside,
            (None, None) => false,
        };
        if !run.first().is_some_and(separator) || !inside_a_number {
            joined.extend(run);
        }
        before = run.last().copied();
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

/// The distinct trigrams of a term at even offsets and at odd ones, each a
/// sample of at most [`MOST_PROBED`] (any subset finds every match); `None`
/// for a term of three characters or fewer.
fn alignments(term: &str) -> Option<[Vec<String>; 2]> {
    let chars: Vec<char> = term.chars().collect();
    if chars.len() < 4 {
        return None;
    }
    let at = |start: usize| chars.windows(3).skip(start).step_by(2).map(String::from_iter).collect::<BTreeSet<_>>();
    Some([at(0), at(1)].map(|set| {
        let grams: Vec<String> = set.into_iter().collect();
        let step = grams.len().div_ceil(MOST_PROBED).max(1);
        grams.into_iter().step_by(step).collect()
    }))
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
    // The index's counters and the log's, in one store call.
    let keys = [unique::COUNT_KEY, INDEXED_KEY].into_iter().chain(Unfolded::KEYS).map(String::from);
    let counters = kv::get_many_raw(&keys.collect::<Vec<_>>())?;
    let (index, log) = counters.split_at_checked(2).unwrap_or((&counters, &[]));
    let (Some(contacts), Some(alignments)) = (indexed(index), alignments(needle)) else { return scan(needle) };
    // The log before the lists (see `postings`).
    let unfolded = Unfolded::from_values(log);
    let Some(mut candidates) = postings::logged(needle, most_candidates(contacts), &unfolded)? else {
        return Ok(Found::Many);
    };
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
        for (i, probe) in probes.iter().enumerate() {
            if !too_dense(probe, contacts)? {
                likely_short.push(i);
            }
        }
        chosen = race(&mut probes, &likely_short, most_candidates(contacts))?;
    }
    let Some((chosen, probe)) = chosen.and_then(|i| Some((i, probes.get(i)?))) else { return Ok(None) };
    Ok(Some(
        probe
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
        let probed = || racing.iter().filter_map(|&i| Some((i, probes.get(i)?)));
        if let Some((shortest, _)) = probed().filter(|(_, p)| p.complete).min_by_key(|(_, p)| p.entries.len()) {
            return Ok(Some(shortest));
        }
        let going: Vec<usize> = probed().filter(|(_, p)| p.entries.len() <= most).map(|(i, _)| i).collect();
        if going.is_empty() {
            return Ok(None);
        }
        for i in going {
            if let Some(probe) = probes.get_mut(i) {
                probe.read_more(CHUNK)?;
            }
        }
    }
}

/// The newest postings of one trigram's list, newest first.
struct Probe {
    list: List,
    entries: Vec<Posting>,
    /// Every posting of the list is in `entries`.
    complete: bool,
    /// `entries` as a set, to rule candidates out.
    set: HashSet<Posting>,
}

impl Probe {
    fn read(gram: &str) -> Result<Probe, Error> {
        let mut probe = Probe { list: List::new(gram), entries: Vec::new(), complete: false, set: HashSet::new() };
        probe.read_more(PROBE)?;
        Ok(probe)
    }

    /// Reads at least `n` more postings; marks the list complete at its end.
    fn read_more(&mut self, n: u32) -> Result<(), Error> {
        let read = self.list.read(n as usize)?;
        self.complete = self.list.ended();
        self.set.extend(read.iter().copied());
        self.entries.extend(read);
        Ok(())
    }

    /// `entry` is within the part read and not in it: not a match.
    fn rules_out(&self, entry: &Posting) -> bool {
        (self.complete || self.entries.last().is_none_or(|oldest| entry >= oldest)) && !self.set.contains(entry)
    }
}

/// How many contacts there are, when every one is in the index (see
/// the module note).
pub fn indexed_contacts() -> Result<Option<u64>, Error> {
    Ok(indexed(&kv::get_many_raw(&[unique::COUNT_KEY.to_string(), INDEXED_KEY.to_string()])?))
}

/// [`indexed_contacts`] from the two counters' stored values.
fn indexed(counters: &[Option<Vec<u8>>]) -> Option<u64> {
    let (contacts, indexed) = (kv::counter_at(counters, 0), kv::counter_at(counters, 1));
    (contacts == indexed).then_some(contacts)
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
    // `rank` is above 0: the walk read at least one key.
    let Some(nth) = before else { return Ok(false) };
    let nth_newest = Posting::of_entry(nth.strip_prefix(b"ix/c/").unwrap_or(&nth));
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
