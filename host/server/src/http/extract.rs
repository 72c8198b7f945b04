//! The warp filter that turns any request into an [`ApiRequest`].
//!
//! Both listeners route by themselves (the public route table comes from the
//! modules at run time), so warp's job is only to hand over the request, read the
//! body under a size limit and the listener's budget (gzip undone,
//! [`super::encoding`]; [`super::body_budget`]), and attach a request id.

use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use futures_util::{Stream, StreamExt};
use http::{HeaderMap, Method, StatusCode};
use warp::filters::path::FullPath;
use warp::{Filter, Rejection};

use super::body_budget::{BodyBudget, BodyShare, server_busy};
use super::encoding::{self, Undecoded};
use super::{ApiError, ApiRequest};
use crate::listener::Peer;
use crm_tenancy::ids::new_id;

/// A request, or the error to answer it with (body too large, unreadable).
pub struct Extracted {
    /// The caller's `X-Request-Id`, or a new one; answers carry it either way.
    pub request_id: String,
    /// The method, for the access log of a request that could not be read.
    pub method: Method,
    pub request: Result<ApiRequest, ApiError>,
    /// What the body holds of the listener's budget, until the answer is sent.
    pub share: BodyShare,
}

/// The body limits of one listener: the host's default, a route's own
/// larger one (an import), asked for only when a body needs more than the
/// default, so the usual request pays no route lookup for it, and the
/// bytes all bodies may hold at once.
#[derive(Clone)]
pub struct BodyLimit {
    pub default: usize,
    pub route: Option<RouteBodyLimit>,
    pub budget: Option<BodyBudget>,
}

/// A route's own body limit, by method and path, when it has one.
pub type RouteBodyLimit = Arc<dyn Fn(&Method, &str) -> Option<usize> + Send + Sync>;

/// One request's limit: the default, raised once to its route's own when
/// the body needs more.
struct Limit<F: FnOnce() -> Option<usize>> {
    max: usize,
    route: Option<F>,
}

impl<F: FnOnce() -> Option<usize>> Limit<F> {
    fn allows(&mut self, len: u64) -> bool {
        if len > self.max as u64
            && let Some(route) = self.route.take()
            && let Some(larger) = route()
        {
            self.max = self.max.max(larger);
        }
        len <= self.max as u64
    }
}

/// Extracts every request, reading at most the body limit of its route
/// within `body_timeout`.
pub fn request(
    max_body: BodyLimit,
    body_timeout: Duration,
) -> impl Filter<Extract = (Extracted,), Error = Rejection> + Clone {
    let raw_query = warp::query::raw().or(warp::any().map(String::new)).unify();
    warp::method()
        .and(warp::path::full())
        .and(raw_query)
        .and(warp::header::headers_cloned())
        .and(warp::ext::optional::<Peer>())
        .and(warp::body::stream())
        .then(move |method: Method, path: FullPath, query: String, mut headers: HeaderMap, peer: Option<Peer>, body| {
            let limits = max_body.clone();
            async move {
                let request_id = request_id(&headers);
                let route_limit = limits.route.as_ref().map(|route| || route(&method, path.as_str()));
                let mut limit = Limit { max: limits.default, route: route_limit };
                let mut share = limits.budget.as_ref().map(BodyBudget::share).unwrap_or_default();
                let read = tokio::time::timeout(body_timeout, read_body(&headers, body, &mut limit, &mut share));
                let read = match read.await {
                    Ok(read) => read,
                    Err(_) => Err(ApiError::new(
                        StatusCode::REQUEST_TIMEOUT,
                        "REQUEST_TIMEOUT",
                        format!("The request body did not arrive within {} ms", body_timeout.as_millis()),
                    )),
                };
                let read = read.and_then(|body| {
                    // A gzip body's decoded bytes are held beside its own.
                    let (compressed, mut busy) = (body.len(), false);
                    let allows = |n: u64| {
                        if !limit.allows(n) {
                            return false;
                        }
                        busy = !share.grow_to(compressed.saturating_add(n as usize));
                        !busy
                    };
                    encoding::decoded_body(&mut headers, body, allows).map_err(|e| match e {
                        Undecoded::TooLarge if busy => server_busy(),
                        Undecoded::TooLarge => too_large(limit.max),
                        Undecoded::Refused(e) => e,
                    })
                });
                let read = read.map(|body| ApiRequest {
                    method: method.clone(),
                    path: path.as_str().to_string(),
                    query: form_urlencoded::parse(query.as_bytes()).into_owned().collect(),
                    headers,
                    body,
                    peer: peer.map(|p| p.0.ip()),
                    request_id: request_id.clone(),
                });
                Extracted { request_id, method, request: read, share }
            }
        })
}

/// The caller's `X-Request-Id` when it is a sane token, else a new id.
fn request_id(headers: &HeaderMap) -> String {
    headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_string)
        .unwrap_or_else(new_id)
}

fn too_large(max: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "PAYLOAD_TOO_LARGE",
        format!("The request body is larger than the limit of {max} bytes"),
    )
}

async fn read_body<S, B, F>(
    headers: &HeaderMap,
    body: S,
    limit: &mut Limit<F>,
    share: &mut BodyShare,
) -> Result<Bytes, ApiError>
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
    F: FnOnce() -> Option<usize>,
{
    let declared =
        headers.get(http::header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| !limit.allows(n)) {
        return Err(too_large(limit.max));
    }
    let mut buf = BytesMut::new();
    let mut body = std::pin::pin!(body);
    while let Some(chunk) = body.next().await {
        let mut chunk = chunk.map_err(|e| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "BODY_UNREADABLE",
                format!("The request body could not be read: {e}"),
            )
        })?;
        let read = buf.len() + chunk.remaining();
        if !limit.allows(read as u64) {
            return Err(too_large(limit.max));
        }
        if !share.grow_to(read) {
            return Err(server_busy());
        }
        while chunk.has_remaining() {
            let part = chunk.chunk();
            buf.extend_from_slice(part);
            let n = part.len();
            chunk.advance(n);
        }
    }
    Ok(buf.freeze())
}
