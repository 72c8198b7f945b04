//! Each organization's webhook signing secret, in the Standard Webhooks form
//! (`whsec_` and the base64 of 32 random bytes): the app shows it so the
//! customer's system can verify what the host sends. Unlike a token it is kept
//! as it is, since signing needs it.
//!
//! Made on first use. Rotating makes a new one and keeps the previous valid
//! for [`ROTATION_OVERLAP`], so deliveries signed with both verify while the
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookSecret {
    pub secret: String,
    /// The secret before the last rotation, while it still signs.
    pub previous: Option<String>,
    pub previous_expires_at: Option<String>,
    pub created_at: String,
}

fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    format!("whsec_{}", STANDARD.encode(bytes))
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
            secret: new_secret(),
            previous: None,
            previous_expires_at: None,
            created_at: clock::now_text(),
        };
        let bytes = serde_json::to_vec(&made).expect("records serialise");
        match self.store().compare_and_swap(&ns, KEY.as_bytes(), None, Some(&bytes))? {
            Ok(()) => Ok(made),
            Err(_) => self.read(&ns, KEY)?.ok_or_else(|| StoreError("webhook secret vanished".into())),
        }
    }

    /// A new secret; the one it replaces keeps signing for [`ROTATION_OVERLAP`].
    pub fn rotate_webhook_secret(&self, org_id: &str) -> StoreResult<WebhookSecret> {
        let ns = Namespace::org(org_id);
        loop {
            let current = self.webhook_secret(org_id)?;
            let before = serde_json::to_vec(&current).expect("records serialise");
            let rotated = WebhookSecret {
                secret: new_secret(),
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
