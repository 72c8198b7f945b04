//! The warp filter that turns any request into an [`ApiRequest`].
//!
//! Both listeners route by themselves (the public route table comes from the
//! modules at run time), so warp's job is only to hand over the request, let
//! the listener look at its head before any of its body is read ([`Admit`]:
//! the route, the caller, the body's limit), read the body under that limit
//! and the listener's budget (gzip undone, [`super::encoding`];
//! [`super::body_budget`]), and attach a request id.
//!
//! A request refused on its head (no valid token, an unknown route, a spent
//! rate, a declared length past its limit) never has its body held: an HTTP/1.1 client that sent `Expect:
//! 100-continue` is answered without sending it, and another's body is dropped as it
//! arrives, up to the limit, so that the answer is not lost to a connection
//! reset under a client still sending.

use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use futures_util::{Stream, StreamExt};
use http::{HeaderMap, Method, StatusCode};
use warp::filters::path::FullPath;
use warp::{Filter, Rejection};

use super::body_budget::{BodyBudget, BodyShare, server_busy};
use super::encoding::{self, Undecoded};
use super::request::{Peer, Protocol};
use super::{ApiError, ApiRequest};
use crm_tenancy::ids::new_id;

/// A request, or the error to answer it with (refused on its head, body too
/// large, unreadable).
pub struct Extracted<A> {
    /// The caller's `X-Request-Id`, or a new one; answers carry it either way.
    pub request_id: String,
    /// The method as sent (a HEAD's request is a GET), for the access log.
    pub method: Method,
    /// The request and what the listener learnt from its head.
    pub request: Result<(ApiRequest, A), ApiError>,
    /// What the body holds of the listener's budget, until the answer is sent.
    pub share: BodyShare,
}

/// What a listener decides from a request's head.
pub struct Admission<A> {
    /// The largest body the request may have.
    pub max_body: usize,
    /// What the listener learnt (the caller, the route), or the answer to
    /// give without keeping the body.
    pub verdict: Result<A, ApiError>,
}

impl<A> Admission<A> {
    /// The same decision, what was learnt turned by `f`.
    pub fn map<B>(self, f: impl FnOnce(A) -> B) -> Admission<B> {
        Admission { max_body: self.max_body, verdict: self.verdict.map(f) }
    }
}

/// A listener's body limits: its default, and the most any route's own may be.
#[derive(Debug, Clone, Copy)]
pub struct BodyLimits {
    pub default: usize,
    pub ceiling: usize,
}

impl BodyLimits {
    /// The limit of a route with its own limit `route`, if any.
    pub fn of(&self, route: Option<usize>) -> usize {
        route.unwrap_or(self.default).min(self.ceiling)
    }
}

/// A listener's look at a request before its body is read (`body` is empty).
pub type Admit<A> = Arc<dyn Fn(&ApiRequest) -> Admission<A> + Send + Sync>;

/// Extracts every request: admitted on its head by `admit`, then its body
/// read within `body_timeout`, holding at most what is left of `budget`.
pub fn request<A: Send + 'static>(
    admit: Admit<A>,
    budget: Option<BodyBudget>,
    body_timeout: Duration,
) -> impl Filter<Extract = (Extracted<A>,), Error = Rejection> + Clone {
    let raw_query = warp::query::raw().or(warp::any().map(String::new)).unify();
    let head = warp::method()
        .and(warp::path::full())
        .and(raw_query)
        .and(warp::header::headers_cloned())
        .and(warp::ext::optional::<Peer>())
        .and(warp::ext::optional::<Protocol>())
        .map(|method, path: FullPath, query: String, headers, peer: Option<Peer>, protocol: Option<Protocol>| Head {
            method,
            path: path.as_str().to_string(),
            query,
            headers,
            peer: peer.map(|p| p.0.ip()),
            protocol: protocol.map(|p| p.0),
        });
    head.and(warp::body::stream()).then(move |head: Head, body| {
        let (admit, budget) = (admit.clone(), budget.clone());
        async move { extract(head, body, &admit, budget, body_timeout).await }
    })
}

/// What warp hands over before the body.
struct Head {
    method: Method,
    path: String,
    query: String,
    headers: HeaderMap,
    peer: Option<std::net::IpAddr>,
    protocol: Option<http::Version>,
}

/// One request: admitted on its head, then its body read, or dropped as it
/// arrives when the request is refused.
async fn extract<A, S, B>(
    head: Head,
    body: S,
    admit: &Admit<A>,
    budget: Option<BodyBudget>,
    body_timeout: Duration,
) -> Extracted<A>
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    let Head { method, path, query, headers, peer, protocol } = head;
    // Only over HTTP/1.1 does a client wait for `100 Continue` (hyper
    // sends none over HTTP/2, where the body follows anyway).
    let waits_to_send = protocol == Some(http::Version::HTTP_11)
        && headers.get(http::header::EXPECT).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    let request_id = request_id(&headers);
    let mut req = ApiRequest {
        // HEAD is GET without the body (RFC 9110 § 9.3.2): routes see a
        // GET, and hyper sends the headers only, Content-Length included.
        method: if method == Method::HEAD { Method::GET } else { method.clone() },
        path,
        query: form_urlencoded::parse(query.as_bytes()).into_owned().collect(),
        headers,
        body: Bytes::new(),
        peer,
        request_id: request_id.clone(),
    };
    let Admission { max_body, verdict } = admit(&req);
    // A declared length past the limit is refused on the head too.
    let verdict = verdict.and_then(|admitted| match declared_length(&req.headers) {
        Some(n) if n > max_body as u64 => Err(too_large(max_body)),
        _ => Ok(admitted),
    });
    let mut share = budget.as_ref().map(BodyBudget::share).unwrap_or_default();
    let request = match verdict {
        Ok(admitted) => read_within(body_timeout, &mut req.headers, body, max_body, &mut share)
            .await
            .map(|body| (ApiRequest { body, ..req }, admitted)),
        Err(refused) => {
            if !waits_to_send {
                discard(body_timeout, &req.headers, body, max_body).await;
            }
            Err(refused)
        }
    };
    Extracted { request_id, method, request, share }
}

/// The body, read within `timeout` and at most `max` bytes (decoded), held
/// in `share`.
async fn read_within<S, B>(
    timeout: Duration,
    headers: &mut HeaderMap,
    body: S,
    max: usize,
    share: &mut BodyShare,
) -> Result<Bytes, ApiError>
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    let body = match tokio::time::timeout(timeout, read_body(body, max, share)).await {
        Ok(read) => read?,
        Err(_) => {
            return Err(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "REQUEST_TIMEOUT",
                format!("The request body did not arrive within {} ms", timeout.as_millis()),
            ));
        }
    };
    // A gzip body's decoded bytes are held beside its own.
    let (compressed, mut busy) = (body.len(), false);
    let allows = |n: u64| {
        if n > max as u64 {
            return false;
        }
        busy = !share.grow_to(compressed.saturating_add(n as usize));
        !busy
    };
    encoding::decoded_body(headers, body, allows).map_err(|e| match e {
        Undecoded::TooLarge if busy => server_busy(),
        Undecoded::TooLarge => too_large(max),
        Undecoded::Refused(e) => e,
    })
}

/// What a refused request may still send, and have dropped, before its
/// connection is closed under it: the host's default body limit.
const DISCARDED_AT_MOST: usize = 1 << 20;

/// Reads a refused request's body and drops it as it arrives, so that the
/// answer reaches a client still sending (closed with unread bytes, the
/// connection is reset, and the client may lose the answer); gives up past
/// `max` or [`DISCARDED_AT_MOST`] bytes, whichever is more, or `timeout`
/// (the connection then closes), and at once when the client declares more.
async fn discard<S, B>(timeout: Duration, headers: &HeaderMap, body: S, max: usize)
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    let max = max.max(DISCARDED_AT_MOST);
    if declared_length(headers).is_some_and(|n| n > max as u64) {
        return;
    }
    let drain = async {
        let mut body = std::pin::pin!(body);
        let mut read = 0usize;
        while let Some(Ok(chunk)) = body.next().await {
            read = read.saturating_add(chunk.remaining());
            if read > max {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(timeout, drain).await;
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers.get(http::header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok())
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

async fn read_body<S, B>(body: S, max: usize, share: &mut BodyShare) -> Result<Bytes, ApiError>
where
    S: Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
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
        if read > max {
            return Err(too_large(max));
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
