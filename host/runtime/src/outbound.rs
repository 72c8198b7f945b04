//! Outbound HTTP of provider components: the policy, enforced here, and the
//! client that carries it out, supplied by the server through [`HttpClient`]
//! (the runtime opens no socket itself).
//!
//! A provider reaches only allowed hosts ([`Allowlist`]), with bounded request
//! bodies and batches; the client never follows redirects, applies its own
//! timeout and reads at most [`MAX_RESPONSE_BYTES`] of an answer.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::future::join_all;
use url::Url;

use crate::bindings::platform::crm::plugin::http::{HttpError, HttpRequest, HttpResponse};

/// Largest response body a provider may receive.
pub const MAX_RESPONSE_BYTES: usize = 4 << 20;
/// Largest request body a provider may send, and most requests per `send-all`.
pub const MAX_REQUEST_BYTES: usize = 1 << 20;
pub const MAX_BATCH: usize = 32;

/// Where one provider instance may send: `(host, port)`; a `None` port means
/// the scheme's default port only.
#[derive(Debug, Clone, Default)]
pub struct Allowlist(Vec<(String, Option<u16>)>);

impl Allowlist {
    /// The hosts a provider declared, on their default ports, plus the exact
    /// host and port of each URL the organization configured.
    pub fn new(declared: &[String], configured: &[&str]) -> Allowlist {
        let mut allowed: Vec<(String, Option<u16>)> = declared.iter().map(|h| (h.to_ascii_lowercase(), None)).collect();
        for url in configured.iter().filter(|u| !u.is_empty()) {
            if let Ok(url) = Url::parse(url)
                && let Some(host) = url.host_str()
            {
                allowed.push((host.to_ascii_lowercase(), url.port_or_known_default()));
            }
        }
        Allowlist(allowed)
    }

    /// The URL when the request may go there.
    pub fn check(&self, url: &str) -> Result<Url, HttpError> {
        let url = Url::parse(url).map_err(|e| HttpError::NotAllowed(format!("not a URL: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(HttpError::NotAllowed(format!("scheme {} is not allowed", url.scheme())));
        }
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let port = url.port_or_known_default();
        let allowed = self.0.iter().any(|(h, p)| {
            *h == host
                && match p {
                    Some(p) => Some(*p) == port,
                    None => url.port().is_none(),
                }
        });
        if allowed { Ok(url) } else { Err(HttpError::NotAllowed(format!("host {host} is not allowed"))) }
    }
}

/// Carries out one request that passed the policy (a method that is not an
/// HTTP token is the client's [`HttpError::NotAllowed`]): no redirects followed,
/// the client's own timeout ([`HttpError::Timeout`]), at most
/// [`MAX_RESPONSE_BYTES`] read ([`HttpError::TooLarge`] past it).
pub trait HttpClient: Send + Sync + 'static {
    fn send(
        &self,
        method: &str,
        url: Url,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> Pin<Box<dyn Future<Output = Result<HttpResponse, HttpError>> + Send + '_>>;
}

/// The policy in front of the client.
#[derive(Clone)]
pub struct Outbound {
    client: Arc<dyn HttpClient>,
}

impl Outbound {
    pub fn new(client: Arc<dyn HttpClient>) -> Outbound {
        Outbound { client }
    }

    pub async fn send(&self, allowed: &Allowlist, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let url = allowed.check(&request.url)?;
        if request.body.len() > MAX_REQUEST_BYTES {
            return Err(HttpError::NotAllowed(format!("request bodies are limited to {MAX_REQUEST_BYTES} bytes")));
        }
        self.client.send(&request.method, url, request.headers, request.body).await
    }

    /// Every request at once; answers in order.
    pub async fn send_all(
        &self,
        allowed: &Allowlist,
        requests: Vec<HttpRequest>,
    ) -> Vec<Result<HttpResponse, HttpError>> {
        if requests.len() > MAX_BATCH {
            let refused = HttpError::NotAllowed(format!("at most {MAX_BATCH} requests per send-all"));
            return requests.iter().map(|_| Err(refused.clone())).collect();
        }
        join_all(requests.into_iter().map(|r| self.send(allowed, r))).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_hosts_allow_default_ports_and_configured_urls_their_own() {
        let allowed = Allowlist::new(&["api.envia.com".into()], &["http://127.0.0.1:4321/base", ""]);
        assert!(allowed.check("https://api.envia.com/ship/rate/").is_ok());
        assert!(allowed.check("https://API.envia.com/x").is_ok());
        assert!(allowed.check("https://api.envia.com:8443/x").is_err());
        assert!(allowed.check("http://127.0.0.1:4321/ship/").is_ok());
        assert!(allowed.check("http://127.0.0.1:4322/ship/").is_err());
        assert!(allowed.check("https://evil.example/").is_err());
        assert!(allowed.check("file:///etc/passwd").is_err());
        assert!(allowed.check("https://api.envia.com.evil.example/").is_err());
    }
}
