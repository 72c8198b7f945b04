//! `GET /contacts`: pagination, search, property filters, dates, sorting.
//!
//! Filter rules: a repeated key is OR over its values, different keys are AND;
//! matching is literal (no patterns). `matchMode` applies to property filters
//! only: `contains` is case-insensitive, `exact` case-sensitive. `cityCode` and
//! `stateCode` always compare whole codes.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use crm_sdk::http::{self, Error};
use crm_sdk::kv;
use crm_sdk::types::{Request, Response};
use serde_json::json;

use crate::index;
use crate::record::Contact;
use crate::unique;

/// Parameters that are not property filters.
const RESERVED: &[&str] = &[
    "page",
    "limit",
    "search",
    "matchMode",
    "sortBy",
    "sortOrder",
    "createdFrom",
    "createdTo",
    "missing",
    "exists",
    "cityCode",
    "stateCode",
    "organizationId",
];

fn bad(param: &str, why: &str) -> Error {
    Error::validation(format!("{param} {why}"), json!({ "field": param }))
}

/// A `createdFrom` / `createdTo` value as a stored timestamp: RFC 3339, or a
/// date alone meaning midnight UTC.
fn instant(param: &str, value: &str) -> Result<String, Error> {
    let value = value.trim();
    let t = if let Ok(d) = NaiveDate::parse_from_str(value, "%Y-%m-%d") {
        d.and_hms_opt(0, 0, 0).expect("midnight").and_utc()
    } else {
        DateTime::parse_from_rfc3339(value)
            .map_err(|_| bad(param, "must be a date-time (RFC 3339) or YYYY-MM-DD"))?
            .with_timezone(&Utc)
    };
    Ok(t.to_rfc3339_opts(SecondsFormat::Millis, true))
}

fn codes(req: &Request, param: &str, len: usize) -> Result<Vec<String>, Error> {
    http::query_all(req, param)
        .into_iter()
        .map(|c| {
            let c = c.trim();
            if c.len() == len && c.bytes().all(|b| b.is_ascii_digit()) {
                Ok(c.to_string())
            } else {
                Err(bad(param, &format!("must be {len} digits")))
            }
        })
        .collect()
}

fn keys(req: &Request, param: &str) -> Vec<String> {
    http::query_all(req, param)
        .into_iter()
        .flat_map(|v| v.split(','))
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect()
}

/// The page an index answers alone: no filter, or only `cityCode` or only
/// `stateCode` (sorted by creation). `None` sends the request to the full scan.
fn indexed(
    city_codes: &[String],
    state_codes: &[String],
    by_updated: bool,
    ascending: bool,
    page: usize,
    limit: usize,
) -> Result<Option<(usize, Vec<String>)>, Error> {
    let skip = (page - 1) * limit;
    let (family, codes) = match (city_codes.is_empty(), state_codes.is_empty()) {
        (true, true) => {
            let prefix = if by_updated { "ix/u/" } else { "ix/c/" };
            let total = unique::count()? as usize;
            return Ok(Some((total, index::page(prefix, ascending, skip, limit)?)));
        }
        _ if by_updated => return Ok(None),
        (false, true) => ("city", city_codes),
        (true, false) => ("state", state_codes),
        (false, false) => return Ok(None),
    };
    if let [code] = codes {
        let prefix = format!("ix/{family}/{code}/");
        let total = unique::code_count(family, code)? as usize;
        return Ok(Some((total, index::page(&prefix, ascending, skip, limit)?)));
    }
    // `<createdAt>/<id>` of every match, merged across the codes.
    let mut entries: Vec<Vec<u8>> = Vec::new();
    for code in codes {
        let prefix = format!("ix/{family}/{code}/");
        entries.extend(index::keys(&prefix)?.into_iter().map(|k| k[prefix.len()..].to_vec()));
    }
    entries.sort();
    entries.dedup();
    if !ascending {
        entries.reverse();
    }
    let total = entries.len();
    let ids = entries.iter().skip(skip).take(limit).map(|e| index::id_of(e)).collect();
    Ok(Some((total, ids)))
}

pub fn list(req: &Request) -> Result<Response, Error> {
    let (page, limit) = http::page_and_limit(req, 100, 1000);
    let exact = match http::query_first(req, "matchMode").unwrap_or("contains") {
        "contains" => false,
        "exact" => true,
        _ => return Err(bad("matchMode", "must be contains or exact")),
    };
    let by_updated = match http::query_first(req, "sortBy").unwrap_or("createdAt") {
        "createdAt" => false,
        "updatedAt" => true,
        _ => return Err(bad("sortBy", "must be createdAt or updatedAt")),
    };
    let ascending = match http::query_first(req, "sortOrder").unwrap_or("desc") {
        "asc" => true,
        "desc" => false,
        _ => return Err(bad("sortOrder", "must be asc or desc")),
    };
    let from = http::query_first(req, "createdFrom").map(|v| instant("createdFrom", v)).transpose()?;
    let to = http::query_first(req, "createdTo").map(|v| instant("createdTo", v)).transpose()?;
    let search = http::query_first(req, "search").map(|s| s.trim().to_lowercase()).filter(|s| !s.is_empty());
    let city_codes = codes(req, "cityCode", 5)?;
    let state_codes = codes(req, "stateCode", 2)?;
    let missing = keys(req, "missing");
    let exists = keys(req, "exists");
    let mut properties: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (k, v) in &req.query {
        if !RESERVED.contains(&k.as_str()) {
            properties.entry(k.as_str()).or_default().push(v.as_str());
        }
    }

    let matches = |c: &Contact| -> bool {
        if let Some(s) = &search {
            let fields = [&c.first_name, &c.last_name, &c.email, &c.mobile, &c.phone, &c.company];
            if !fields.iter().any(|f| f.as_deref().is_some_and(|v| v.to_lowercase().contains(s.as_str()))) {
                return false;
            }
        }
        if from.as_ref().is_some_and(|f| c.created_at.as_str() < f.as_str())
            || to.as_ref().is_some_and(|t| c.created_at.as_str() > t.as_str())
        {
            return false;
        }
        if !city_codes.is_empty() && !c.city_code.as_ref().is_some_and(|code| city_codes.contains(code)) {
            return false;
        }
        if !state_codes.is_empty() && !c.state_code.as_ref().is_some_and(|code| state_codes.contains(code)) {
            return false;
        }
        if missing.iter().any(|k| !c.property_text(k).is_empty())
            || exists.iter().any(|k| c.property_text(k).is_empty())
        {
            return false;
        }
        properties.iter().all(|(key, wanted)| {
            let have = c.property_text(key);
            wanted
                .iter()
                .any(|w| have.iter().any(|h| if exact { h == w } else { h.to_lowercase().contains(&w.to_lowercase()) }))
        })
    };

    let simple = search.is_none()
        && from.is_none()
        && to.is_none()
        && missing.is_empty()
        && exists.is_empty()
        && properties.is_empty();
    if simple && let Some((total, ids)) = indexed(&city_codes, &state_codes, by_updated, ascending, page, limit)? {
        return Ok(http::page_response_raw(&index::rendered(&ids)?, total, page, limit));
    }

    // With `search`, only the contacts the projection finds are read.
    let candidates: Vec<Contact> = match &search {
        Some(needle) => {
            let mut found = Vec::new();
            for id in index::search(needle)? {
                found.extend(kv::get::<Contact>(&crate::record::key(&id))?);
            }
            found
        }
        None => kv::scan_all("c/")?.into_iter().filter_map(|(_, v)| serde_json::from_slice(&v).ok()).collect(),
    };
    let mut found: Vec<Contact> = candidates.into_iter().filter(|c| matches(c)).collect();
    found.sort_by(|a, b| {
        let (ka, kb) = if by_updated { (&a.updated_at, &b.updated_at) } else { (&a.created_at, &b.created_at) };
        let order = ka.cmp(kb).then_with(|| a.id.cmp(&b.id));
        if ascending { order } else { order.reverse() }
    });
    let total = found.len();
    let data: Vec<_> = found.iter().skip((page - 1) * limit).take(limit).map(Contact::flattened).collect();
    Ok(http::page_response(&data, total, page, limit))
}
