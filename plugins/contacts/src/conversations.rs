//! Conversations: created through the admin API, linked to at most one contact.
//! A link is claimed by compare-and-swap on the conversation record, so two
//! contacts can never hold one conversation.

use crm_sdk::http::{self, Error, json_response};
use crm_sdk::types::{Request, Response};
use crm_sdk::{kv, runtime, store};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::record::{self, Contact};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Conversation {
    pub id: String,
    pub channel: Option<String>,
    pub name: Option<String>,
    pub phone: Option<String>,
    pub contact_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

fn key(id: &str) -> String {
    format!("conv/{id}")
}

pub fn get(id: &str) -> Result<Option<Conversation>, Error> {
    kv::get(&key(id))
}

pub fn not_found() -> Error {
    Error::new(404, "CONVERSATION_NOT_FOUND", "The conversation does not exist in this organization")
        .with("error", "CONVERSATION_NOT_FOUND")
}

pub fn already_linked(contact_id: &str) -> Error {
    Error::new(409, "CONVERSATION_ALREADY_LINKED", "The conversation is already linked to another contact")
        .with("error", "CONVERSATION_ALREADY_LINKED")
        .with("contactId", contact_id)
}

/// Links conversation `id` to `contact`. Exactly one contact wins a race.
pub fn link(id: &str, contact: &str) -> Result<(), Error> {
    loop {
        let raw = store::get(key(id).as_bytes())?.ok_or_else(not_found)?;
        let mut conv: Conversation = serde_json::from_slice(&raw).map_err(Error::internal)?;
        match conv.contact_id.as_deref() {
            Some(c) if c == contact => return Ok(()),
            Some(other) => return Err(already_linked(other)),
            None => {}
        }
        conv.contact_id = Some(contact.to_string());
        conv.updated_at = runtime::now();
        let new = serde_json::to_vec(&conv).map_err(Error::internal)?;
        if store::compare_and_swap(key(id).as_bytes(), Some(&raw), Some(&new))? {
            return Ok(());
        }
    }
}

/// Undoes [`link`] (a create that failed after linking).
pub fn unlink(id: &str, contact: &str) -> Result<(), Error> {
    if let Some(mut conv) = get(id)?
        && conv.contact_id.as_deref() == Some(contact)
    {
        conv.contact_id = None;
        kv::put(&key(id), &conv)?;
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewConversation {
    channel: Option<String>,
    name: Option<String>,
    phone: Option<String>,
}

/// `POST /admin/orgs/{org}/conversations` (served through the admin API).
pub fn create(req: &Request) -> Result<Response, Error> {
    let input: NewConversation = if req.body.is_empty() {
        NewConversation { channel: None, name: None, phone: None }
    } else {
        http::json_body(req)?
    };
    for (field, value) in [("channel", &input.channel), ("name", &input.name), ("phone", &input.phone)] {
        if value.as_ref().is_some_and(|v| v.chars().count() > 200) {
            return Err(Error::validation(format!("{field} is longer than 200 characters"), json!({ "field": field })));
        }
    }
    let now = runtime::now();
    let conv = Conversation {
        id: runtime::new_id(),
        channel: input.channel,
        name: input.name,
        phone: input.phone,
        contact_id: None,
        created_at: now.clone(),
        updated_at: now,
    };
    kv::put(&key(&conv.id), &conv)?;
    Ok(json_response(
        201,
        &json!({ "id": conv.id, "channel": conv.channel, "name": conv.name, "phone": conv.phone, "contactId": null, "createdAt": conv.created_at }),
    ))
}

/// `GET /conversations`: every conversation with the contact it links to.
pub fn list(req: &Request) -> Result<Response, Error> {
    let paging = http::Paging::from_query(req, 100, 1000)?;
    // Ids sort by creation: the page is read from the end, the host counts.
    let total = crm_sdk::store::count_found(b"conv/", b"")?;
    let page: Vec<Conversation> = kv::page_reverse_records("conv/", paging.offset(), paging.limit)?;
    // The linked contacts of the page, in one store call.
    let keys: Vec<String> = page.iter().map(|c| record::key(c.contact_id.as_deref().unwrap_or(""))).collect();
    let contacts: Vec<Option<Contact>> = kv::get_many(&keys)?;
    let data: Vec<Value> = page
        .into_iter()
        .zip(contacts)
        .map(|(c, linked)| {
            let contact = linked
                .filter(|_| c.contact_id.is_some())
                .map(|ct| json!({ "id": ct.id, "fullName": ct.full_name(), "email": ct.email, "mobile": ct.mobile }));
            json!({
                "id": c.id, "channel": c.channel, "name": c.name, "phone": c.phone,
                "contactId": c.contact_id, "contact": contact, "createdAt": c.created_at, "updatedAt": c.updated_at,
            })
        })
        .collect();
    Ok(paging.response(&data, total as usize))
}
