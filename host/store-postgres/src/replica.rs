//! What an edge host asks of a PostgreSQL primary and its hot standby:
//! a connection to the standby that only reads, and the log positions that
//! say how far behind the primary it is.
//!
//! A position is a byte offset in the primary's write-ahead log: the
//! primary's is where its log is flushed to (a standby receives only
//! flushed log), the standby's where it has replayed to. Data a standby
//! shows at position `p` holds every commit whose record ends at or before
//! `p`, so "the standby has reached `p`" is all a bookmark needs.

use std::time::Duration;

use crm_store::StoreResult;
use crm_store::combine::CommitWindow;

use crate::durability::{first_number, flushed_position};
use crate::retry::Failure;
use crate::store::{PostgresStore, Role};

/// The standby's replayed position, or the primary's flushed one.
const POSITION: &str = concat!(
    "SELECT CASE WHEN pg_is_in_recovery() THEN (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint ELSE (SELECT ",
    flushed_position!(),
    ") END"
);

/// The primary's flushed position; no number from a standby.
const PRIMARY_POSITION: &str =
    concat!("SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE (SELECT ", flushed_position!(), ") END");

impl PostgresStore {
    /// Connects to a read-only replica (a hot standby) of a database that
    /// hosts on its primary have already migrated. Only its reads are used:
    /// it is never written, never migrated, and `durable()` has nothing to wait for.
    pub fn connect_replica(url: &str, connections: usize) -> StoreResult<PostgresStore> {
        PostgresStore::open(url, connections, CommitWindow::default(), Role::Replica)
    }

    /// Connects, when first used, to a standby among the servers a
    /// multi-host primary URL names (`target_session_attrs=read-only`): what
    /// a host reads while no primary answers (a failover), not needed at
    /// start. `None` when the URL names one server only.
    pub fn connect_standby_of(primary_url: &str, connections: usize) -> StoreResult<Option<PostgresStore>> {
        if !names_several_servers(primary_url) {
            return Ok(None);
        }
        PostgresStore::open(primary_url, connections, CommitWindow::default(), Role::Standby).map(Some)
    }

    /// Where this database's log is: a standby's replayed position, a
    /// primary's flushed one. One statement, not retried, bounded by
    /// `within` once connected: a link that is cut answers an error in that
    /// time. Asked over the store's probe connection, beside its pool.
    pub fn log_position(&self, within: Duration) -> StoreResult<u64> {
        self.ask_position(POSITION, within)
    }

    /// The primary's flushed log position; an error when the server that
    /// answered is a standby. A URL naming one server (a fixed address, a
    /// proxy) may lead to an old primary that came back as a standby, which
    /// must not make a lost primary look up; one naming several already
    /// connects only to a server that accepts writes (`follow_failovers`,
    /// in `store.rs`).
    pub fn primary_log_position(&self, within: Duration) -> StoreResult<u64> {
        self.ask_position(PRIMARY_POSITION, within)
    }

    /// One position question over the probe connection, bounded by `within` once connected.
    fn ask_position(&self, sql: &'static str, within: Duration) -> StoreResult<u64> {
        let pool = self.probe.clone();
        let ask = async move {
            // A new connection takes what it takes (each server its connect
            // timeout): cut short at `within`, a connection that is slow to
            // make on a loaded machine (password hashing and all) would
            // never be made. Only the question is bounded.
            let client = pool.get().await?;
            let answered = tokio::time::timeout(within, client.simple_query(sql)).await;
            let answer = answered.map_err(|_| Failure::unanswered("no answer in time"))??;
            first_number(&answer).ok_or_else(|| Failure::final_("the database named no log position"))
        };
        self.bridge.block_on(ask).map_err(Failure::into_store_error)
    }
}

/// Whether a URL names more than one server (`host=a,b`, or `a:1,b:2` in a
/// `postgres://` URL).
fn names_several_servers(url: &str) -> bool {
    url.parse::<tokio_postgres::Config>().is_ok_and(|config| config.get_hosts().len() > 1)
}
