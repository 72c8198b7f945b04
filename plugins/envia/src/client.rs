//! The account's URLs and key (from the organization's settings), and
//! sending requests to Envia.

use serde_json::Value;

use crate::bindings::crm::plugin::http::{self, HttpError, HttpRequest, HttpResponse};
use crate::bindings::crm::plugin::settings;
use crate::bindings::crm::plugin::shipping_types::ProviderError;
use crate::wire::{rejected, unknown};

/// Envia's hosts, production and sandbox (the only ones reachable besides the
/// URLs an organization configures).
pub const ENVIA_HOSTS: &[&str] =
    &["api.envia.com", "api-test.envia.com", "queries.envia.com", "queries-test.envia.com"];

const DEFAULT_SHIPPING: &str = "https://api.envia.com";

pub struct Client {
    api_key: String,
    /// Shipping API: rate, generate, track, cancel.
    pub shipping: String,
    /// Queries API: carriers.
    pub queries: String,
}

impl Client {
    /// The organization's account; `rejected` when it has none.
    pub fn configured() -> Result<Client, ProviderError> {
        let Some(s) = settings::current() else {
            return Err(rejected("PROVIDER_NOT_CONFIGURED", "The Envia API key is not configured"));
        };
        if s.api_key.is_empty() {
            return Err(rejected("PROVIDER_NOT_CONFIGURED", "The Envia API key is not configured"));
        }
        let shipping = if s.base_url.is_empty() { DEFAULT_SHIPPING.to_string() } else { s.base_url };
        let queries = if !s.queries_url.is_empty() { s.queries_url } else { queries_for(&shipping) };
        Ok(Client { api_key: s.api_key, shipping, queries })
    }

    fn request(&self, method: &str, url: String, body: Option<&Value>) -> HttpRequest {
        let mut headers = vec![
            ("authorization".to_string(), format!("Bearer {}", self.api_key)),
            ("accept".to_string(), "application/json".to_string()),
        ];
        if body.is_some() {
            headers.push(("content-type".into(), "application/json".into()));
        }
        HttpRequest {
            method: method.into(),
            url,
            headers,
            body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
        }
    }

    /// `POST {shipping}{path}` with a JSON body.
    pub fn post(&self, path: &str, body: &Value) -> Result<HttpResponse, HttpError> {
        http::send(&self.request("POST", format!("{}{path}", self.shipping), Some(body)))
    }

    /// Many `POST {shipping}{path}` at once.
    pub fn post_all(&self, path: &str, bodies: &[Value]) -> Vec<Result<HttpResponse, HttpError>> {
        let requests: Vec<HttpRequest> =
            bodies.iter().map(|b| self.request("POST", format!("{}{path}", self.shipping), Some(b))).collect();
        http::send_all(&requests)
    }

    /// `GET {queries}{path}`.
    pub fn query(&self, path: &str) -> Result<HttpResponse, HttpError> {
        http::send(&self.request("GET", format!("{}{path}", self.queries), None))
    }
}

/// The Queries API matching a Shipping API URL: Envia's own pairs, else the
/// same URL (a simulator serves both).
fn queries_for(shipping: &str) -> String {
    match shipping {
        "https://api.envia.com" => "https://queries.envia.com".into(),
        "https://api-test.envia.com" => "https://queries-test.envia.com".into(),
        other => other.to_string(),
    }
}

/// A transport failure: nothing is known of what Envia did.
pub fn transport(e: HttpError) -> ProviderError {
    match e {
        HttpError::NotAllowed(why) => rejected("PROVIDER_NOT_ALLOWED", &format!("The host refused the request: {why}")),
        HttpError::Timeout => unknown("PROVIDER_TIMEOUT", "Envia did not answer in time"),
        HttpError::Network(_) => unknown("PROVIDER_UNREACHABLE", "Envia could not be reached"),
        HttpError::TooLarge => unknown("PROVIDER_BAD_ANSWER", "Envia's answer was too large"),
    }
}
