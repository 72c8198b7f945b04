//! One writer at a time per shipment with a label.
//!
//! Cancel, track, the webhook and the scheduler each read a shipment, change
//! it and write it back. Two of them unguarded would lose one side's change:
//! a tracking update read before a cancel would write the shipment back as
//! `created`. So each holds `busy/<id>` while it reads and writes (a cancel
//! for its whole provider call, so the provider never sees two). A lock older
//! than [`STALE_MS`] belonged to a call that died and is taken over.

use crm_sdk::http::Error;
use crm_sdk::{runtime, store};

use crate::claims::STALE_MS;

/// Runs `f` holding `id`'s lock; `Ok(None)` when another writer holds it.
pub fn locked<T>(id: &str, f: impl FnOnce() -> Result<T, Error>) -> Result<Option<T>, Error> {
    let key = format!("busy/{id}").into_bytes();
    let mine = format!("{}/{}", runtime::now_millis(), runtime::new_id()).into_bytes();
    loop {
        let current = store::get(&key)?;
        if current.as_deref().is_some_and(|held| !is_stale(held)) {
            return Ok(None);
        }
        if store::compare_and_swap(&key, current.as_deref(), Some(&mine))? {
            break;
        }
        // Taken or released between the two calls: look again.
    }
    let result = f();
    store::compare_and_swap(&key, Some(&mine), None)?;
    result.map(Some)
}

/// Whether a lock value (`<millis>/<owner>`) was taken more than
/// [`STALE_MS`] ago; an unreadable one counts as stale.
fn is_stale(held: &[u8]) -> bool {
    let since = std::str::from_utf8(held).ok().and_then(|v| v.split('/').next()?.parse::<u64>().ok());
    since.is_none_or(|since| runtime::now_millis().saturating_sub(since) >= STALE_MS)
}
