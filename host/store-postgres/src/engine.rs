//! Which engine is behind the URL, and the settings the host's sessions get
//! on PostgreSQL itself.

use deadpool_postgres::Pool;

use crate::retry::Failure;

/// The host's session settings on PostgreSQL, as connection options:
/// `synchronous_commit=off`, so that a commit does not wait for its disk
/// flush while holding its row locks; `durable()` flushes (`durability.rs`).
pub(crate) const POSTGRESQL_SESSION: &str = "-c synchronous_commit=off";

/// Whether the engine behind `pool` is PostgreSQL itself (its version
/// string starts so; YugabyteDB's does too but names itself with `-YB-`).
pub(crate) async fn is_postgresql(pool: &Pool) -> Result<bool, Failure> {
    let client = pool.get().await?;
    let version: String = client.query_one("SELECT version()", &[]).await?.get(0);
    Ok(version.starts_with("PostgreSQL") && !version.contains("-YB-"))
}
