//! Which store a host runs on: the embedded sled store in the data dir, or,
//! with `--store-url`, a PostgreSQL-protocol database that many hosts share.

use std::sync::Arc;
use std::time::Duration;

use crm_store::combine::{CommitWindow, Computing};
use crm_store::{SledStore, Store};
use crm_store_postgres::PostgresStore;

use crate::config::Config;

/// `computing` is the runtime's count of requests computing, which paces
/// the store's combined commits (see `crm_store::combine`).
pub fn open(config: &Config, computing: Computing) -> Result<Arc<dyn Store>, String> {
    let window = CommitWindow { length: Duration::from_micros(config.commit_window_us), computing };
    match &config.store_url {
        Some(url) => {
            let store = PostgresStore::connect_with(url, config.store_connections as usize, window)
                .map_err(|e| format!("cannot open the store at {}: {e}", redacted(url)))?;
            Ok(Arc::new(store))
        }
        None => {
            let dir = config.data_dir.join("store");
            let store = SledStore::open_with(&dir, config.store_cache_mb << 20, window)
                .map_err(|e| format!("cannot open the store in {}: {e}", config.data_dir.display()))?;
            Ok(Arc::new(store))
        }
    }
}

/// A database URL without its password, for messages and logs.
pub fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            let user = credentials.split(':').next().unwrap_or_default();
            format!("{}{user}:***{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::redacted;

    #[test]
    fn a_password_never_reaches_a_message() {
        assert_eq!(redacted("postgres://crm:s3cret@db:5432/crm"), "postgres://crm:***@db:5432/crm");
        assert_eq!(redacted("postgres://db/crm"), "postgres://db/crm");
    }
}
