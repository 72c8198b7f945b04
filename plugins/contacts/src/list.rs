//! `GET /contacts`: pagination, search, property filters, dates, sorting.
//!
//! Filter rules: a repeated key is OR over its values, different keys are AND;
//! matching is literal (no patterns). `matchMode` applies to property filters
//! only: `contains` ignores case and accents (`lastName=gomez` finds Gómez, as
//! `search` does), `exact` compares as stored. `cityCode` and `stateCode`
//! always compare whole codes.
//!
//! Memory stays bounded at any size. A list walks one index in the asked order
//! (creation, update, or the indexes of the asked cities or states, merged),
//! a chunk at a time, with the date bounds as the walk's own bounds; it tests
//! each entry against the filters the walk does not answer, counts the
//! matches and keeps only the asked page. When the walk alone answers the
//! query, the total comes from the counters and only the page is read. A
//! search that matches few contacts reads just those.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use crm_first_party::raw_text::{Compared, RawFilter, without_case_or_accents};
use crm_sdk::http::{self, Error, Paging};
use crm_sdk::kv;
use crm_sdk::store;
use crm_sdk::types::{Request, Response};
use serde_json::json;

use crate::index::{self, Cursor, Merge};
use crate::record::{self, Contact};
use crate::search::{self, Found};
use crate::unique;

/// Most values of `cityCode` or `stateCode` in one list, and of one property
/// filter.
const MAX_CODES: usize = 100;

/// Most property filters (distinct keys), and most keys of `missing` or of
/// `exists`, in one list: a filter is tested on every record walked, so the
/// client must not choose its cost.
const MAX_FILTER_KEYS: usize = 20;

/// Entries of a walk tested together: their records come in one store call.
const TEST_CHUNK: usize = 256;

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

/// The distinct codes of a repeatable code filter, sorted: at most
/// [`MAX_CODES`] values sent, each exactly `len` digits.
fn codes(req: &Request, param: &str, len: usize) -> Result<Vec<String>, Error> {
    let sent = http::query_all(req, param);
    if sent.len() > MAX_CODES {
        return Err(bad(param, &format!("takes at most {MAX_CODES} values")));
    }
    let mut codes = sent
        .into_iter()
        .map(|c| match c.len() == len && c.bytes().all(|b| b.is_ascii_digit()) {
            true => Ok(c.to_string()),
            false => Err(bad(param, &format!("must be {len} digits"))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    codes.sort();
    codes.dedup();
    Ok(codes)
}

/// The keys of `missing` or `exists`: comma-separated, repeatable, at most
/// [`MAX_FILTER_KEYS`].
fn keys(req: &Request, param: &str) -> Result<Vec<String>, Error> {
    let keys: Vec<String> = http::query_all(req, param)
        .into_iter()
        .flat_map(|v| v.split(','))
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect();
    match keys.len() > MAX_FILTER_KEYS {
        true => Err(bad(param, &format!("takes at most {MAX_FILTER_KEYS} keys"))),
        false => Ok(keys),
    }
}

/// The property filters: every parameter that is not [`RESERVED`], its values
/// (NFC, and folded unless `exact`: compared without case or accents) by key.
fn property_filters(req: &Request, exact: bool) -> Result<BTreeMap<String, Vec<String>>, Error> {
    let mut properties: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (k, v) in req.query.iter().filter(|(k, _)| !RESERVED.contains(&k.as_str())) {
        let value = crate::input::nfc(v);
        let value = if record::canonical(k) == "mobile" { mobile_value(value, exact) } else { value };
        properties.entry(k.clone()).or_default().push(if exact { value } else { without_case_or_accents(&value) });
    }
    if properties.len() > MAX_FILTER_KEYS {
        let message = format!("A list takes at most {MAX_FILTER_KEYS} property filters");
        return Err(Error::validation(message, json!({ "limit": MAX_FILTER_KEYS })));
    }
    match properties.iter().find(|(_, values)| values.len() > MAX_CODES) {
        Some((key, _)) => Err(bad(key, &format!("takes at most {MAX_CODES} values"))),
        None => Ok(properties),
    }
}

/// A `mobile` filter's value as a mobile is stored, its digits, so
/// `mobile=300 123 4567` finds `3001234567`; in `contains` mode a whole
/// Colombian number with its country code (`+57 300…`) also finds one
/// stored without it. A value with a letter, or no digit, is kept as
/// written: it matches no mobile, as it did not before.
fn mobile_value(value: String, exact: bool) -> String {
    if !crate::input::written_as_number(&value) || !value.chars().any(|c| c.is_ascii_digit()) {
        return value;
    }
    let digits = crate::input::digits(&value);
    if exact { digits } else { unique::national_number(&digits).to_string() }
}

/// What a list asks for, parsed and validated.
struct Query {
    paging: Paging,
    by_updated: bool,
    ascending: bool,
    exact: bool,
    from: Option<String>,
    to: Option<String>,
    /// The search term as the projection holds text.
    search: Option<String>,
    city_codes: Vec<String>,
    state_codes: Vec<String>,
    missing: Vec<String>,
    exists: Vec<String>,
    /// Values folded unless `exact` ([`property_filters`]).
    properties: BTreeMap<String, Vec<String>>,
    /// What of `exists` and `properties` a record's stored bytes can tell:
    /// a record that fails it is not decoded.
    raw: RawFilter,
}

impl Query {
    fn parse(req: &Request) -> Result<Query, Error> {
        let exact = http::query_choice(req, "matchMode", &["contains", "exact"])? == Some("exact");
        let by_updated = http::query_choice(req, "sortBy", &["createdAt", "updatedAt"])? == Some("updatedAt");
        let ascending = http::query_choice(req, "sortOrder", &["asc", "desc"])? == Some("asc");
        let (exists, properties) = (keys(req, "exists")?, property_filters(req, exact)?);
        let mut raw = RawFilter::default();
        for key in &exists {
            raw.any_of([record::canonical(key)], Compared::AsIs);
        }
        for values in properties.values() {
            raw.any_of(values.iter().map(String::as_str), if exact { Compared::AsIs } else { Compared::Folded });
        }
        Ok(Query {
            paging: Paging::from_query(req, 100, 1000)?,
            by_updated,
            ascending,
            exact,
            from: http::query_first(req, "createdFrom").map(|v| instant("createdFrom", v)).transpose()?,
            to: http::query_first(req, "createdTo").map(|v| instant("createdTo", v)).transpose()?,
            search: http::query_first(req, "search").map(str::trim).filter(|s| !s.is_empty()).map(search::term),
            city_codes: codes(req, "cityCode", 5)?,
            state_codes: codes(req, "stateCode", 2)?,
            missing: keys(req, "missing")?,
            exists,
            properties,
            raw,
        })
    }

    /// Every filter but the search, on a whole record.
    fn record_matches(&self, c: &Contact) -> bool {
        if self.from.as_ref().is_some_and(|f| c.created_at.as_str() < f.as_str())
            || self.to.as_ref().is_some_and(|t| c.created_at.as_str() > t.as_str())
        {
            return false;
        }
        if !self.city_codes.is_empty() && !c.city_code.as_ref().is_some_and(|code| self.city_codes.contains(code)) {
            return false;
        }
        if !self.state_codes.is_empty() && !c.state_code.as_ref().is_some_and(|code| self.state_codes.contains(code)) {
            return false;
        }
        if self.missing.iter().any(|k| !c.property_text(k).is_empty())
            || self.exists.iter().any(|k| c.property_text(k).is_empty())
        {
            return false;
        }
        self.properties.iter().all(|(key, wanted)| {
            let have = c.property_text(key);
            if self.exact {
                return have.iter().any(|h| wanted.contains(h));
            }
            let have: Vec<String> = have.iter().map(|h| without_case_or_accents(h)).collect();
            wanted.iter().any(|w| have.iter().any(|h| h.contains(w.as_str())))
        })
    }

    /// The sort key of a record: the time its order uses, then the id.
    fn sort_key(&self, c: &Contact) -> String {
        format!("{}/{}", if self.by_updated { &c.updated_at } else { &c.created_at }, c.id)
    }
}

/// Which index a list walks, and what that walk already answers.
struct Walk {
    entries: Merge,
    /// The walk's own bounds are the date filters.
    dates_answered: bool,
    /// The walk covers exactly the asked cities (or states) and nothing else.
    codes_answered: bool,
    /// The walk's length from the counters: the total when it answers alone.
    counted: u64,
}

impl Walk {
    /// The walk for `q`; `first_read` is how many entries the first store
    /// call of each index should bring (the page, when that may be all).
    fn choose(q: &Query, first_read: u64) -> Result<Walk, Error> {
        let bounded =
            |prefix: String| Cursor::new(&prefix, q.ascending, q.from.as_deref(), q.to.as_deref()).reading(first_read);
        let (family, codes) = match (q.by_updated, q.city_codes.is_empty(), q.state_codes.is_empty()) {
            (true, _, _) => {
                let walk = Cursor::new("ix/u/", q.ascending, None, None).reading(first_read);
                return Ok(Walk {
                    entries: Merge::new(vec![walk], q.ascending),
                    dates_answered: false,
                    codes_answered: q.city_codes.is_empty() && q.state_codes.is_empty(),
                    counted: unique::count()?,
                });
            }
            (false, true, true) => {
                return Ok(Walk {
                    entries: Merge::new(vec![bounded("ix/c/".into())], q.ascending),
                    dates_answered: true,
                    codes_answered: true,
                    counted: unique::count()?,
                });
            }
            (false, false, _) => ("city", &q.city_codes),
            (false, true, false) => ("state", &q.state_codes),
        };
        let cursors = codes.iter().map(|code| bounded(format!("ix/{family}/{code}/"))).collect();
        let mut total = 0u64;
        for code in codes {
            total += unique::code_count(family, code)?;
        }
        Ok(Walk {
            entries: Merge::new(cursors, q.ascending),
            dates_answered: true,
            codes_answered: family == "state" || q.state_codes.is_empty(),
            counted: total,
        })
    }
}

pub fn list(req: &Request) -> Result<Response, Error> {
    let q = Query::parse(req)?;
    let dates = q.from.is_some() || q.to.is_some();
    let tests_properties = !q.missing.is_empty() || !q.exists.is_empty() || !q.properties.is_empty();
    if let Some(needle) = &q.search {
        let search_only = !dates && !tests_properties && q.city_codes.is_empty() && q.state_codes.is_empty();
        match search::matches(needle)? {
            Found::Newest(ids) if search_only && !q.by_updated => return newest_matches(&q, ids),
            Found::Newest(ids) | Found::Ids(ids) => return few_matches(&q, ids),
            Found::Many if search_only && !q.by_updated => return many_matches(&q, needle),
            Found::Many => {}
        }
    }
    let filtered = dates || q.search.is_some() || tests_properties;
    let page_end = q.paging.offset().saturating_add(q.paging.limit as u64);
    let mut walk = Walk::choose(&q, if filtered { u64::MAX } else { page_end })?;
    // Filters the walk does not answer itself are tested on each record.
    let needs_record = (dates && !walk.dates_answered) || !walk.codes_answered || tests_properties;
    let (skip, limit) = (q.paging.offset(), q.paging.limit);

    // The walk alone answers, uncut by dates: the counters give the total;
    // read only the page.
    if !needs_record && q.search.is_none() && !dates {
        let total = walk.counted as usize;
        let mut ids = Vec::new();
        if !q.paging.is_past(total) {
            let mut seen = 0u64;
            while ids.len() < limit
                && let Some(entry) = walk.entries.next_entry()?
            {
                if seen >= skip {
                    ids.push(crate::record::id_of(&entry));
                }
                seen += 1;
            }
        }
        return Ok(q.paging.response_raw(&index::rendered(&ids)?, total));
    }

    // Otherwise test every entry of the walk, count the matches, keep the
    // page: a chunk of entries at a time, what they need read in one call.
    let mut total = 0u64;
    let mut ids = Vec::new();
    loop {
        let mut chunk = Vec::with_capacity(TEST_CHUNK);
        while chunk.len() < TEST_CHUNK
            && let Some(entry) = walk.entries.next_entry()?
        {
            chunk.push(crate::record::id_of(&entry));
        }
        if chunk.is_empty() {
            break;
        }
        if let Some(needle) = &q.search {
            chunk = search::matching(chunk, needle)?;
        }
        if needs_record {
            chunk = matching_records(&q, chunk)?.into_iter().map(|c| c.id).collect();
        }
        for id in chunk {
            if total >= skip && ids.len() < limit {
                ids.push(id);
            }
            total += 1;
        }
    }
    Ok(q.paging.response_raw(&index::rendered(&ids)?, total as usize))
}

/// The contacts of `ids` that exist and match the query's record filters, in
/// order. Only the records whose bytes pass [`Query::raw`] are decoded.
fn matching_records(q: &Query, ids: Vec<String>) -> Result<Vec<Contact>, Error> {
    let keys: Vec<String> = ids.iter().map(|id| record::key(id)).collect();
    let mut found = Vec::new();
    for (raw, key) in kv::get_many_raw(&keys)?.into_iter().zip(&keys) {
        let Some(raw) = raw.filter(|raw| q.raw.may_match(raw)) else { continue };
        let contact: Contact = kv::decode(key, &raw)?;
        if q.record_matches(&contact) {
            found.push(contact);
        }
    }
    Ok(found)
}

/// A search alone, sorted by creation, found by the index: the matches are
/// the list, already in order; only the page is read.
fn newest_matches(q: &Query, mut ids: Vec<String>) -> Result<Response, Error> {
    if q.ascending {
        ids.reverse();
    }
    let page: Vec<String> = ids.iter().skip(q.paging.skip()).take(q.paging.limit).cloned().collect();
    Ok(q.paging.response_raw(&index::rendered(&page)?, ids.len()))
}

/// A search alone matching many contacts, sorted by creation: the host counts
/// the matches, and the walk by creation stops once the page is full.
fn many_matches(q: &Query, needle: &str) -> Result<Response, Error> {
    let total = store::count_found(b"s/", needle.as_bytes())? as usize;
    let mut walk = Walk::choose(q, TEST_CHUNK as u64)?;
    let (skip, limit) = (q.paging.offset(), q.paging.limit);
    let (mut seen, mut ids) = (0u64, Vec::new());
    while ids.len() < limit && !q.paging.is_past(total) {
        let mut chunk = Vec::with_capacity(TEST_CHUNK);
        while chunk.len() < TEST_CHUNK
            && let Some(entry) = walk.entries.next_entry()?
        {
            chunk.push(crate::record::id_of(&entry));
        }
        if chunk.is_empty() {
            break;
        }
        for id in search::matching(chunk, needle)? {
            if seen >= skip && ids.len() < limit {
                ids.push(id);
            }
            seen += 1;
        }
    }
    Ok(q.paging.response_raw(&index::rendered(&ids)?, total))
}

/// A search with few matches: read those contacts, filter and sort them.
fn few_matches(q: &Query, ids: Vec<String>) -> Result<Response, Error> {
    let mut found: Vec<(String, String)> = Vec::new();
    // A chunk at a time: only the sort keys of all of them are kept.
    for chunk in ids.chunks(TEST_CHUNK) {
        found.extend(matching_records(q, chunk.to_vec())?.into_iter().map(|c| (q.sort_key(&c), c.id)));
    }
    found.sort();
    if !q.ascending {
        found.reverse();
    }
    let page: Vec<String> = found.iter().skip(q.paging.skip()).take(q.paging.limit).map(|(_, id)| id.clone()).collect();
    Ok(q.paging.response_raw(&index::rendered(&page)?, found.len()))
}

/// Property tests on hostile text ([`crm_hostile_text`]): any query string
/// is a list query within its bounds, or a 400 with a code.
#[cfg(test)]
mod properties {
    use super::*;
    use crm_hostile_text::{around, config, text};
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::sample::select;

    fn name() -> impl Strategy<Value = String> {
        let known: Vec<&str> =
            RESERVED.iter().copied().chain(["email", "mobile", "whatsapp_phone", "plan", "lastName"]).collect();
        prop_oneof![5 => select(known).prop_map(String::from), 1 => "[a-z_.-]{1,8}".prop_map(String::from), 1 => text(10)]
    }

    fn value() -> impl Strategy<Value = String> {
        let shapes = select(vec![
            "2024-01-31",
            "2024-02-30",
            "2024-01-31T10:00:00Z",
            "2024-01-31T10:00:00.5-05:00",
            "05001",
            "11",
            "1",
            "1000",
            "-3",
            "asc",
            "updatedAt",
            "exact",
            "email,mobile",
            "300 123 4567",
            "+57 300 123 4567",
            "gómez",
            "S.A.S.",
        ])
        .prop_map(String::from);
        prop_oneof![3 => shapes.clone(), 4 => around(shapes), 2 => text(40)]
    }

    fn request(query: Vec<(String, String)>) -> Request {
        Request {
            method: "GET".into(),
            path: "/contacts".into(),
            path_params: vec![],
            query,
            headers: vec![],
            body: vec![],
        }
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn a_list_query_is_within_its_bounds_or_refused_with_a_code(query in vec((name(), value()), 0..12)) {
            let q = match Query::parse(&request(query)) {
                Err(e) => {
                    prop_assert_eq!(e.status, 400);
                    prop_assert_eq!(e.body.get("code").and_then(|c| c.as_str()), Some("VALIDATION_ERROR"));
                    return Ok(());
                }
                Ok(q) => q,
            };
            prop_assert!(q.paging.page >= 1 && (1..=1000).contains(&q.paging.limit));
            let digits = |codes: &[String], len: usize| codes.iter().all(|c| c.len() == len && c.bytes().all(|b| b.is_ascii_digit()));
            prop_assert!(digits(&q.city_codes, 5) && digits(&q.state_codes, 2));
            prop_assert!(q.city_codes.windows(2).all(|pair| matches!(pair, [a, b] if a < b)), "sorted, distinct");
            for bound in [&q.from, &q.to].into_iter().flatten() {
                prop_assert!(DateTime::parse_from_rfc3339(bound).is_ok() && bound.ends_with('Z'), "{bound:?}");
            }
            prop_assert!(q.missing.len() <= MAX_FILTER_KEYS && q.exists.len() <= MAX_FILTER_KEYS);
            prop_assert!(q.properties.len() <= MAX_FILTER_KEYS && q.properties.values().all(|v| v.len() <= MAX_CODES));
            prop_assert!(q.search.as_ref().is_none_or(|s| !s.contains('\n')));
        }
    }
}
