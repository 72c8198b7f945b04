//! Unique keys and the contact counter, claimed with compare-and-swap so that
//! concurrent requests have exactly one winner.

use crm_sdk::http::Error;
use crm_sdk::{kv, store};

pub fn email_key(email: &str) -> String {
    format!("u/email/{email}")
}

pub fn mobile_key(mobile: &str) -> String {
    format!("u/mobile/{mobile}")
}

const COUNT_KEY: &str = "meta/contacts";

/// How many contacts the organization has.
pub fn count() -> Result<u64, Error> {
    Ok(store::get(COUNT_KEY.as_bytes())?.and_then(|v| String::from_utf8(v).ok()?.parse().ok()).unwrap_or(0))
}

/// The 403 of a full plan.
pub fn limit_reached(limit: u64) -> Error {
    Error::new(403, "PLAN_LIMIT_REACHED", format!("The plan's limit of {limit} contacts is reached"))
        .with("limit", limit)
        .with("resource", "contacts")
}

/// Takes one slot of the contact limit, atomically.
pub fn reserve_slot(limit: Option<u64>) -> Result<(), Error> {
    loop {
        let current = store::get(COUNT_KEY.as_bytes())?;
        let n: u64 = current.as_deref().and_then(|v| std::str::from_utf8(v).ok()?.parse().ok()).unwrap_or(0);
        if let Some(limit) = limit
            && n >= limit
        {
            return Err(limit_reached(limit));
        }
        let next = (n + 1).to_string();
        if store::compare_and_swap(COUNT_KEY.as_bytes(), current.as_deref(), Some(next.as_bytes()))? {
            return Ok(());
        }
    }
}

/// Gives a reserved slot back (a create that lost a race).
pub fn release_slot() -> Result<(), Error> {
    loop {
        let current = store::get(COUNT_KEY.as_bytes())?;
        let n: u64 = current.as_deref().and_then(|v| std::str::from_utf8(v).ok()?.parse().ok()).unwrap_or(0);
        let next = n.saturating_sub(1).to_string();
        if store::compare_and_swap(COUNT_KEY.as_bytes(), current.as_deref(), Some(next.as_bytes()))? {
            return Ok(());
        }
    }
}

/// The contact holding a unique key, if any.
pub fn owner(key: &str) -> Result<Option<String>, Error> {
    Ok(store::get(key.as_bytes())?.map(|v| String::from_utf8_lossy(&v).into_owned()))
}

/// Claims `key` for `contact`; `Some(other)` when another contact holds it.
pub fn claim(key: &str, contact: &str) -> Result<Option<String>, Error> {
    kv::claim(key, contact)
}

pub fn release(key: &str, contact: &str) -> Result<(), Error> {
    kv::release(key, contact)
}
