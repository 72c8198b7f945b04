//! The schema, versioned: each host brings it up to date at start, and hosts
//! starting together apply each step once.
//!
//! `crm_schema` holds one row, the number of steps applied. Steps are only
//! ever appended; a database whose version is newer than this host knows is
//! refused rather than written with an older layout.

use deadpool_postgres::Pool;
use tokio_postgres::IsolationLevel;
use tokio_postgres::error::SqlState;

use crate::retry::Failure;

/// The steps, in order; the version is how many are applied.
const STEPS: &[&str] = &[
    // 1. Every key of every namespace. In YugabyteDB the first key column is
    //    hashed and the second ordered, so a namespace's scans stay ordered.
    "CREATE TABLE crm_kv (ns TEXT NOT NULL, key BYTEA NOT NULL, value BYTEA NOT NULL, PRIMARY KEY (ns, key))",
    // 2. One row per store instance that a synchronous commit writes to
    //    flush the log (see `durability.rs`).
    "CREATE TABLE crm_flush (slot INTEGER PRIMARY KEY, flushes BIGINT NOT NULL)",
];

/// The version this host writes: how many steps there are.
pub(crate) const CURRENT: u32 = STEPS.len() as u32;

/// Brings the database to the latest version. Safe to run from many hosts at
/// once: the version row is locked while the steps run.
pub(crate) async fn migrate(pool: &Pool) -> Result<u32, Failure> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        match try_migrate(pool).await {
            Err(Refusal::Database(e)) if attempt < 20 && collided(&e) => {
                tokio::time::sleep(std::time::Duration::from_millis(20 * attempt)).await;
            }
            Err(Refusal::Database(e)) => return Err(Failure::from(e)),
            Err(Refusal::Newer(found)) => {
                return Err(Failure::final_(format!(
                    "the database's schema is at version {found}, newer than this host's {}: upgrade the host",
                    STEPS.len()
                )));
            }
            Err(Refusal::NoConnection(e)) => return Err(Failure::from(e)),
            Ok(version) => return Ok(version),
        }
    }
}

enum Refusal {
    Database(tokio_postgres::Error),
    NoConnection(deadpool_postgres::PoolError),
    Newer(i32),
}

impl From<tokio_postgres::Error> for Refusal {
    fn from(e: tokio_postgres::Error) -> Refusal {
        Refusal::Database(e)
    }
}

/// Two hosts creating the same table at once collide on the catalog's own
/// unique indexes (even with `IF NOT EXISTS`: the table's row type is made
/// first), or as a serialization failure: the loser tries again.
fn collided(e: &tokio_postgres::Error) -> bool {
    e.code().is_some_and(|c| {
        *c == SqlState::UNIQUE_VIOLATION
            || *c == SqlState::DUPLICATE_TABLE
            || *c == SqlState::DUPLICATE_OBJECT
            || *c == SqlState::T_R_SERIALIZATION_FAILURE
            || *c == SqlState::T_R_DEADLOCK_DETECTED
    })
}

async fn try_migrate(pool: &Pool) -> Result<u32, Refusal> {
    let mut client = pool.get().await.map_err(Refusal::NoConnection)?;
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS crm_schema (one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one), version INTEGER NOT NULL);
             INSERT INTO crm_schema (one, version) VALUES (TRUE, 0) ON CONFLICT DO NOTHING",
        )
        .await?;
    let tx = client.build_transaction().isolation_level(IsolationLevel::Serializable).start().await?;
    let found: i32 = tx.query_one("SELECT version FROM crm_schema FOR UPDATE", &[]).await?.get(0);
    let known = STEPS.len() as i32;
    if found > known {
        return Err(Refusal::Newer(found));
    }
    for step in &STEPS[found as usize..] {
        tx.batch_execute(step).await?;
    }
    tx.execute("UPDATE crm_schema SET version = $1", &[&known]).await?;
    tx.commit().await?;
    if found < known {
        tracing::info!(from = found, to = known, "migrated the database schema");
    }
    Ok(known as u32)
}

/// The version a replica's database is at, without writing: it must be the
/// one this host knows (the primary's hosts migrate it; a replica follows).
pub(crate) async fn version(pool: &Pool) -> Result<u32, Failure> {
    let client = pool.get().await?;
    let found: i32 = client
        .query_opt("SELECT version FROM crm_schema", &[])
        .await
        .map_err(|e| {
            Failure::final_(format!("the replica has no schema yet ({e}): start a host on the primary first"))
        })?
        .map_or(0, |row| row.get(0));
    match found == STEPS.len() as i32 {
        true => Ok(found as u32),
        false => Err(Failure::final_(format!(
            "the replica's schema is at version {found}, this host's at {}: start a host on the primary first, \
             or upgrade this one",
            STEPS.len()
        ))),
    }
}
