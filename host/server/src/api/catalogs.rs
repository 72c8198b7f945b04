//! `GET /api/catalogs/municipalities` and `GET /api/catalogs/states`.
//!
//! Answers are cacheable: `ETag` is the catalog version plus a hash of the
//! normalised filters, so equal searches share a tag and a new catalog changes
//! every tag; `If-None-Match` with that tag (alone, in a list, or `*`) is a 304.
//!
//! The catalog never changes while the process runs, so a rendered answer is a pure
//! function of its filters: [`RENDERED`] keeps recent ones (bounded in bytes),
//! with their gzip form.

use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

use bytes::Bytes;
use crm_catalog::catalog;
use crm_catalog::search::Search;
use http::StatusCode;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::api::auth::Caller;
use crate::http::router::Params;
use crate::http::{ApiError, ApiRequest, Response, encoding};
use crate::state::ServerState;

const CACHE_CONTROL: &str = "public, max-age=86400";

/// Most bytes of rendered bodies kept; past it the cache starts over.
const RENDERED_MAX_BYTES: usize = 16 << 20;

/// Rendered bodies by canonical filters, with their ETag.
static RENDERED: LazyLock<RwLock<Rendered>> = LazyLock::new(Default::default);

#[derive(Default)]
struct Rendered {
    entries: HashMap<String, Answer>,
    bytes: usize,
}

/// One rendered answer: its tag, its body and the body's gzip form, made
/// once (compressing the whole catalog again for every client that takes
/// gzip cost three times the rest of its answer).
#[derive(Clone)]
struct Answer {
    etag: String,
    body: Bytes,
    gzipped: Option<Bytes>,
}

pub fn municipalities(_: &ServerState, _: &Caller, req: &ApiRequest, _: &Params) -> Result<Response, ApiError> {
    let cat = catalog();
    let search = Search::parse(cat, req.query_first("q"), req.query_first("state"), req.query_first("limit"))
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e.code(), e.message()))?;
    cached(req, &format!("municipalities?{}", search.canonical()), || {
        let data = search.run(cat);
        json!({ "success": true, "version": cat.version, "count": data.len(), "data": data })
    })
}

pub fn states(_: &ServerState, _: &Caller, req: &ApiRequest, _: &Params) -> Result<Response, ApiError> {
    let cat = catalog();
    cached(
        req,
        "states",
        || json!({ "success": true, "version": cat.version, "count": cat.states.len(), "data": cat.states }),
    )
}

/// `GET /api/catalogs/resolve?city=&state=&cityCode=&country=`: the city
/// resolution every module applies, for a client to check a location first.
/// 200 `{success, status, data?, candidates}` where `status` is `resolved`,
/// `foreign`, `absent`, or an unresolved status; 400 `VALIDATION_ERROR` for a
/// field longer than the catalog compares.
pub fn resolve(_: &ServerState, _: &Caller, req: &ApiRequest, _: &Params) -> Result<Response, ApiError> {
    for field in ["city", "state", "cityCode", "country"] {
        if req.query_first(field).is_some_and(|v| v.chars().nth(crm_catalog::MAX_CITY_CHARS).is_some()) {
            return Err(ApiError::validation(
                format!("{field} is longer than {} characters", crm_catalog::MAX_CITY_CHARS),
                json!({ "field": field, "maxLength": crm_catalog::MAX_CITY_CHARS }),
            ));
        }
    }
    let input = crm_catalog::CityInput {
        city_code: req.query_first("cityCode"),
        city: req.query_first("city"),
        state: req.query_first("state"),
        country: req.query_first("country"),
    };
    let body = match catalog().resolve(input) {
        crm_catalog::Resolution::Resolved(m) => {
            json!({ "success": true, "status": "resolved", "data": m, "candidates": [] })
        }
        crm_catalog::Resolution::Foreign { city } => {
            json!({ "success": true, "status": "foreign", "data": { "city": city }, "candidates": [] })
        }
        crm_catalog::Resolution::Absent => {
            json!({ "success": true, "status": "absent", "data": null, "candidates": [] })
        }
        crm_catalog::Resolution::Unresolved { status, candidates } => {
            json!({ "success": true, "status": status.as_str(), "data": null, "candidates": candidates })
        }
    };
    Ok(Response::json(StatusCode::OK, &body))
}

/// A 304 when the client's copy is current, else the body `render` makes; both
/// with the caching headers.
fn cached(req: &ApiRequest, filters: &str, render: impl FnOnce() -> serde_json::Value) -> Result<Response, ApiError> {
    let version = &catalog().version;
    let hit = RENDERED.read().expect("cache lock").entries.get(filters).cloned();
    let Answer { etag, body, gzipped } = hit.unwrap_or_else(|| {
        let digest: String = hex::encode(Sha256::digest(filters.as_bytes())).chars().take(16).collect();
        let etag = format!("\"{version}-{digest}\"");
        let body = Bytes::from(serde_json::to_vec(&render()).expect("catalog serialises"));
        let answer = Answer { etag, gzipped: encoding::gzip_ahead(&body), body };
        let size = answer.body.len() + answer.gzipped.as_ref().map_or(0, Bytes::len);
        let mut cache = RENDERED.write().expect("cache lock");
        if cache.bytes + size > RENDERED_MAX_BYTES {
            *cache = Rendered::default();
        }
        cache.bytes += size;
        cache.entries.insert(filters.to_string(), answer.clone());
        answer
    });
    let response = if if_none_match(req, &etag) {
        Response::empty(StatusCode::NOT_MODIFIED)
    } else {
        Response::json_bytes(StatusCode::OK, body).with_gzipped(gzipped)
    };
    Ok(response
        .with_header(http::header::ETAG, &etag)
        .with_header(http::header::CACHE_CONTROL, CACHE_CONTROL)
        .with_header(http::HeaderName::from_static("x-catalog-version"), version))
}

/// Whether `If-None-Match` names `etag` (weak or strong) or is `*`.
fn if_none_match(req: &ApiRequest, etag: &str) -> bool {
    req.headers
        .get_all(http::header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(',').map(str::trim).any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag))
}
