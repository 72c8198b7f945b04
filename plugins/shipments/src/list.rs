//! `GET /shipments` (filters `contactId`, `status`; newest first; `limit`
//! default 20, clamped to 100) and `GET /shipments/{id}`.

use crm_sdk::http::{Error, Paging, json_response, query_choice, query_id};
use crm_sdk::types::{Request, Response};
use crm_sdk::{kv, store};
use serde_json::json;

use crate::answer;
use crate::record::{self, STATUSES};

const DEFAULT_LIMIT: usize = 20;
const MAX_LIMIT: usize = 100;
/// Most shipments of one contact (the newest) a `contactId` and `status`
/// list reads: one store scan.
const MAX_OF_A_CONTACT: u32 = 1000;

pub fn get(id: &str) -> Result<Response, Error> {
    let shipment = record::load(id)?.ok_or_else(answer::shipment_not_found)?;
    Ok(json_response(200, &json!({ "success": true, "data": shipment.json() })))
}

pub fn list(req: &Request) -> Result<Response, Error> {
    let paging = Paging::from_query(req, DEFAULT_LIMIT, MAX_LIMIT)?;
    let contact = query_id(req, "contactId")?;
    let status = query_choice(req, "status", STATUSES)?;

    // Ids are ordered by creation time: the index keys end with the id, so a
    // page is read from the end of its index, and the total is counted by
    // the host without reading the keys out.
    let prefix = match (contact, status) {
        (Some(c), _) => format!("c/{c}/"),
        (None, Some(s)) => format!("st/{s}/"),
        (None, None) => "s/".to_string(),
    };
    if let (Some(_), Some(s)) = (contact, status) {
        return one_contact_in_status(&paging, &prefix, s);
    }
    let total = store::count_found(prefix.as_bytes(), b"")? as usize;
    let (skip, take) = (paging.offset(), paging.limit);
    let items = match prefix.as_str() {
        "s/" => kv::page_reverse(&prefix, skip, take)?.into_iter().map(|(_, record)| record).collect(),
        _ => kv::page_indexed_raw(&prefix, skip, take, record::key)?,
    };
    Ok(paging.response_raw(&items, total))
}

/// The shipments of one contact (a few) that are in `status`, newest first.
fn one_contact_in_status(paging: &Paging, prefix: &str, status: &str) -> Result<Response, Error> {
    let ids: Vec<String> = store::scan_reverse(prefix.as_bytes(), None, MAX_OF_A_CONTACT)?
        .into_iter()
        .map(|(k, _)| String::from_utf8_lossy(k.strip_prefix(prefix.as_bytes()).unwrap_or(&k)).into_owned())
        .collect();
    let in_status = kv::get_many_raw(&ids.iter().map(|id| format!("st/{status}/{id}")).collect::<Vec<_>>())?;
    let ids: Vec<&String> = ids.iter().zip(in_status).filter(|(_, entry)| entry.is_some()).map(|(id, _)| id).collect();
    let items = records(ids.iter().skip(paging.skip()).take(paging.limit).map(|id| id.as_str()))?;
    Ok(paging.response_raw(&items, ids.len()))
}

/// The stored records of `ids`, in their order (those gone are left out).
fn records<'a>(ids: impl Iterator<Item = &'a str>) -> Result<Vec<Vec<u8>>, Error> {
    let keys: Vec<String> = ids.map(record::key).collect();
    Ok(kv::get_many_raw(&keys)?.into_iter().flatten().collect())
}
