//! Each organization's webhook signing key, in the Standard Webhooks forms:
//! `whsec_` and the base64 of 32 random bytes for [`Scheme::V1`] (an HMAC
//! secret the customer's system holds too), `whsk_` and the base64 of a
//! 32-byte ed25519 seed for [`Scheme::V1a`] (the customer's system holds only
//! the public key, which `crm_events::sign` derives). Unlike a token it is
//! kept as it is, since signing needs it.
//!
//! Made on first use, in the v1 scheme. Rotating makes a new key, in the
//! scheme asked for or the current one, and keeps the previous one signing for
//! [`ROTATION_OVERLAP`], so deliveries signed with both verify while the
//! customer switches.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::Duration;
use crm_store::{Namespace, StoreError, StoreResult};
use serde::{Deserialize, Serialize};

use crate::{Tenancy, clock};

/// How long a rotated-out secret still signs beside the new one.
pub const ROTATION_OVERLAP: Duration = Duration::hours(24);
const KEY: &str = "webhook-secret";

/// The stored record: the keys themselves, never shown as they are (the
/// admin API shows what a receiver needs of them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookSecret {
    /// The key that signs: `whsec_…` or `whsk_…`.
    pub secret: String,
    /// The key before the last rotation, while it still signs.
    pub previous: Option<String>,
    pub previous_expires_at: Option<String>,
    pub created_at: String,
}

/// How deliveries are signed: Standard Webhooks' `v1` (HMAC-SHA256) or
/// `v1a` (ed25519).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    V1,
    V1a,
}

impl Scheme {
    /// The prefix of this scheme's stored keys.
    pub const fn prefix(self) -> &'static str {
        match self {
            Scheme::V1 => "whsec_",
            Scheme::V1a => "whsk_",
        }
    }

    /// The scheme a stored key signs in, and its bytes.
    pub fn of(key: &str) -> Option<(Scheme, Vec<u8>)> {
        [Scheme::V1, Scheme::V1a].into_iter().find_map(|scheme| {
            let bytes = STANDARD.decode(key.strip_prefix(scheme.prefix())?).ok()?;
            Some((scheme, bytes))
        })
    }
}

/// A new key: 32 random bytes, an HMAC key or an ed25519 seed alike.
fn new_key(scheme: Scheme) -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    format!("{}{}", scheme.prefix(), STANDARD.encode(bytes))
}

impl Tenancy {
    /// The organization's secret, made on first use (one winner when two
    /// first uses race).
    pub fn webhook_secret(&self, org_id: &str) -> StoreResult<WebhookSecret> {
        let ns = Namespace::org(org_id);
        if let Some(stored) = self.read(&ns, KEY)? {
            return Ok(stored);
        }
        let made = WebhookSecret {
            secret: new_key(Scheme::V1),
            previous: None,
            previous_expires_at: None,
            created_at: clock::now_text(),
        };
        let bytes = serde_json::to_vec(&made).expect("records serialise");
        match self.store().compare_and_swap(&ns, KEY.as_bytes(), None, Some(&bytes))? {
            Ok(()) => Ok(made),
            Err(_) => self.read(&ns, KEY)?.ok_or_else(|| StoreError::new("webhook secret vanished")),
        }
    }

    /// A new key in `scheme` (`None`: the current key's); the one it
    /// replaces keeps signing for [`ROTATION_OVERLAP`].
    pub fn rotate_webhook_secret(&self, org_id: &str, scheme: Option<Scheme>) -> StoreResult<WebhookSecret> {
        let ns = Namespace::org(org_id);
        loop {
            let current = self.webhook_secret(org_id)?;
            let before = serde_json::to_vec(&current).expect("records serialise");
            let scheme = scheme.or_else(|| Scheme::of(&current.secret).map(|(s, _)| s)).unwrap_or(Scheme::V1);
            let rotated = WebhookSecret {
                secret: new_key(scheme),
                previous: Some(current.secret),
                previous_expires_at: Some(clock::format(clock::now() + ROTATION_OVERLAP)),
                created_at: clock::now_text(),
            };
            let after = serde_json::to_vec(&rotated).expect("records serialise");
            if self.store().compare_and_swap(&ns, KEY.as_bytes(), Some(&before), Some(&after))?.is_ok() {
                return Ok(rotated);
            }
        }
    }
}
