//! When a commit is on disk, per engine, and how [`Store::durable`] waits
//! for it.
//!
//! PostgreSQL flushes its write-ahead log at each commit by default, while
//! the transaction still holds its row locks; every contact create of an
//! organization updates that organization's count row, so creates would
//! queue one disk flush at a time. Instead, on PostgreSQL the host's
//! sessions commit with `synchronous_commit = off` (the commit is in the log,
//! atomic and ordered, but maybe not yet on disk), and `durable()` ends with
//! one synchronous commit of its own: a commit flushes the log up to its own
//! record, which lies after every commit made before it, by any session. The
//! callers waiting at once share that flush ([`GroupCommit`]), as they share
//! sled's. This is what the host already promises on sled: a 2xx only after
//! `durable()`, reads may see a write a crash would lose before it.
//!
//! The flush also reads where the log was flushed to: after `durable()`,
//! [`Store::position`] is at least every earlier write's position, which a
//! replica's replay position can be compared with (an edge host's bookmark).
//!
//! CockroachDB and YugabyteDB replicate a commit before answering it, so
//! there every commit is durable when it returns and `durable()` has nothing
//! to do.
//!
//! [`Store::durable`]: crm_store::Store::durable
//! [`Store::position`]: crm_store::Store::position

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use deadpool_postgres::Pool;
use tokio::runtime::Handle;

use crm_store::StoreResult;
use crm_store::group_commit::GroupCommit;

use crate::retry::Failure;

/// The primary's flushed log position, in bytes from the log's start: a
/// macro, so the questions that ask it are constants made once (`concat!`).
macro_rules! flushed_position {
    () => {
        "(pg_current_wal_flush_lsn() - '0/0'::pg_lsn)::bigint"
    };
}
pub(crate) use flushed_position;

/// How `durable()` is kept.
pub(crate) enum Durability {
    /// Every commit is durable when it returns.
    OnCommit,
    /// Commits return first; the flusher makes them durable.
    OnFlush(Arc<GroupCommit>),
}

impl Durability {
    /// Starts the flusher for a PostgreSQL store: it runs the flush on
    /// `runtime` over `pool`, through its own row of `crm_flush`, and keeps
    /// in `flushed` the log position each flush reached, before its waiters
    /// are woken.
    pub(crate) fn flushing(pool: Pool, runtime: Handle, flushed: Arc<AtomicU64>) -> Durability {
        let slot = flush_slot();
        let flush = format!(
            "BEGIN; SET LOCAL synchronous_commit = on; \
             INSERT INTO crm_flush (slot, flushes) VALUES ({slot}, 1) \
             ON CONFLICT (slot) DO UPDATE SET flushes = crm_flush.flushes + 1; COMMIT; \
             SELECT {}",
            flushed_position!()
        );
        Durability::OnFlush(GroupCommit::start(move || {
            runtime.block_on(async {
                let client = pool.get().await.map_err(|e| Failure::from(e).into_store_error())?;
                let answer = client.simple_query(&flush).await.map_err(|e| Failure::from(e).into_store_error())?;
                if let Some(position) = first_number(&answer) {
                    flushed.fetch_max(position, Ordering::SeqCst);
                }
                Ok(())
            })
        }))
    }

    pub(crate) async fn wait(&self) -> StoreResult<()> {
        match self {
            Durability::OnCommit => Ok(()),
            Durability::OnFlush(group) => group.wait_durable().await,
        }
    }
}

/// The first value of the first row of a simple query's answer, as a number.
pub(crate) fn first_number(answer: &[tokio_postgres::SimpleQueryMessage]) -> Option<u64> {
    answer.iter().find_map(|message| match message {
        tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0)?.parse().ok(),
        _ => None,
    })
}

/// This store's row in `crm_flush`: hosts that pick the same one only take
/// turns at it.
fn flush_slot() -> i32 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    ((std::process::id() ^ nanos) % 1_000_000) as i32
}
