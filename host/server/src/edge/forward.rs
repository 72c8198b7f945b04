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
//! Several write hosts may be named, for the loss of one's machine: they
//! are tried in order, and one that could not be reached is tried last for
//! [`SKIPPED_FOR`]. Only a request that never reached a host (its
//! connection refused or not made) goes on to the next: one that was sent
//! and got no answer may have been applied, and answers 503.
//!
//! A cut link must not hang a client: a forward is refused at once while
//! the primary does not answer the watch, and one in flight is abandoned
//! with a 503 as soon as it stops answering. Whether an abandoned write
//! was committed is then unknown, as with any lost connection: an
//! idempotency key makes trying again safe.

use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

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

/// How long a write host that could not be reached is tried after the others.
pub const SKIPPED_FOR: Duration = Duration::from_secs(5);

pub struct Forwarder {
    client: reqwest::Client,
    hosts: Vec<WriteHost>,
}

struct WriteHost {
    base: Url,
    /// When it last could not be reached.
    unreachable_at: Mutex<Option<Instant>>,
}

impl WriteHost {
    fn skipped(&self) -> bool {
        self.unreachable_at.lock().expect("write host state").is_some_and(|at| at.elapsed() < SKIPPED_FOR)
    }

    fn mark(&self, reached: bool) {
        *self.unreachable_at.lock().expect("write host state") = (!reached).then(Instant::now);
    }
}

/// Why a forward to one write host failed.
enum Failed {
    /// The request never reached it: the next may be tried.
    NotSent(reqwest::Error),
    /// It was sent and got no whole answer: it may have been applied.
    NoAnswer(reqwest::Error),
    /// The request's path cannot be put after the write host's address.
    Path,
}

impl Forwarder {
    /// `longest`: how long a forwarded request may take. `proxy_from_env`:
    /// whether `HTTPS_PROXY` and its kin are followed (`--http-proxy-from-env`).
    pub fn new(bases: Vec<Url>, longest: Duration, proxy_from_env: bool) -> Forwarder {
        let mut client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(1))
            .timeout(longest)
            .pool_idle_timeout(Duration::from_secs(90))
            .tcp_nodelay(true)
            .redirect(reqwest::redirect::Policy::none());
        if !proxy_from_env {
            client = client.no_proxy();
        }
        let client = client.build().expect("build the write host's client");
        let hosts = bases.into_iter().map(|base| WriteHost { base, unreachable_at: Mutex::new(None) }).collect();
        Forwarder { client, hosts }
    }

    /// Sends `req` to the first write host that takes it and hands back its answer.
    pub async fn forward(&self, req: &ApiRequest) -> Result<Response, ApiError> {
        let (fresh, skipped): (Vec<&WriteHost>, Vec<&WriteHost>) = self.hosts.iter().partition(|h| !h.skipped());
        let mut last = None;
        for host in fresh.into_iter().chain(skipped) {
            match self.send(host, req).await {
                Ok(response) => {
                    host.mark(true);
                    return Ok(response);
                }
                Err(Failed::NotSent(e)) => {
                    let e = e.without_url();
                    let write_host = crm_events::webhook_url::for_logs(host.base.as_str());
                    tracing::warn!(write_host, error = %e, "a write host could not be reached; trying the next");
                    host.mark(false);
                    last = Some(e);
                }
                Err(Failed::NoAnswer(e)) => return Err(unreachable(e)),
                Err(Failed::Path) => return Err(ApiError::not_found(&format!("Route {}", req.path))),
            }
        }
        Err(last.map_or_else(|| ApiError::store_unavailable("no write host is configured"), unreachable))
    }

    async fn send(&self, host: &WriteHost, req: &ApiRequest) -> Result<Response, Failed> {
        let mut url = host.base.join(&req.path).map_err(|_| Failed::Path)?;
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
        let answer = sent.await.map_err(|e| if e.is_connect() { Failed::NotSent(e) } else { Failed::NoAnswer(e) })?;
        let status = StatusCode::from_u16(answer.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
        let headers: Vec<(HeaderName, HeaderValue)> = answer
            .headers()
            .iter()
            .filter(|(name, _)| !NOT_FORWARDED.contains(&name.as_str()))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        let body = answer.bytes().await.map_err(Failed::NoAnswer)?;
        Ok(Response { status, headers, body, gzipped: None, served: Default::default(), held: None })
    }
}

fn unreachable(e: reqwest::Error) -> ApiError {
    // The error's URL would carry the request's query (a public form's key).
    tracing::warn!(error = %e.without_url(), "a forwarded write got no answer from the write host");
    ApiError::store_unavailable("the write host does not answer")
}
