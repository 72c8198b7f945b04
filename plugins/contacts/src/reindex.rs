//! Bringing the search index up to date: [`reindex_page`] folds the log
//! into the trigram lists ([`crate::postings::fold`]), and rewrites the
//! index of contacts an earlier version wrote (see [`crate::search`]'s
//! note on `meta/search-indexed-5`) a page at a time.
//!
//! The layout before this one (`meta/search-indexed-4`) kept a key per
//! trigram and contact, `g/<trigram><posting>`; a rewrite deletes those.

use std::collections::BTreeSet;

use crm_sdk::http::{self, Error, json_response};
use crm_sdk::kv;
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::{Request, Response};
use serde_json::json;

use crate::postings::{self, Posting};
use crate::record::{self, Contact};
use crate::search::{self, INDEXED_KEY};
use crate::unique;

/// Contacts one reindex call goes through; the caller sends `after` again.
const REINDEX_PAGE: usize = 5_000;
/// Contacts written together.
const REINDEX_CHUNK: u32 = 256;

/// `POST /admin/contacts/reindex` `{after?}` (on the admin API as
/// `POST /admin/orgs/{org}/contacts/reindex`; `crm-host admin contacts
/// reindex ORG` repeats it): [`reindex_page`], answered as `{indexed, next}`;
/// without a cursor it first folds every contact written so far.
pub fn reindex(req: &Request) -> Result<Response, Error> {
    let body = if req.body.is_empty() { Default::default() } else { http::json_object(req)? };
    let after = match body.get("after") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) if s.len() < 200 => Some(s.clone()),
        Some(_) => {
            return Err(Error::validation("after must be the cursor a reindex answered", json!({ "field": "after" })));
        }
    };
    if after.is_none() {
        postings::fold(true)?;
    }
    let (indexed, next) = reindex_page(after)?;
    Ok(json_response(200, &json!({ "success": true, "indexed": indexed, "next": next })))
}

/// Without a cursor: folds what the log lets a fold take now into the
/// trigram lists ([`postings::fold`]) and answers at once, with `0` and no
/// cursor when the index is current, or the cursor to start a rewrite from
/// when an earlier version wrote it. The host calls it for every
/// organization at start and every 200 ms for those written to (the
/// `contacts-upkeep` export).
///
/// With a cursor: rewrites the index of up to [`REINDEX_PAGE`] contacts in
/// creation order after it; answers how many, and the cursor to go on from
/// (`None` once every contact is indexed: search then uses the index).
/// Safe to repeat and to run under writes.
pub fn reindex_page(after: Option<String>) -> Result<(usize, Option<String>), Error> {
    let Some(mut after) = after else {
        postings::fold(false)?;
        let current = search::indexed_contacts()?.is_some();
        return Ok((0, (!current).then(String::new)));
    };
    let mut indexed = 0usize;
    loop {
        let start = format!("ix/c/{after}\u{0}").into_bytes();
        let chunk = store::scan(b"ix/c/", Some(&start), REINDEX_CHUNK)?;
        let entries: Vec<String> = chunk
            .iter()
            .map(|(k, _)| String::from_utf8_lossy(k.strip_prefix(b"ix/c/").unwrap_or(k)).into_owned())
            .collect();
        index_chunk(&entries)?;
        indexed += entries.len();
        if chunk.len() < REINDEX_CHUNK as usize {
            mark_indexed()?;
            return Ok((indexed, None));
        }
        after = entries.last().expect("a full chunk").clone();
        if indexed >= REINDEX_PAGE {
            return Ok((indexed, Some(after)));
        }
    }
}

/// Writes the projection and log entry of the contacts of `entries`, each
/// as its record is now, and deletes the keys per trigram the layout before
/// wrote for the projection it replaces: the commit holds only while no
/// record changed since it was read.
fn index_chunk(entries: &[String]) -> Result<(), Error> {
    let ids: Vec<String> = entries.iter().map(|e| record::id_of(e.as_bytes())).collect();
    let keys: Vec<String> =
        ids.iter().map(|id| record::key(id)).chain(ids.iter().map(|id| search::projection_key(id))).collect();
    for _ in 0..16 {
        let mut raws = kv::get_many_raw(&keys)?;
        let projections = raws.split_off(ids.len());
        let epoch = postings::Epoch::open()?;
        let (mut conditions, mut writes) = (vec![epoch.condition()], Vec::new());
        for ((key, raw), before) in keys.iter().take(ids.len()).zip(raws).zip(projections) {
            conditions.push(Condition::Equals((key.clone().into_bytes(), raw.clone())));
            if let Some(raw) = raw {
                let c: Contact = kv::decode(key, &raw)?;
                let projected = search::projection(&c);
                let before = before.and_then(|b| String::from_utf8(b).ok()).unwrap_or_default();
                writes.extend(legacy_keys(&c, &before).into_iter().map(Write::Delete));
                writes.push(epoch.entry(&c, &projected));
                writes.push(Write::Put((search::projection_key(&c.id).into_bytes(), projected.into_bytes())));
            }
        }
        if store::commit(&conditions, &writes)? {
            return Ok(());
        }
    }
    Err(Error::new(503, "BUSY", "Contacts kept changing while being indexed; run the reindex again"))
}

/// The keys per trigram and contact (`g/<trigram><posting>`) the layout
/// before this one wrote for `c` with the projection `projected`.
fn legacy_keys(c: &Contact, projected: &str) -> BTreeSet<Vec<u8>> {
    let posting = Posting::of(c);
    postings::trigrams(projected).iter().map(|t| [format!("g/{t}").as_bytes(), posting.bytes()].concat()).collect()
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
