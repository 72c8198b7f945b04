//! Unique keys and the contact counter, claimed with compare-and-swap so that
//! concurrent requests have exactly one winner.

use crm_sdk::http::Error;
use crm_sdk::store;

pub fn email_key(email: &str) -> String {
    format!("u/email/{email}")
}

pub fn mobile_key(mobile: &str) -> String {
    format!("u/mobile/{mobile}")
}

const COUNT_KEY: &str = "meta/contacts";

fn read_count(key: &str) -> Result<(Option<Vec<u8>>, u64), Error> {
    let current = store::get(key.as_bytes())?;
    let n = current.as_deref().and_then(|v| std::str::from_utf8(v).ok()?.parse().ok()).unwrap_or(0);
    Ok((current, n))
}

/// Adds `delta` to the counter at `key` with compare-and-swap; refuses to pass
/// `limit` (returns `false`).
fn add(key: &str, delta: i64, limit: Option<u64>) -> Result<bool, Error> {
    loop {
        let (current, n) = read_count(key)?;
        if delta > 0 && limit.is_some_and(|l| n >= l) {
            return Ok(false);
        }
        let next = n.saturating_add_signed(delta).to_string();
        if store::compare_and_swap(key.as_bytes(), current.as_deref(), Some(next.as_bytes()))? {
            return Ok(true);
        }
    }
}

/// How many contacts the organization has.
pub fn count() -> Result<u64, Error> {
    Ok(read_count(COUNT_KEY)?.1)
}

/// The 403 of a full plan.
pub fn limit_reached(limit: u64) -> Error {
    Error::new(403, "PLAN_LIMIT_REACHED", format!("The plan's limit of {limit} contacts is reached"))
        .with("limit", limit)
        .with("resource", "contacts")
}

/// Takes one slot of the contact limit, atomically.
pub fn reserve_slot(limit: Option<u64>) -> Result<(), Error> {
    if add(COUNT_KEY, 1, limit)? { Ok(()) } else { Err(limit_reached(limit.unwrap_or_default())) }
}

/// Gives a reserved slot back (a create that lost a race).
pub fn release_slot() -> Result<(), Error> {
    add(COUNT_KEY, -1, None).map(|_| ())
}

/// The counter of contacts in one city or state (`family` is `city` or `state`).
pub fn code_count_key(family: &str, code: &str) -> String {
    format!("meta/{family}/{code}")
}

pub fn code_count(family: &str, code: &str) -> Result<u64, Error> {
    Ok(read_count(&code_count_key(family, code))?.1)
}

/// Moves one contact between per-code counters (`None` = no code).
pub fn move_code(family: &str, from: Option<&str>, to: Option<&str>) -> Result<(), Error> {
    if from == to {
        return Ok(());
    }
    if let Some(code) = to {
        add(&code_count_key(family, code), 1, None)?;
    }
    if let Some(code) = from {
        add(&code_count_key(family, code), -1, None)?;
    }
    Ok(())
}

/// The contact holding a unique key, if any.
pub fn owner(key: &str) -> Result<Option<String>, Error> {
    Ok(store::get(key.as_bytes())?.map(|v| String::from_utf8_lossy(&v).into_owned()))
}
