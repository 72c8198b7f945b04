//! One delivery attempt over HTTP, safe against SSRF at connection time.
//!
//! The client resolves names through [`CheckedResolver`], which hands the
//! connector only addresses the [`Policy`] allows: the address checked is the
//! address connected to, so a name that resolved to a public address when the
//! URL was saved and to `127.0.0.1` now (DNS rebinding) is refused. A URL
//! whose host is an address literal skips resolution, so it is checked
//! before sending. Redirects are not followed (a 3xx is a failed attempt),
//! no proxy is used, an attempt has 15 s, and at most 64 KB of the answer
//! is read.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::schedule::Outcome;
use crate::webhook_url::{self, Policy};

/// How long one attempt may take, answer included.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(15);
/// Most bytes of an answer read (the rest is dropped with the connection).
const MAX_ANSWER: usize = 64 << 10;

/// Resolves names with the system resolver, keeping only allowed addresses.
struct CheckedResolver {
    policy: Policy,
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy;
        Box::pin(async move {
            let host = name.as_str().to_string();
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let allowed: Vec<SocketAddr> = found.into_iter().filter(|a| policy.check_address(a.ip()).is_ok()).collect();
            if allowed.is_empty() {
                return Err(format!("{host} resolves to no public address").into());
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

/// The webhook HTTP client: one per host, shared by every delivery.
#[derive(Clone)]
pub struct Sender {
    client: reqwest::Client,
    policy: Policy,
}

/// One signed request.
pub struct Attempt<'a> {
    pub url: &'a str,
    /// The target's own headers first; the host's (`webhook-*`,
    /// `content-type`) are set after them and win.
    pub headers: &'a [(String, String)],
    pub webhook_id: &'a str,
    pub timestamp: i64,
    pub signature: &'a str,
    pub body: Vec<u8>,
}

impl Sender {
    pub fn new(policy: Policy) -> Sender {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(ATTEMPT_TIMEOUT)
            .connect_timeout(Duration::from_secs(5))
            .user_agent(concat!("crm-webhooks/", env!("CARGO_PKG_VERSION")))
            .dns_resolver(Arc::new(CheckedResolver { policy }))
            .build()
            .expect("the webhook client builds");
        Sender { client, policy }
    }

    /// Sends one attempt; every failure is an [`Outcome`], never an error.
    pub async fn send(&self, attempt: Attempt<'_>) -> Outcome {
        self.send_keeping(attempt, 0).await.0
    }

    /// [`Sender::send`], keeping the first `keep` bytes of the answer.
    pub async fn send_keeping(&self, attempt: Attempt<'_>, keep: usize) -> (Outcome, Vec<u8>) {
        let url = match webhook_url::parse(self.policy, attempt.url) {
            Ok(url) => url,
            Err(why) => return (Outcome::Failed(why), Vec::new()),
        };
        let literal = url.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = literal.parse::<IpAddr>()
            && let Err(why) = self.policy.check_address(ip)
        {
            return (Outcome::Failed(why), Vec::new());
        }
        let mut request = self.client.post(url);
        for (name, value) in attempt.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let request = request
            .header("content-type", "application/json")
            .header("webhook-id", attempt.webhook_id)
            .header("webhook-timestamp", attempt.timestamp.to_string())
            .header("webhook-signature", attempt.signature)
            .body(attempt.body);
        let mut response = match request.send().await {
            Ok(response) => response,
            Err(e) => return (Outcome::Failed(describe(&e)), Vec::new()),
        };
        let status = response.status().as_u16();
        let retry_after = response.headers().get("retry-after").and_then(|v| retry_after(v.to_str().ok()?));
        // Read (and drop) a bounded part of the answer so the connection ends cleanly.
        let (mut read, mut kept) = (0, Vec::new());
        while read < MAX_ANSWER {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    read += chunk.len();
                    kept.extend(chunk.iter().take(keep.saturating_sub(kept.len())));
                }
                _ => break,
            }
        }
        let outcome = match status {
            200..=299 => Outcome::Delivered(status),
            410 => Outcome::Gone,
            429 => Outcome::Refused { status, retry_after },
            _ => Outcome::Refused { status, retry_after: None },
        };
        (outcome, kept)
    }
}

/// A `Retry-After` value: seconds, or an HTTP date (RFC 9110 allows both).
fn retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    match value.parse::<u64>() {
        Ok(secs) => Some(Duration::from_secs(secs)),
        Err(_) => Some(
            httpdate::parse_http_date(value).ok()?.duration_since(std::time::SystemTime::now()).unwrap_or_default(),
        ),
    }
}

/// A failure in a few words, without the URL (it may carry a customer's token).
fn describe(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connection failed"
    } else {
        "request failed"
    };
    let mut source = std::error::Error::source(e);
    let mut detail = None;
    while let Some(s) = source {
        detail = Some(s.to_string());
        source = s.source();
    }
    match detail {
        Some(d) => format!("{kind}: {d}"),
        None => kind.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(url: &str) -> Attempt<'_> {
        Attempt { url, headers: &[], webhook_id: "evt", timestamp: 0, signature: "v1,x", body: b"{}".to_vec() }
    }

    #[test]
    fn retry_after_is_seconds_or_a_date() {
        assert_eq!(retry_after(" 120 "), Some(Duration::from_secs(120)));
        let later = std::time::SystemTime::now() + Duration::from_secs(600);
        let wait = retry_after(&httpdate::fmt_http_date(later)).unwrap();
        assert!(wait > Duration::from_secs(590) && wait <= Duration::from_secs(600), "{wait:?}");
        assert_eq!(retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO), "a past date: at once");
        assert_eq!(retry_after("soon"), None);
    }

    /// The address connected to is checked, not only the saved URL: a name
    /// that resolves to loopback now (DNS rebinding) is refused at delivery.
    #[tokio::test]
    async fn a_name_resolving_to_a_private_address_is_refused_at_connection() {
        let sender = Sender::new(Policy { allow_private: false });
        match sender.send(attempt("https://localhost:9/hook")).await {
            Outcome::Failed(why) => assert!(why.contains("no public address"), "{why}"),
            other => panic!("sent to loopback: {other:?}"),
        }
        for literal in ["https://127.0.0.1:9/", "https://[::ffff:127.0.0.1]:9/", "https://169.254.169.254/"] {
            match sender.send(attempt(literal)).await {
                Outcome::Failed(why) => assert!(why.contains("not a public address"), "{literal}: {why}"),
                other => panic!("sent to {literal}: {other:?}"),
            }
        }
        assert!(matches!(sender.send(attempt("http://8.8.8.8/")).await, Outcome::Failed(_)), "plain http is refused");
    }
}
