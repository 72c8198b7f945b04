//! The response a handler returns, independent of warp.

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderName, HeaderValue, StatusCode};
use serde::Serialize;

#[derive(Debug, Clone)]
pub struct Response {
    pub status: StatusCode,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub body: Bytes,
    /// The body compressed with gzip ahead of time by a handler that caches
    /// its answers (the catalog, the OpenAPI document), sent to a client
    /// that takes gzip instead of compressing the body again
    /// ([`super::encoding::compress`]).
    pub gzipped: Option<Bytes>,
    /// What the access log and the metrics say of the request.
    pub served: Served,
    /// What the answer holds until it is written (see [`HeldUntilWritten`]).
    pub held: Option<HeldUntilWritten>,
}

/// Something an answer holds until its last byte is handed to the
/// connection, not just until it is made: an organization's in-flight slot
/// (`crate::fairness`), so that a client reading a large answer slowly
/// keeps its own organization's slot, and one organization cannot make the
/// host hold more answers at once than it may run requests. Travels in the
/// answer's extensions to the listener, which drops it with the written
/// answer.
#[derive(Clone)]
pub struct HeldUntilWritten {
    /// Held only to be dropped.
    _held: Arc<dyn Send + Sync>,
}

impl HeldUntilWritten {
    pub fn new(held: impl Send + Sync + 'static) -> HeldUntilWritten {
        HeldUntilWritten { _held: Arc::new(held) }
    }
}

impl std::fmt::Debug for HeldUntilWritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HeldUntilWritten")
    }
}

/// The route pattern that served a request (`/contacts/{id}`) and its
/// organization, when known: never the raw path nor the query, which may
/// carry ids and a form's key.
#[derive(Debug, Clone, Default)]
pub struct Served {
    pub route: Option<Arc<str>>,
    pub org: Option<String>,
}

impl Response {
    /// A JSON body.
    pub fn json(status: StatusCode, value: &impl Serialize) -> Response {
        Response::json_bytes(status, Bytes::from(serde_json::to_vec(value).expect("JSON values serialise")))
    }

    /// A body that is already JSON.
    pub fn json_bytes(status: StatusCode, body: Bytes) -> Response {
        Response {
            status,
            headers: vec![(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"))],
            body,
            gzipped: None,
            served: Served::default(),
            held: None,
        }
    }

    /// No body.
    pub fn empty(status: StatusCode) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Bytes::new(),
            gzipped: None,
            served: Served::default(),
            held: None,
        }
    }

    /// Names the route that served the request and its organization.
    pub fn served_by(mut self, route: Arc<str>, org: Option<&str>) -> Response {
        self.served = Served { route: Some(route), org: org.map(str::to_string) };
        self
    }

    /// Offers the body's gzip form, made ahead (see [`Response::gzipped`]).
    pub fn with_gzipped(mut self, gzipped: Option<Bytes>) -> Response {
        self.gzipped = gzipped;
        self
    }

    pub fn with_header(mut self, name: HeaderName, value: &str) -> Response {
        if let Ok(v) = HeaderValue::from_str(value) {
            self.headers.push((name, v));
        }
        self
    }

    /// Into the `http` type warp replies with, adding the request id.
    pub fn into_http(self, request_id: &str) -> http::Response<Bytes> {
        let mut builder = http::Response::builder().status(self.status);
        for (name, value) in self.headers {
            builder = builder.header(name, value);
        }
        if let Some(held) = self.held {
            builder = builder.extension(held);
        }
        builder.header("x-request-id", request_id).body(self.body).expect("response parts are valid")
    }
}
