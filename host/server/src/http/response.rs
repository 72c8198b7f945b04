//! The response a handler returns, independent of warp.

use bytes::Bytes;
use http::{HeaderName, HeaderValue, StatusCode};
use serde::Serialize;

#[derive(Debug, Clone)]
pub struct Response {
    pub status: StatusCode,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub body: Bytes,
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
        }
    }

    /// No body.
    pub fn empty(status: StatusCode) -> Response {
        Response { status, headers: Vec::new(), body: Bytes::new() }
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
        builder.header("x-request-id", request_id).body(self.body).expect("response parts are valid")
    }
}
