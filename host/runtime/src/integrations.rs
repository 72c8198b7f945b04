//! Provider integrations: an organization's API key and URLs for one provider,
//! kept by the host. The key reaches only that provider's component (through
//! `settings`), never a module and never an API answer.
//!
//! Each integration also gets an unguessable webhook token: the provider's
//! inbound tracking calls `POST /webhooks/{provider}/{token}`, and the token
//! alone names the organization.

use crm_store::{Namespace, Store, StoreError, StoreResult};
use crm_tenancy::{clock, secrets};
use serde::{Deserialize, Serialize};

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

/// Saves `provider`'s settings for the organization `org_id`, keeping its
/// webhook token (a new one the first time). The caller has validated them.
pub fn save(
    store: &dyn Store,
    org_id: &str,
    provider: &str,
    api_key: String,
    base_url: String,
    queries_url: String,
) -> StoreResult<Integration> {
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
