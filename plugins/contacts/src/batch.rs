//! Many upserts in one call (`contacts.upsert-many`, for imports): each body
//! through the same rule as `POST /contacts`, in order.
//!
//! A real run commits its rows a [`Chunk`] at a time: each row is checked
//! and prepared exactly as alone, but its writes wait, and up to
//! [`CHUNK_ROWS`] rows go in one commit. A commit per row cost a store
//! transaction per row, and the store seals each one in its log on its own:
//! two device writes a row, most of an import's time (`docs/bench-log/2026-11.md`,
//! "Where an import's time goes").
//!
//! A row reads the store as it was before its chunk, so a row that names a
//! unique key (email, mobile) an earlier row of the chunk looked up, took or
//! gave back waits for that chunk's commit first; so does a row that links a
//! conversation (its claim is not part of the commit). The count the plan
//! limit checks adds the chunk's creates, and each create's condition on
//! the stored count is lowered by those before it, so creates that land
//! between a chunk's check and its commit cannot take the organization past
//! its plan. The chunk's commit still checks
//! every row's conditions (its record unchanged, its keys still free, the
//! plan's room); when one fails (a concurrent request got there first)
//! nothing of the chunk is written, and its rows run again one commit each,
//! as they would have alone. Each row is atomic; so is each chunk.
//!
//! A dry run writes nothing; what it would have written lives in the
//! [`Batch`], so a later body finds an earlier one (and the plan limit counts
//! it) exactly as the real run would.

use std::collections::{HashMap, HashSet};

use crm_sdk::http::Error;
use crm_sdk::runtime;
use crm_sdk::store::{self, Condition, Write};

use crate::index;
use crate::input::ContactInput;
use crate::record::{self, Attribution, Contact, Stored};
use crate::unique::{self, Claims};
use crate::upsert::{self, Checked, Options, Outcome};

/// Most rows one commit carries: a commit's events wait in the host, at
/// most 1000 of them.
const CHUNK_ROWS: usize = 100;
/// Most writes one commit carries: rows with many properties write a
/// search key for every three letters.
const CHUNK_WRITES: usize = 5_000;

/// A call's memory of what it did and the store does not show yet.
#[derive(Default)]
pub struct Batch {
    /// Contacts the dry run made or changed, by their unique keys.
    contacts: HashMap<String, Contact>,
    /// Conversations the dry run linked, and to whom.
    linked: HashMap<String, String>,
    /// Contacts made that the store does not count yet (a dry run's, or the
    /// chunk's): the plan limit counts them.
    pub created: u64,
    /// Whether answers leave the contact out (see the WIT's `upsert-many`).
    pub compact: bool,
    /// A real run's rows waiting for one commit; `None`: each upsert commits
    /// at once.
    chunk: Option<Chunk>,
}

/// The writes of a real run's rows, for one commit.
#[derive(Default)]
struct Chunk {
    conditions: Vec<Condition>,
    writes: Vec<Write>,
    /// The unique keys the rows looked up, took, gave back or hold.
    keys: HashSet<String>,
}

/// The unique keys an input looks up.
fn input_keys(input: &ContactInput) -> impl Iterator<Item = String> + '_ {
    unique::keys(input.email.as_deref(), input.mobile.as_deref())
}

/// The unique keys a contact holds.
fn contact_keys(contact: &Contact) -> impl Iterator<Item = String> + '_ {
    unique::keys(contact.email.as_deref(), contact.mobile.as_deref())
}

impl Batch {
    /// `upsert-many`'s: compact answers, each upsert committed at once
    /// until a chunk is set.
    fn compact() -> Batch {
        Batch { compact: true, ..Batch::default() }
    }

    /// The contact this call made or changed under a unique key.
    pub fn find(&self, key: &str) -> Option<&Contact> {
        self.contacts.get(key)
    }

    /// The contact this call linked `conversation` to.
    pub fn linked_to(&self, conversation: &str) -> Option<String> {
        self.linked.get(conversation).cloned()
    }

    /// Whether `input` names a unique key the chunk's rows looked up, took,
    /// gave back or hold: the store does not show the chunk's writes yet.
    fn clashes(&self, input: &ContactInput) -> bool {
        self.chunk.as_ref().is_some_and(|chunk| input_keys(input).any(|key| chunk.keys.contains(&key)))
    }

    /// Whether the chunk takes no more rows.
    fn is_full(&self, rows: usize) -> bool {
        rows >= CHUNK_ROWS || self.chunk.as_ref().is_some_and(|chunk| chunk.writes.len() >= CHUNK_WRITES)
    }

    /// Writes `new` (a create when `old` is `None`; see [`index::changes`]):
    /// at once, or into the chunk. `false` when the commit was refused.
    pub fn save(
        &mut self,
        old: Option<&Stored>,
        new: &Contact,
        limit: Option<u64>,
        claims: &Claims,
    ) -> Result<bool, Error> {
        // The chunk's creates take room the store does not count yet.
        let room = limit.map(|limit| limit.saturating_sub(self.created));
        let index::Changes { conditions, writes } = index::changes(old, new, room, claims)?;
        let Some(chunk) = &mut self.chunk else { return Ok(store::commit(&conditions, &writes)?) };
        chunk.conditions.extend(conditions);
        chunk.writes.extend(writes);
        chunk.keys.extend(old.into_iter().flat_map(|o| contact_keys(&o.contact)).chain(contact_keys(new)));
        self.created += u64::from(old.is_none());
        Ok(true)
    }

    /// What an upsert of `input` would make of `found` (a new contact when
    /// `None`), remembered instead of written. Returns it and whether it is new.
    pub fn simulate(
        &mut self,
        found: Option<Contact>,
        input: &ContactInput,
        checked: Checked,
        attribution: Option<&Attribution>,
    ) -> Result<(Contact, bool), Error> {
        let created = found.is_none();
        let mut contact = found.unwrap_or_else(|| {
            let now = runtime::now();
            Contact { id: runtime::new_id(), created_at: now.clone(), updated_at: now, ..Contact::default() }
        });
        upsert::apply(&mut contact, input, checked);
        if contact.attribution.is_none() {
            contact.attribution = attribution.cloned();
        }
        record::check_bounds(&contact)?;
        if let Some(conv) = &input.linked_conversation_id {
            self.linked.insert(conv.clone(), contact.id.clone());
        }
        for key in contact_keys(&contact).collect::<Vec<_>>() {
            self.contacts.insert(key, contact.clone());
        }
        self.created += u64::from(created);
        Ok((contact, created))
    }
}

/// `upsert-many`: the outcomes of `bodies`, in order, each turned into what
/// the caller keeps (`answer`) as soon as it is known: 10,000 outcomes held
/// as JSON values, each with its city's candidates, would outgrow the
/// instance's memory.
pub fn upsert_many<T>(bodies: &[String], options: &Options, mut answer: impl FnMut(Outcome) -> T) -> Vec<T> {
    let mut batch = Batch::compact();
    if options.dry_run {
        return bodies.iter().map(|body| answer(upsert::upsert(body.as_bytes(), options, &mut batch))).collect();
    }
    let mut answers = Vec::with_capacity(bodies.len());
    batch.chunk = Some(Chunk::default());
    // The chunk's rows (their index in `bodies`) and what each answers once it commits.
    let mut rows: Vec<(usize, Outcome)> = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        let input = upsert::read(body.as_bytes());
        let links = input.as_ref().is_ok_and(|input| input.linked_conversation_id.is_some());
        if links || input.as_ref().is_ok_and(|input| batch.clashes(input)) || batch.is_full(rows.len()) {
            answers.extend(commit(&mut batch, std::mem::take(&mut rows), bodies, options).into_iter().map(&mut answer));
        }
        if links {
            // Its conversation's claim is not part of a commit: alone.
            answers.push(answer(upsert::upsert_input(input, options, &mut Batch::compact())));
            continue;
        }
        let keys: Vec<String> = input.as_ref().map(|input| input_keys(input).collect()).unwrap_or_default();
        rows.push((i, upsert::upsert_input(input, options, &mut batch)));
        if let Some(chunk) = &mut batch.chunk {
            chunk.keys.extend(keys);
        }
    }
    answers.extend(commit(&mut batch, rows, bodies, options).into_iter().map(&mut answer));
    answers
}

/// Commits the chunk: the outcomes of its `rows`, in order. When its commit
/// is refused or fails, nothing of it was written, and its rows run again,
/// each committed alone, as they would have without a chunk.
fn commit(batch: &mut Batch, rows: Vec<(usize, Outcome)>, bodies: &[String], options: &Options) -> Vec<Outcome> {
    let chunk = batch.chunk.replace(Chunk::default()).unwrap_or_default();
    batch.created = 0;
    if chunk.writes.is_empty() {
        return rows.into_iter().map(|(_, outcome)| outcome).collect();
    }
    match store::commit(&chunk.conditions, &chunk.writes) {
        Ok(true) => return rows.into_iter().map(|(_, outcome)| outcome).collect(),
        Ok(false) => {
            let message =
                format!("a chunk of {} upserts found the store changed; its rows run again alone", rows.len());
            runtime::log(runtime::Level::Debug, &message);
        }
        Err(e) => {
            runtime::log(runtime::Level::Warn, &format!("a chunk of upserts failed ({e}); its rows run again alone"))
        }
    }
    rows.iter().map(|(i, _)| upsert::upsert(bodies[*i].as_bytes(), options, &mut Batch::compact())).collect()
}
