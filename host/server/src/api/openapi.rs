//! `GET /api/openapi.json`: the API's OpenAPI 3.1 document, without a token
//! (integrators generate clients from it before they have one).
//!
//! The document is `openapi.json` beside this file, written by hand and
//! embedded at build time. Two tests keep it honest: `tests/it/openapi.rs`
//! compares its operations with the live route table (`GET /admin/routes`),
//! and runs Schemathesis against a live host with it.

use std::sync::{Arc, LazyLock};

use bytes::Bytes;
use http::{Method, StatusCode};

use crate::http::{ApiError, Response, encoding};

/// Where the document is served.
pub const PATH: &str = "/api/openapi.json";

const DOCUMENT: &str = include_str!("openapi.json");

/// The document, parsed once, for what the host makes from it (the event
/// types it lists).
pub fn document() -> &'static serde_json::Value {
    static PARSED: LazyLock<serde_json::Value> =
        LazyLock::new(|| serde_json::from_str(DOCUMENT).expect("openapi.json is JSON (a unit test checks)"));
    &PARSED
}

/// The document as gzip, made on its first ask.
static GZIPPED: LazyLock<Option<Bytes>> = LazyLock::new(|| encoding::gzip_ahead(DOCUMENT.as_bytes()));

/// The document, or 405 for another method than `GET` (a HEAD arrives as GET).
pub fn serve(method: &Method) -> Response {
    let answer = if method == Method::GET {
        Response::json_bytes(StatusCode::OK, Bytes::from_static(DOCUMENT.as_bytes()))
            .with_gzipped(GZIPPED.clone())
            .with_header(http::header::CACHE_CONTROL, "public, max-age=300")
    } else {
        ApiError::method_not_allowed(method, PATH, &[Method::GET]).into_response()
    };
    answer.served_by(Arc::from(PATH), None)
}

#[cfg(test)]
mod tests {
    use super::DOCUMENT;

    #[test]
    fn the_document_is_openapi_3_1_json() {
        let doc: serde_json::Value = serde_json::from_str(DOCUMENT).expect("openapi.json is JSON");
        assert_eq!(doc["openapi"], "3.1.0");
        assert!(doc["paths"].as_object().is_some_and(|p| p.len() > 20));
    }
}
