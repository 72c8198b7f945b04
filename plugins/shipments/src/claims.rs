//! The compare-and-swap records that give exactly one generate per attempt.
//!
//! `k/<key>` holds an idempotency key's claim: the shipment it belongs to,
//! its contact, and whether an attempt is running (`pending`, since when).
//! A claim moves `absent → pending` (a new shipment) or `idle → pending` (a
//! retry of a draft) by compare-and-swap on the exact stored bytes, so of
//! any number of concurrent requests exactly one calls the provider.
//!
//! `w/<contact>` is the keyless window: the time of the last keyless attempt.

use crm_sdk::http::Error;
use crm_sdk::{runtime, store};
use serde::{Deserialize, Serialize};

/// A pending claim (or a shipment's lock) older than this belonged to a call
/// that died, since no call outlives the 60 s route deadline. For a claim,
/// the attempt's outcome is unknown.
pub const STALE_MS: u64 = 90_000;
/// The keyless duplicate window per contact.
pub const WINDOW_MS: u64 = 30_000;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyClaim {
    pub shipment_id: String,
    pub contact_id: String,
    /// Millis when the running attempt started; none when idle.
    pub pending_since: Option<u64>,
}

impl KeyClaim {
    pub fn is_running(&self) -> bool {
        self.pending_since.is_some_and(|since| runtime::now_millis().saturating_sub(since) < STALE_MS)
    }

    pub fn is_stale(&self) -> bool {
        self.pending_since.is_some() && !self.is_running()
    }

    fn bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("serialises")
    }
}

fn key_of(key: &str) -> Vec<u8> {
    format!("k/{key}").into_bytes()
}

/// The claim of `key` and its stored bytes (for a later swap).
pub fn read(key: &str) -> Result<Option<(KeyClaim, Vec<u8>)>, Error> {
    match store::get(&key_of(key))? {
        None => Ok(None),
        Some(bytes) => {
            let claim = serde_json::from_slice(&bytes).map_err(|e| Error::internal(format!("corrupt claim: {e}")))?;
            Ok(Some((claim, bytes)))
        }
    }
}

/// Swaps the claim from `expected` (none = absent) to `new`; false when
/// another request changed it first.
pub fn swap(key: &str, expected: Option<&[u8]>, new: &KeyClaim) -> Result<bool, Error> {
    Ok(store::compare_and_swap(&key_of(key), expected, Some(&new.bytes()))?)
}

/// Marks the attempt finished (whatever its outcome).
pub fn finish(key: &str, claim: &KeyClaim) -> Result<(), Error> {
    let idle = KeyClaim { pending_since: None, ..claim.clone() };
    Ok(store::put(&key_of(key), &idle.bytes())?)
}

pub fn pending(shipment_id: &str, contact_id: &str) -> KeyClaim {
    KeyClaim {
        shipment_id: shipment_id.into(),
        contact_id: contact_id.into(),
        pending_since: Some(runtime::now_millis()),
    }
}

/// Opens the keyless window of `contact`; false while a previous keyless
/// attempt is less than 30 s old.
pub fn open_window(contact: &str) -> Result<bool, Error> {
    let key = format!("w/{contact}").into_bytes();
    let now = runtime::now_millis();
    let current = store::get(&key)?;
    if let Some(bytes) = &current {
        let since: u64 = String::from_utf8_lossy(bytes).parse().unwrap_or(0);
        if now.saturating_sub(since) < WINDOW_MS {
            return Ok(false);
        }
    }
    Ok(store::compare_and_swap(&key, current.as_deref(), Some(now.to_string().as_bytes()))?)
}
