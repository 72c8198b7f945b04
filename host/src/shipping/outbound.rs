//! Outbound HTTP for provider components: only to allowed hosts, never
//! following redirects, under a timeout and a response size cap.

use std::time::Duration;

use futures_util::future::join_all;
use reqwest::Url;
use reqwest::redirect::Policy;

use crate::plugins::bindings::platform::crm::plugin::http::{HttpError, HttpRequest, HttpResponse};

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

    fn check(&self, url: &str) -> Result<Url, HttpError> {
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

/// The shared client.
pub struct Outbound {
    client: reqwest::Client,
    timeout: Duration,
}

impl Outbound {
    pub fn new(timeout: Duration) -> Outbound {
        // The timeout is applied around each whole exchange in `send`.
        let client = reqwest::Client::builder()
            .redirect(Policy::none())
            .pool_max_idle_per_host(64)
            .user_agent(concat!("crm-host/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("the HTTP client builds");
        Outbound { client, timeout }
    }

    pub async fn send(&self, allowed: &Allowlist, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let url = allowed.check(&request.url)?;
        let method = reqwest::Method::from_bytes(request.method.as_bytes())
            .map_err(|_| HttpError::NotAllowed(format!("method {} is not allowed", request.method)))?;
        if request.body.len() > MAX_REQUEST_BYTES {
            return Err(HttpError::NotAllowed(format!("request bodies are limited to {MAX_REQUEST_BYTES} bytes")));
        }
        let mut builder = self.client.request(method, url).body(request.body);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        match tokio::time::timeout(self.timeout, read(builder)).await {
            Ok(result) => result,
            Err(_) => Err(HttpError::Timeout),
        }
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

async fn read(builder: reqwest::RequestBuilder) -> Result<HttpResponse, HttpError> {
    let mut response = builder.send().await.map_err(network)?;
    if response.content_length().is_some_and(|n| n > MAX_RESPONSE_BYTES as u64) {
        return Err(HttpError::TooLarge);
    }
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
        .collect();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(network)? {
        if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(HttpError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(HttpResponse { status, headers, body })
}

/// A failed exchange: the request may have arrived.
fn network(e: reqwest::Error) -> HttpError {
    HttpError::Network(e.to_string())
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
