//! The request as handlers see it: already read, size-checked and id-tagged.

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use serde::de::DeserializeOwned;

use super::ApiError;

/// The address a request's connection came from, put in its extensions by
/// the listener.
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub std::net::SocketAddr);

/// The HTTP version a request came in, put in its extensions by the listener
/// (warp has no filter for it): a body is waited for behind `Expect:
/// 100-continue` only in HTTP/1.1.
#[derive(Debug, Clone, Copy)]
pub struct Protocol(pub http::Version);

#[derive(Debug, Clone)]
pub struct ApiRequest {
    pub method: Method,
    /// The path, percent-decoded is left to the router (segments are matched raw).
    pub path: String,
    /// Query pairs, decoded, in order, repeats kept.
    pub query: Vec<(String, String)>,
    pub headers: HeaderMap,
    pub body: Bytes,
    /// The address of the connection's peer (a proxy's, behind one).
    pub peer: Option<std::net::IpAddr>,
    pub request_id: String,
}

impl ApiRequest {
    /// The first value of a query parameter.
    pub fn query_first(&self, key: &str) -> Option<&str> {
        self.query.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// A header as text; `None` when absent or not visible ASCII.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body parsed as JSON into `T`.
    ///
    /// A body that is not declared JSON, or is not JSON, is a 400 that says so; a
    /// JSON body of the wrong shape is a 400 `VALIDATION_ERROR` naming the problem.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        let declared_json = self.header("content-type").is_some_and(|ct| {
            let mime = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
            mime == "application/json" || mime.ends_with("+json")
        });
        if !declared_json {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "UNSUPPORTED_CONTENT_TYPE",
                "The request body must be JSON, sent with Content-Type: application/json",
            ));
        }
        // RFC 8259 lets a parser ignore a byte-order mark, which Windows
        // tools put first; components' JSON reading (`crm_sdk::http`) does too.
        let body = crm_text_decoding::without_bom(&self.body);
        if body.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::new(StatusCode::BAD_REQUEST, "INVALID_JSON", "The request body is empty"));
        }
        serde_json::from_slice(body).map_err(|e| match e.classify() {
            serde_json::error::Category::Data => {
                ApiError::validation(format!("The request body has an invalid field: {e}"), e.to_string())
            }
            _ => ApiError::new(
                StatusCode::BAD_REQUEST,
                "INVALID_JSON",
                format!("The request body is not valid JSON: {e}"),
            ),
        })
    }
}
