//! Unique keys, claimed with compare-and-swap so that concurrent requests have
//! exactly one winner, and the counters lists take their totals from.

use crm_sdk::http::Error;
use crm_sdk::store;

pub fn email_key(email: &str) -> String {
    format!("u/email/{email}")
}

pub fn mobile_key(mobile: &str) -> String {
    format!("u/mobile/{mobile}")
}

/// The number of contacts, a counter (decimal text) written in each create's
/// own atomic commit, so a crash at any instant leaves it exact.
pub const COUNT_KEY: &str = "meta/contacts";

/// How many contacts the organization has.
pub fn count() -> Result<u64, Error> {
    crm_sdk::kv::counter(COUNT_KEY)
}

/// The 403 of a full plan.
pub fn limit_reached(limit: u64) -> Error {
    Error::new(403, "PLAN_LIMIT_REACHED", format!("The plan's limit of {limit} contacts is reached"))
        .with("limit", limit)
        .with("resource", "contacts")
}

/// The counter of contacts in one city or state (`family` is `city` or `state`).
pub fn code_count_key(family: &str, code: &str) -> String {
    format!("meta/{family}/{code}")
}

pub fn code_count(family: &str, code: &str) -> Result<u64, Error> {
    crm_sdk::kv::counter(&code_count_key(family, code))
}

/// The contact holding a unique key, if any.
pub fn owner(key: &str) -> Result<Option<String>, Error> {
    Ok(store::get(key.as_bytes())?.map(|v| String::from_utf8_lossy(&v).into_owned()))
}
