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
    store.get(org, key(provider).as_bytes())?.as_deref().map(parse).transpose()
}

fn parse(bytes: &[u8]) -> StoreResult<Integration> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::new(format!("corrupt integration: {e}")))
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
///
/// A token's route is written before the integration that names it, so a
/// saved token always leads somewhere. Two first saves at once would each
/// mint a token: a first save writes only if the integration is still
/// absent, and the loser removes its route and saves again, keeping the
/// winner's (integrations are never removed, so a second round finds it).
pub fn save(
    store: &dyn Store,
    org_id: &str,
    provider: &str,
    api_key: String,
    base_url: String,
    queries_url: String,
) -> StoreResult<Integration> {
    let ns = Namespace::org(org_id);
    let key = key(provider).into_bytes();
    for _ in 0..2 {
        let stored = store.get(&ns, &key)?;
        let previous = stored.as_deref().map(parse).transpose()?;
        let (webhook_token, minted) = match previous {
            Some(p) => (p.webhook_token, false),
            None => (secrets::random_secret(), true),
        };
        let integration = Integration {
            provider: provider.to_string(),
            api_key: api_key.clone(),
            base_url: base_url.clone(),
            queries_url: queries_url.clone(),
            webhook_token,
            updated_at: clock::now_text(),
        };
        let route = webhook_key(&integration.webhook_token).into_bytes();
        let target = WebhookTarget { org: org_id.to_string(), provider: provider.to_string() };
        store.put(&Namespace::system(), &route, &serde_json::to_vec(&target).expect("serialises"))?;
        let bytes = serde_json::to_vec(&integration).expect("serialises");
        if !minted {
            store.put(&ns, &key, &bytes)?;
            return Ok(integration);
        }
        if store.compare_and_swap(&ns, &key, stored.as_deref(), Some(&bytes))?.is_ok() {
            return Ok(integration);
        }
        store.delete(&Namespace::system(), &route)?;
    }
    Err(StoreError::new(format!("the {provider} integration could not be saved: another save kept winning")))
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Barrier};

    use crm_store::SledStore;

    use super::*;

    /// Sixteen first saves at once end with one token, and only its route
    /// (ten organizations, so that the race is run more than once).
    #[test]
    fn first_saves_at_once_agree_on_one_token() {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> = Arc::new(SledStore::open(dir.path()).unwrap());
        for org in (0..10).map(|n| format!("org{n}")) {
            let start = Arc::new(Barrier::new(16));
            let saves: Vec<_> = (0..16)
                .map(|i| {
                    let (store, start, org) = (store.clone(), start.clone(), org.clone());
                    std::thread::spawn(move || {
                        start.wait();
                        save(store.as_ref(), &org, "envia", format!("key-{i}"), String::new(), String::new()).unwrap()
                    })
                })
                .collect();
            let mut tokens: Vec<String> = saves.into_iter().map(|s| s.join().unwrap().webhook_token).collect();
            tokens.dedup();
            assert_eq!(tokens.len(), 1, "{org}: every save answered the token that stands");
            let kept = get(store.as_ref(), &Namespace::org(&org), "envia").unwrap().unwrap();
            assert_eq!(kept.webhook_token, tokens[0]);
            let target = webhook_target(store.as_ref(), &tokens[0]).unwrap().unwrap();
            assert_eq!((target.org.as_str(), target.provider.as_str()), (org.as_str(), "envia"));
        }
        let routes = store.scan(&Namespace::system(), b"webhooks/", None, 100).unwrap();
        assert_eq!(routes.len(), 10, "one route an organization: the losers' are gone");
    }
}
