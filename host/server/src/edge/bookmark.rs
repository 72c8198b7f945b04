//! `Crm-Bookmark`: how fresh an answer's data was, for the client to send
//! back so that a later request, to any host, is served at least that fresh.
//!
//! A bookmark is a position in the primary's write-ahead log (see
//! `crm_store_postgres`'s `replica.rs`), written as 16 hexadecimal digits:
//! opaque to clients, ordered for hosts. A write's answer carries the
//! position its commit was flushed to; a read's, a position its data had
//! reached.
//!
//! An edge host also remembers, per credential, the bookmark of the last
//! write it forwarded: a client that writes and then reads through the same
//! host sees its write without sending anything back.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use http::{HeaderName, HeaderValue};
use sha2::{Digest, Sha256};

use crate::http::{ApiError, ApiRequest, Response};

pub const HEADER: &str = "crm-bookmark";

/// The bookmark's text.
pub fn format(position: u64) -> String {
    format!("{position:016x}")
}

/// The bookmark a request sends back, if any; a malformed one is the
/// client's mistake.
pub fn sent(req: &ApiRequest) -> Result<Option<u64>, ApiError> {
    let values: Vec<_> = req.headers.get_all(HEADER).iter().collect();
    let refuse = || {
        ApiError::validation(
            "Crm-Bookmark must be a bookmark an earlier answer carried, sent once",
            serde_json::json!({ "field": "Crm-Bookmark" }),
        )
    };
    match values.as_slice() {
        [] => Ok(None),
        [value] => {
            let text = value.to_str().map_err(|_| refuse())?.trim();
            match text.len() == 16 {
                true => u64::from_str_radix(text, 16).map(Some).map_err(|_| refuse()),
                false => Err(refuse()),
            }
        }
        _ => Err(refuse()),
    }
}

/// Adds the bookmark header to an answer (replacing one a forwarded answer carried).
pub fn stamp(response: &mut Response, position: u64) {
    response.headers.retain(|(name, _)| name != HEADER);
    let value = HeaderValue::from_str(&format(position)).expect("hex digits are a header value");
    response.headers.push((HeaderName::from_static(HEADER), value));
}

/// Adds the bookmark of what `store` has made durable, when it has
/// positions (PostgreSQL): after a write's `durable()`, at least its own.
pub fn stamp_store(store: &dyn crm_store::Store, response: &mut Response) {
    if let Some(position) = store.position() {
        stamp(response, position);
    }
}

/// The bookmark an answer carries, if any (a forwarded write's).
pub fn carried(response: &Response) -> Option<u64> {
    let (_, value) = response.headers.iter().find(|(name, _)| name == HEADER)?;
    u64::from_str_radix(value.to_str().ok()?, 16).ok()
}

/// Who a request's credential is, for [`RecentWrites`]: a digest of its
/// token (or of the public door's path), never the token itself.
pub fn credential(req: &ApiRequest) -> [u8; 32] {
    let token = req.header("authorization").or_else(|| req.header("x-api-key")).unwrap_or(&req.path);
    Sha256::digest(token.as_bytes()).into()
}

/// The bookmark of each credential's last write through this host, kept
/// for as long as a replica within the staleness bound might not hold it
/// yet (after that, a replica that does not is too stale to be read).
pub struct RecentWrites {
    kept_for: Duration,
    writes: Mutex<HashMap<[u8; 32], (u64, Instant)>>,
}

/// Past this many credentials, those older than `kept_for` are let go.
const TIDY_ABOVE: usize = 10_000;

impl RecentWrites {
    pub fn new(kept_for: Duration) -> RecentWrites {
        RecentWrites { kept_for, writes: Mutex::default() }
    }

    pub fn record(&self, credential: [u8; 32], position: u64) {
        let mut writes = self.writes.lock().expect("recent writes lock");
        if writes.len() >= TIDY_ABOVE {
            writes.retain(|_, (_, at)| at.elapsed() < self.kept_for);
        }
        let entry = writes.entry(credential).or_insert((0, Instant::now()));
        *entry = (entry.0.max(position), Instant::now());
    }

    /// The last write's bookmark, while it is kept.
    pub fn of(&self, credential: &[u8; 32]) -> Option<u64> {
        let writes = self.writes.lock().expect("recent writes lock");
        writes.get(credential).filter(|(_, at)| at.elapsed() < self.kept_for).map(|(position, _)| *position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bookmark_reads_back_as_it_was_written() {
        let position = 0x0000_0001_6b37_48a0;
        assert_eq!(format(position), "000000016b3748a0");
        assert_eq!(u64::from_str_radix(&format(position), 16).unwrap(), position);
    }

    #[test]
    fn a_credential_remembers_its_newest_write_for_a_while() {
        let recent = RecentWrites::new(Duration::from_secs(1));
        let (ana, ben) = ([1; 32], [2; 32]);
        recent.record(ana, 10);
        recent.record(ana, 7);
        assert_eq!((recent.of(&ana), recent.of(&ben)), (Some(10), None));
        std::thread::sleep(Duration::from_millis(1050));
        assert_eq!(recent.of(&ana), None);
    }
}
