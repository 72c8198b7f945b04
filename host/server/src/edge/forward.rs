//! An edge host's writes, forwarded to a host beside the primary
//! (`--write-host-url`): the request crosses the WAN once, and every rule
//! of the write (uniqueness, idempotency, plan limits, counts, the outbox,
//! durable before the 2xx) is kept there exactly as on any host.
//!
//! The request goes as the client sent it, its body already read (and
//! un-gzipped) here, over a pool of kept-alive connections, so a write pays
//! one round trip and no handshake. The client's address goes in
//! `X-Forwarded-For` (the write host believes it from the edge hosts its
//! `--trust-forwarded-for` names: a public form's rate is per client).
//!
//! A cut link must not hang a client: a forward is refused at once while
//! the primary does not answer the watch, and one in flight is abandoned
//! with a 503 as soon as it stops answering. Whether an abandoned write
//! was committed is then unknown, as with any lost connection: an
//! idempotency key makes trying again safe.

use std::time::Duration;

use http::{HeaderName, HeaderValue, StatusCode};
use reqwest::Url;

use crate::http::{ApiError, ApiRequest, Response};

/// Headers that belong to one connection, or that this host sets itself.
const NOT_FORWARDED: &[&str] = &[
    "connection",
    "keep-alive",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "proxy-connection",
    "host",
    "content-length",
    // The body is already here, whole.
    "expect",
    // The body was un-gzipped on reading; the answer is compressed for
    // the client here.
    "content-encoding",
    "accept-encoding",
    "x-request-id",
];

pub struct Forwarder {
    client: reqwest::Client,
    base: Url,
}

impl Forwarder {
    /// `longest`: how long a forwarded request may take.
    pub fn new(base: Url, longest: Duration) -> Forwarder {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(1))
            .timeout(longest)
            .pool_idle_timeout(Duration::from_secs(90))
            .tcp_nodelay(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("build the write host's client");
        Forwarder { client, base }
    }

    /// Sends `req` to the write host and hands back its answer.
    pub async fn forward(&self, req: &ApiRequest) -> Result<Response, ApiError> {
        let mut url = self.base.join(&req.path).map_err(|_| ApiError::not_found(&format!("Route {}", req.path)))?;
        if !req.query.is_empty() {
            url.query_pairs_mut().extend_pairs(req.query.iter());
        }
        let mut headers = req.headers.clone();
        for name in NOT_FORWARDED {
            headers.remove(*name);
        }
        if let Some(peer) = req.peer {
            let hops = match req.header("x-forwarded-for") {
                Some(earlier) => format!("{earlier}, {peer}"),
                None => peer.to_string(),
            };
            headers.insert("x-forwarded-for", HeaderValue::from_str(&hops).expect("addresses are header text"));
        }
        let sent = self.client.request(req.method.clone(), url).headers(headers).body(req.body.clone()).send();
        let answer = sent.await.map_err(|e| unreachable(&e))?;
        let status = StatusCode::from_u16(answer.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
        let headers: Vec<(HeaderName, HeaderValue)> = answer
            .headers()
            .iter()
            .filter(|(name, _)| !NOT_FORWARDED.contains(&name.as_str()))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        let body = answer.bytes().await.map_err(|e| unreachable(&e))?;
        Ok(Response { status, headers, body, gzipped: None, served: Default::default(), held: None })
    }
}

fn unreachable(e: &reqwest::Error) -> ApiError {
    tracing::warn!(error = %e, "a forwarded write got no answer from the write host");
    ApiError::store_unavailable("the write host does not answer")
}
