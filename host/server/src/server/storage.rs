//! Which store a host runs on: the embedded store in the data dir (fjall or
//! sled, whichever wrote it; see `crm_store::embedded`), or,
//! with `--store-url`, a PostgreSQL-protocol database that many hosts share
//! (and with `--store-read-url` too, its replica beside an edge host; or,
//! when the URL names several servers, the standby among them, read only
//! while no primary answers: [`Prefers`]).

use std::sync::Arc;
use std::time::Duration;

use crm_store::combine::{CommitWindow, Computing};
use crm_store::{Store, embedded};
use crm_store_postgres::PostgresStore;

use crate::config::Config;
use crate::edge::{Edge, Prefers};

/// The store a host opened: the one everything writes to and the
/// background work uses, and on an edge host the replica beside it.
pub struct Storage {
    pub store: Arc<dyn Store>,
    pub edge: Option<Arc<Edge>>,
}

/// `computing` is the runtime's count of requests computing, which paces
/// the store's combined commits (see `crm_store::combine`).
pub fn open(config: &Config, computing: Computing) -> Result<Storage, String> {
    let window = CommitWindow { length: Duration::from_micros(config.store.commit_window_us), computing };
    match &config.store.store_url {
        Some(url) => {
            let store = PostgresStore::connect_with(url, config.store.store_connections as usize, window)
                .map_err(|e| format!("cannot open the store at {}: {e}", redacted(url)))?;
            let store = Arc::new(store);
            let connections = config.store.store_connections as usize;
            let standby = match &config.edge.store_read_url {
                Some(read_url) => Some((PostgresStore::connect_replica(read_url, connections), Prefers::Replica)),
                None => PostgresStore::connect_standby_of(url, connections).transpose().map(|s| (s, Prefers::Primary)),
            };
            let edge = match standby {
                Some((replica, prefers)) => {
                    let read_url = config.edge.store_read_url.as_deref().unwrap_or(url);
                    let replica =
                        replica.map_err(|e| format!("cannot open the read replica at {}: {e}", redacted(read_url)))?;
                    Some(Arc::new(Edge::start(config, store.clone(), Arc::new(replica), prefers)))
                }
                None => None,
            };
            Ok(Storage { store, edge })
        }
        None => {
            let cannot = |e| format!("cannot open the store in {}: {e}", config.store.data_dir.display());
            let store = embedded::open_data_dir(
                &config.store.data_dir,
                config.store.store_engine,
                config.store.store_cache_mb,
                window,
            )
            .map_err(cannot)?;
            Ok(Storage { store, edge: None })
        }
    }
}

/// A database URL without its password (in its credentials or a
/// `password=` parameter), for messages and logs. Text that is not a URL
/// and names a password (libpq's `host=... password=...` form) is not
/// shown at all.
pub fn redacted(url: &str) -> String {
    let Some(scheme) = url.find("://") else {
        return match url.contains("password") {
            true => "(a connection string holding a password)".into(),
            false => url.to_string(),
        };
    };
    let (head, query) = match url.split_once('?') {
        Some((head, query)) => (head, Some(query)),
        None => (url, None),
    };
    let (start, rest) = head.split_at(scheme + 3);
    let head = match rest.rsplit_once('@').map(|(credentials, host)| (credentials.split_once(':'), host)) {
        Some((Some((user, _)), host)) => format!("{start}{user}:***@{host}"),
        _ => head.to_string(),
    };
    let Some(query) = query else { return head };
    let query: Vec<&str> =
        query.split('&').map(|pair| if pair.starts_with("password=") { "password=***" } else { pair }).collect();
    format!("{head}?{}", query.join("&"))
}

#[cfg(test)]
mod tests {
    use super::redacted;

    #[test]
    fn a_password_never_reaches_a_message() {
        assert_eq!(redacted("postgres://crm:s3cret@db:5432/crm"), "postgres://crm:***@db:5432/crm");
        assert_eq!(redacted("postgres://db/crm"), "postgres://db/crm");
        assert_eq!(
            redacted("postgres://crm@db/crm?sslmode=require&password=s3cret"),
            "postgres://crm@db/crm?sslmode=require&password=***"
        );
        assert_eq!(
            redacted("postgres://db/crm?sslrootcert=/etc/a@b.pem"),
            "postgres://db/crm?sslrootcert=/etc/a@b.pem"
        );
        assert!(!redacted("host=db password=s3cret").contains("s3cret"));
        assert_eq!(redacted("./data"), "./data");
        assert_eq!(redacted("a@b://c"), "a@b://c");
        assert_eq!(redacted("postgres://crm:p@ss@db/crm"), "postgres://crm:***@db/crm");
    }
}
