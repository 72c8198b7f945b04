//! A call's memory of what it did and the store does not show yet: a dry
//! run's contacts, and a real run's rows waiting for one commit (a
//! [`Chunk`]); `many.rs` says how `upsert-many` uses it.

use std::collections::{HashMap, HashSet};

use crm_sdk::http::Error;
use crm_sdk::runtime;
use crm_sdk::store::{Condition, Write};

use crate::checked::{Checked, apply};
use crate::index;
use crate::input::ContactInput;
use crate::postings::{self, Unlogged};
use crate::record::{self, Attribution, Contact, Stored};
use crate::unique::{self, Claims};

/// Most rows one commit carries: a commit's events wait in the host, at
/// most 1000 of them.
pub const CHUNK_ROWS: usize = 100;
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
    pub(crate) chunk: Option<Chunk>,
}

/// The writes of a real run's rows, for one commit.
#[derive(Default)]
pub(crate) struct Chunk {
    pub(crate) conditions: Vec<Condition>,
    pub(crate) writes: Vec<Write>,
    /// The rows' entries in the search log, under the epoch open at the commit.
    pub(crate) logged: Vec<Unlogged>,
    /// The unique keys the rows looked up, took, gave back or hold.
    pub(crate) keys: HashSet<String>,
}

/// The unique keys an input looks up.
pub(crate) fn input_keys(input: &ContactInput) -> impl Iterator<Item = String> + '_ {
    unique::keys(input.email.as_deref(), input.mobile.as_deref())
}

/// The unique keys a contact holds.
fn contact_keys(contact: &Contact) -> impl Iterator<Item = String> + '_ {
    unique::keys(contact.email.as_deref(), contact.mobile.as_deref())
}

impl Batch {
    /// `upsert-many`'s: compact answers, each upsert committed at once
    /// until a chunk is set.
    pub(crate) fn compact() -> Batch {
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
    pub(crate) fn clashes(&self, input: &ContactInput) -> bool {
        self.chunk.as_ref().is_some_and(|chunk| input_keys(input).any(|key| chunk.keys.contains(&key)))
    }

    /// Whether the chunk takes no more rows.
    pub(crate) fn is_full(&self, rows: usize) -> bool {
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
        let index::Changes { conditions, writes, logged } = index::changes(old, new, room, claims)?;
        let Some(chunk) = &mut self.chunk else {
            return Ok(postings::commit_logging(conditions, writes, logged.into_iter().collect())?);
        };
        chunk.conditions.extend(conditions);
        chunk.writes.extend(writes);
        chunk.logged.extend(logged);
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
        apply(&mut contact, input, checked);
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
