//! Provider integrations: an organization's API key and URLs for one provider,
//! kept by the host. The key reaches only that provider's component (through
//! `settings`), never a module and never an API answer.
//!
//! Each integration also gets an unguessable webhook token: the provider's
//! inbound tracking calls `POST /webhooks/{provider}/{token}`, and the token
//! alone names the organization.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::clock;
use crate::http::{ApiError, ApiRequest};
use crate::secrets;
use crate::store::{Namespace, Store, StoreError, StoreResult};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Integration {
    pub provider: String,
    pub api_key: String,
    /// Empty: the provider's default.
    pub base_url: String,
    pub queries_url: String,
    pub webhook_token: String,
    pub updated_at: String,
}

/// Where a webhook token leads.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WebhookTarget {
    pub org: String,
    pub provider: String,
}

fn key(provider: &str) -> String {
    format!("integrations/{provider}")
}

fn webhook_key(token: &str) -> String {
    format!("webhooks/{}", secrets::digest(token))
}

impl Integration {
    pub fn webhook_path(&self) -> String {
        format!("/webhooks/{}/{}", self.provider, self.webhook_token)
    }

    /// The admin view: the key is never shown again, only its last four
    /// characters, and not even those when they would be most of the key.
    pub fn to_admin_json(&self) -> Value {
        let chars: Vec<char> = self.api_key.chars().collect();
        let tail: String = if chars.len() >= 12 { chars[chars.len() - 4..].iter().collect() } else { String::new() };
        json!({
            "provider": self.provider,
            "apiKeySet": !self.api_key.is_empty(),
            "apiKeyLast4": tail,
            "baseUrl": self.base_url,
            "queriesUrl": self.queries_url,
            "webhookPath": self.webhook_path(),
            "updatedAt": self.updated_at,
        })
    }
}

pub fn get(store: &dyn Store, org: &Namespace, provider: &str) -> StoreResult<Option<Integration>> {
    match store.get(org, key(provider).as_bytes())? {
        None => Ok(None),
        Some(bytes) => {
            serde_json::from_slice(&bytes).map(Some).map_err(|e| StoreError(format!("corrupt integration: {e}")))
        }
    }
}

pub fn webhook_target(store: &dyn Store, token: &str) -> StoreResult<Option<WebhookTarget>> {
    if token.len() != 48 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(None);
    }
    match store.get(&Namespace::system(), webhook_key(token).as_bytes())? {
        None => Ok(None),
        Some(bytes) => Ok(serde_json::from_slice(&bytes).ok()),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Body {
    api_key: Option<String>,
    base_url: Option<String>,
    queries_url: Option<String>,
}

/// `PUT /admin/orgs/{org}/integrations/{provider}` for a loaded provider.
pub fn put(
    store: &dyn Store,
    org_id: &str,
    provider: &str,
    needs_api_key: bool,
    req: &ApiRequest,
) -> Result<Integration, ApiError> {
    let body: Body = req.json()?;
    let api_key = body.api_key.unwrap_or_default().trim().to_string();
    if needs_api_key && api_key.is_empty() {
        return Err(ApiError::validation("apiKey is required", json!({ "field": "apiKey" })));
    }
    if api_key.len() > 4096 || api_key.chars().any(char::is_control) {
        return Err(ApiError::validation("apiKey is not a valid key", json!({ "field": "apiKey" })));
    }
    let url = |field: &str, value: Option<String>| -> Result<String, ApiError> {
        let value = value.unwrap_or_default().trim().trim_end_matches('/').to_string();
        let valid = value.is_empty()
            || reqwest::Url::parse(&value).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.has_host());
        if valid {
            Ok(value)
        } else {
            Err(ApiError::validation(format!("{field} must be an http(s) URL"), json!({ "field": field })))
        }
    };
    let base_url = url("baseUrl", body.base_url)?;
    let queries_url = url("queriesUrl", body.queries_url)?;

    let ns = Namespace::org(org_id);
    let previous = get(store, &ns, provider)?;
    let webhook_token = previous.map(|p| p.webhook_token).unwrap_or_else(secrets::random_secret);
    let integration = Integration {
        provider: provider.to_string(),
        api_key,
        base_url,
        queries_url,
        webhook_token,
        updated_at: clock::now_text(),
    };
    let target = WebhookTarget { org: org_id.to_string(), provider: provider.to_string() };
    store.put(
        &Namespace::system(),
        webhook_key(&integration.webhook_token).as_bytes(),
        &serde_json::to_vec(&target).expect("serialises"),
    )?;
    store.put(&ns, key(provider).as_bytes(), &serde_json::to_vec(&integration).expect("serialises"))?;
    Ok(integration)
}
