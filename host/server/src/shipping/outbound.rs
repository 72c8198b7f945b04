//! The HTTP client behind provider components' outbound requests: reqwest,
//! never following redirects, one timeout around each whole exchange, and a
//! response size cap. The policy (which hosts, how large a request) is the
//! runtime's, checked before a request gets here.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use crm_runtime::HttpClient;
use crm_runtime::bindings::platform::crm::plugin::http::{HttpError, HttpResponse};
use crm_runtime::outbound::MAX_RESPONSE_BYTES;
use reqwest::Url;
use reqwest::redirect::Policy;

pub struct ReqwestClient {
    client: reqwest::Client,
    timeout: Duration,
}

impl ReqwestClient {
    /// `proxy_from_env`: whether `HTTPS_PROXY` and its kin are followed
    /// (`--http-proxy-from-env`); by default they are ignored.
    pub fn new(timeout: Duration, proxy_from_env: bool) -> ReqwestClient {
        // The timeout is applied around each whole exchange in `send`.
        let mut client = reqwest::Client::builder()
            .redirect(Policy::none())
            .pool_max_idle_per_host(64)
            .user_agent(concat!("crm-host/", env!("CARGO_PKG_VERSION")));
        if !proxy_from_env {
            client = client.no_proxy();
        }
        ReqwestClient { client: client.build().expect("the HTTP client builds"), timeout }
    }
}

impl HttpClient for ReqwestClient {
    fn send(
        &self,
        method: &str,
        url: Url,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> Pin<Box<dyn Future<Output = Result<HttpResponse, HttpError>> + Send + '_>> {
        let method = reqwest::Method::from_bytes(method.as_bytes())
            .map_err(|_| HttpError::NotAllowed(format!("method {method} is not allowed")));
        Box::pin(async move {
            let mut builder = self.client.request(method?, url).body(body);
            for (name, value) in &headers {
                builder = builder.header(name, value);
            }
            match tokio::time::timeout(self.timeout, read(builder)).await {
                Ok(result) => result,
                Err(_) => Err(HttpError::Timeout),
            }
        })
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
