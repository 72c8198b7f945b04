//! `GET /shipments` (filters `contactId`, `status`; newest first; `limit`
//! default 20, clamped to 100) and `GET /shipments/{id}`.

use crm_sdk::http::{Error, Paging, json_response, query_first};
use crm_sdk::store;
use crm_sdk::types::{Request, Response};
use serde_json::json;

use crate::answer;
use crate::input::invalid;
use crate::record::{self, STATUSES};

const DEFAULT_LIMIT: usize = 20;
const MAX_LIMIT: usize = 100;
/// Most shipments one listing walks.
const MAX_LISTED: u32 = 100_000;

pub fn get(id: &str) -> Result<Response, Error> {
    let shipment = record::load(id)?.ok_or_else(answer::shipment_not_found)?;
    Ok(json_response(200, &json!({ "success": true, "data": shipment.json() })))
}

pub fn list(req: &Request) -> Result<Response, Error> {
    let paging = Paging::from_query(req, DEFAULT_LIMIT, MAX_LIMIT)?;
    let contact = query_first(req, "contactId").filter(|c| !c.is_empty());
    let status = query_first(req, "status").filter(|s| !s.is_empty());
    if let Some(c) = contact
        && !crm_sdk::is_id(c)
    {
        return Err(invalid("contactId", "is not a valid id"));
    }
    if let Some(s) = status
        && !STATUSES.contains(&s)
    {
        return Err(Error::validation(
            format!("status must be one of {}", STATUSES.join(", ")),
            json!({ "field": "status" }),
        ));
    }

    // Ids are ordered by creation time: the index keys end with the id.
    let prefix = match (contact, status) {
        (Some(c), _) => format!("c/{c}/"),
        (None, Some(s)) => format!("st/{s}/"),
        (None, None) => "s/".to_string(),
    };
    let mut ids: Vec<String> = store::find(prefix.as_bytes(), b"", MAX_LISTED)?
        .into_iter()
        .map(|k| String::from_utf8_lossy(&k[prefix.len()..]).into_owned())
        .collect();
    if let (Some(_), Some(s)) = (contact, status) {
        let mut kept = Vec::with_capacity(ids.len());
        for id in ids {
            if store::get(format!("st/{s}/{id}").as_bytes())?.is_some() {
                kept.push(id);
            }
        }
        ids = kept;
    }
    ids.reverse();
    let total = ids.len();
    let mut items = Vec::new();
    for id in ids.iter().skip(paging.skip()).take(paging.limit) {
        if let Some(raw) = store::get(record::key(id).as_bytes())? {
            items.push(raw);
        }
    }
    Ok(paging.response_raw(&items, total))
}
