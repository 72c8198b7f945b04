//! `GET /contacts/{id}` and `PUT /contacts/{id}`.
//!
//! A `PUT` takes the same keys as an upsert; an empty-string `city` clears city,
//! code and state, and only an `idType` sent in the request is evaluated.

use crm_sdk::http::{self, Error, json_response};
use crm_sdk::types::{Request, Response};
use serde_json::json;

use crate::conversations;
use crate::input;
use crate::record::{self, Stored};
use crate::upsert;

pub fn find(id: &str) -> Result<Stored, Error> {
    let found = if crm_sdk::is_id(id) { record::read(id)? } else { None };
    found.ok_or_else(|| Error::not_found("Contact"))
}

pub fn get(id: &str) -> Result<Response, Error> {
    Ok(json_response(200, &json!({ "success": true, "data": find(id)?.contact.flattened() })))
}

pub fn put(req: &Request, id: &str) -> Result<Response, Error> {
    let stored = find(id)?;
    let contact = &stored.contact;
    let body = http::json_object(req)?;
    let input = input::parse(&body)?;
    let checked = upsert::check(&input, contact.id_type.as_deref(), true, false)?;
    if let Some(conv) = &input.linked_conversation_id {
        let conversation = conversations::get(conv)?.ok_or_else(conversations::not_found)?;
        if let Some(holder) = conversation.contact_id.filter(|h| *h != contact.id) {
            return Err(conversations::already_linked(&holder));
        }
    }
    let updated = upsert::update(stored, &input, checked, None, &mut Default::default())?;
    Ok(json_response(200, &json!({ "success": true, "message": "Contact updated", "data": updated.flattened() })))
}
