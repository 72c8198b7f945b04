//! Many upserts in one call (`contacts.upsert-many`, for imports): each body
//! through the same rule as `POST /contacts`, in order, each written
//! atomically on its own. A dry run writes nothing; what it would have
//! written lives in a [`Batch`], so a later body finds an earlier one (and
//! the plan limit counts it) exactly as the real run would.

use std::collections::HashMap;

use crm_sdk::http::Error;
use crm_sdk::runtime;
use serde_json::Value;

use crate::input::ContactInput;
use crate::record::{self, Contact};
use crate::unique::{email_key, mobile_key};
use crate::upsert::{self, Checked, Options, Outcome};

/// A call's memory of what it did without writing.
#[derive(Default)]
pub struct Batch {
    /// Contacts the dry run made or changed, by their unique keys.
    contacts: HashMap<String, Contact>,
    /// Conversations the dry run linked, and to whom.
    linked: HashMap<String, String>,
    /// Contacts the dry run made (the plan limit counts them).
    pub created: u64,
    /// Whether answers leave the contact out (see the WIT's `upsert-many`).
    pub compact: bool,
}

impl Batch {
    /// The contact this call made or changed under a unique key.
    pub fn find(&self, key: &str) -> Option<&Contact> {
        self.contacts.get(key)
    }

    /// The contact this call linked `conversation` to.
    pub fn linked_to(&self, conversation: &str) -> Option<String> {
        self.linked.get(conversation).cloned()
    }

    /// What an upsert of `input` would make of `found` (a new contact when
    /// `None`), remembered instead of written. Returns it and whether it is new.
    pub fn simulate(
        &mut self,
        found: Option<Contact>,
        input: &ContactInput,
        checked: Checked,
        attribution: Option<&Value>,
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
        let keys = contact.email.as_deref().map(email_key).into_iter().chain(contact.mobile.as_deref().map(mobile_key));
        for key in keys.collect::<Vec<_>>() {
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
    let mut batch = Batch { compact: true, ..Batch::default() };
    bodies.iter().map(|body| answer(upsert::upsert(body.as_bytes(), options, &mut batch))).collect()
}
