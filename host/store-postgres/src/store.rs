//! [`PostgresStore`]: the store trait in SQL over one table,
//! `crm_kv (ns, key, value)`. Every statement names its namespace, so no call
//! of one namespace can reach another's rows.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use deadpool_postgres::{Hook, HookError, Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio::runtime::Handle;
use tokio_postgres::NoTls;
use tokio_postgres::types::ToSql;

use crm_store::combine::{Combiner, CommitWindow, Conditional};
use crm_store::{
    BatchOp, Condition, Conflict, KeyValue, Namespace, Store, StoreError, StoreResult, reverse_range, scan_range,
};

use crate::bridge::Bridge;
use crate::conditional::{self, Ensured};
use crate::durability::Durability;
use crate::engine::{POSTGRESQL_SESSION, is_postgresql};
use crate::retry::{self, Failure, Repeat};
use crate::schema;
use crate::tls::{self, Tls};
use crate::writes::{self, DELETE, PUT};

pub struct PostgresStore {
    pub(crate) pool: Pool,
    /// One connection of its own for the log position a watch asks every
    /// 100 ms (`replica.rs`): a pool busy with requests must not look like
    /// a server that does not answer.
    pub(crate) probe: Pool,
    pub(crate) bridge: Bridge,
    durability: Durability,
    /// The log position the last flush reached (see `durability.rs`); `None`
    /// off PostgreSQL itself, where there is no such position to compare.
    flushed: Option<Arc<AtomicU64>>,
    ensured: Arc<Ensured>,
    combiner: Arc<Combiner>,
}

/// What a connection is for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The database itself: its schema is brought up to date at connect.
    Primary,
    /// A read-only replica of it (see `replica.rs`): only read, never migrated.
    Replica,
    /// A standby among the servers of the primary's own URL (see
    /// `replica.rs`): only read while no primary answers, never migrated,
    /// and not needed at start.
    Standby,
}

const GET: &str = "SELECT value FROM crm_kv WHERE ns = $1 AND key = $2";
/// A set of keys is never read as `key = ANY($2)`: a statement prepared
/// while the table was small keeps its generic plan, and for that form the
/// plan was to read the whole namespace by `ns` and filter the keys (seeding
/// 20,000 contacts slowed down row by row). A lookup per key through
/// `LATERAL` (fenced by `OFFSET 0`, so it is not flattened into a join that
/// could be hashed) has no such plan.
const GET_MANY: &str = "SELECT kv.key, kv.value FROM unnest($2::BYTEA[]) AS t (k) \
                        CROSS JOIN LATERAL (SELECT key, value FROM crm_kv WHERE ns = $1 AND key = t.k OFFSET 0) AS kv";
const DROP_NAMESPACE: &str = "DELETE FROM crm_kv WHERE ns = $1";

impl PostgresStore {
    /// Connects to `url` (`postgres://user:password@host:port/database`),
    /// keeping at most `connections` open, and brings the schema up to date.
    /// Each conditional batch commits on its own.
    pub fn connect(url: &str, connections: usize) -> StoreResult<PostgresStore> {
        PostgresStore::connect_with(url, connections, CommitWindow::default())
    }

    /// [`PostgresStore::connect`], with shared conditional batches committed
    /// together, paced by `window` (see [`crm_store::combine`]): one
    /// transaction's locks, statements and commit for many requests.
    pub fn connect_with(url: &str, connections: usize, window: CommitWindow) -> StoreResult<PostgresStore> {
        PostgresStore::open(url, connections, window, Role::Primary)
    }

    pub(crate) fn open(url: &str, connections: usize, window: CommitWindow, role: Role) -> StoreResult<PostgresStore> {
        let (url, tls) = tls::from_url(url).map_err(StoreError::new)?;
        let mut config: tokio_postgres::Config =
            url.parse().map_err(|e| StoreError::new(format!("not a PostgreSQL URL: {e}")))?;
        follow_failovers(&mut config, role);
        if config.get_application_name().is_none() {
            config.application_name("crm-host");
        }
        let bridge = Bridge::new().map_err(|e| StoreError::new(format!("cannot start the store's runtime: {e}")))?;
        let probe = pool(config.clone(), &tls, 1)?;
        let (version, postgresql) = match role {
            // Its primary's URL said PostgreSQL, and it may not answer now.
            Role::Standby => (schema::CURRENT, true),
            Role::Primary | Role::Replica => {
                let probe = probe.clone();
                bridge
                    .block_on(async move {
                        let version = match role {
                            Role::Primary => schema::migrate(&probe).await?,
                            _ => schema::version(&probe).await?,
                        };
                        Ok::<_, Failure>((version, is_postgresql(&probe).await?))
                    })
                    .map_err(failed)?
            }
        };
        if role == Role::Replica && !postgresql {
            return Err(StoreError::new("a read replica must be a PostgreSQL hot standby"));
        }
        if postgresql {
            let options =
                config.get_options().map_or(POSTGRESQL_SESSION.to_owned(), |o| format!("{o} {POSTGRESQL_SESSION}"));
            config.options(&options);
        }
        let pool = pool(config, &tls, connections)?;
        let flushed = postgresql.then(Arc::<AtomicU64>::default);
        let durability = match (&flushed, role) {
            (Some(flushed), Role::Primary) => Durability::flushing(pool.clone(), bridge.handle(), flushed.clone()),
            _ => Durability::OnCommit,
        };
        tracing::info!(version, connections, postgresql, replica = (role != Role::Primary), "PostgreSQL store ready");
        let ensured = Arc::<Ensured>::default();
        let combiner = combiner(pool.clone(), ensured.clone(), bridge.handle(), window);
        Ok(PostgresStore { pool, probe, bridge, durability, flushed, ensured, combiner })
    }

    /// Runs one store call: `attempt` is tried (on the store's runtime) until
    /// it succeeds or fails in a way [`retry`] gives up on.
    fn call<T, F, Fut>(&self, op: &'static str, repeat: Repeat, mut attempt: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnMut(Pool) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, Failure>> + Send + 'static,
    {
        crm_store::count_operation(op);
        let pool = self.pool.clone();
        self.bridge.block_on(async move { retry::run(op, repeat, || attempt(pool.clone())).await }).map_err(failed)
    }
}

/// The combiner of shared batches: it commits each namespace's on the
/// store's runtime, retried as `batch_if` is.
fn combiner(pool: Pool, ensured: Arc<Ensured>, runtime: Handle, window: CommitWindow) -> Arc<Combiner> {
    let commit = move |ns: &Namespace, batches: &[Conditional]| {
        let attempts =
            retry::run("batch_if", Repeat::OnlyIfRolledBack, || commit_batches(&pool, &ensured, ns.as_str(), batches));
        runtime.block_on(attempts).map_err(failed)
    };
    Combiner::start(Box::new(commit), window)
}

/// How long one host of the URL may take to accept a connection before the
/// next is tried, unless the URL says (`connect_timeout`): a server that is
/// gone must not hold a client past its 503's two seconds.
const CONNECT_WITHIN: Duration = Duration::from_secs(1);

/// How long sent data may go unacknowledged before the connection is
/// dropped (`TCP_USER_TIMEOUT`): a primary whose machine vanished without a
/// word (no reset, as a killed process sends) frees its connections, and
/// what waits on them, within it.
const SILENT_LOSS_AFTER: Duration = Duration::from_secs(5);

/// Settings that let a URL naming several servers (`host=a,b` or
/// `postgres://u@a:5432,b:5432/db`, as libpq and every HA manager hand them
/// out) follow a failover: each server tried in turn, briefly; the primary
/// side takes only a server that accepts writes (`target_session_attrs=
/// read-write`, whatever the URL says), so a write never lands on a
/// standby, nor on an old primary that came back as one.
fn follow_failovers(config: &mut tokio_postgres::Config, role: Role) {
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_WITHIN);
    }
    if config.get_tcp_user_timeout().is_none() {
        config.tcp_user_timeout(SILENT_LOSS_AFTER);
    }
    match role {
        Role::Primary if config.get_hosts().len() > 1 => {
            config.target_session_attrs(tokio_postgres::config::TargetSessionAttrs::ReadWrite);
        }
        Role::Standby => {
            config.target_session_attrs(tokio_postgres::config::TargetSessionAttrs::ReadOnly);
        }
        _ => {}
    }
}

/// A pool of at most `connections` sessions configured as `config`, over `tls`.
fn pool(config: tokio_postgres::Config, tls: &Tls, connections: usize) -> StoreResult<Pool> {
    let recycling = ManagerConfig { recycling_method: RecyclingMethod::Fast };
    let manager = match tls {
        Tls::Off => Manager::from_config(config, NoTls, recycling),
        Tls::On(connector) => Manager::from_config(config, connector.clone(), recycling),
    };
    Pool::builder(manager)
        .max_size(connections.max(1))
        .runtime(deadpool_postgres::Runtime::Tokio1)
        .wait_timeout(Some(Duration::from_secs(10)))
        .create_timeout(Some(Duration::from_secs(5)))
        .post_recycle(Hook::sync_fn(|_, metrics| match retry::retired(metrics.created) {
            true => Err(HookError::Message("made before a server turned read-only".into())),
            false => Ok(()),
        }))
        .build()
        .map_err(|e| StoreError::new(format!("cannot build the connection pool: {e}")))
}

fn failed(f: Failure) -> StoreError {
    f.into_store_error()
}

/// A row limit as SQL takes it.
fn sql_limit(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

/// One attempt at committing `batches` of `ns` in one transaction (see
/// [`conditional::commit_together`]): whether each was applied.
async fn commit_batches(
    pool: &Pool,
    ensured: &Ensured,
    ns: &str,
    batches: &[Conditional],
) -> Result<Vec<bool>, Failure> {
    let mut client = pool.get().await?;
    conditional::ensure_counters(&client, ensured, ns, batches).await?;
    let tx = client.transaction().await?;
    let applied = conditional::commit_together(&tx, ns, batches).await?;
    if applied.contains(&true) {
        tx.commit().await?;
    }
    Ok(applied)
}

/// A prefix scan's SQL: the range's end is optional, so are its parameters.
/// `count_found` over `[from, end)`, and over `[from, ..)` for a prefix of 0xff bytes.
const COUNT_FOUND: &str =
    "SELECT count(*) FROM crm_kv WHERE ns = $1 AND key >= $2 AND key < $3 AND position($4 IN value) > 0";
const COUNT_FOUND_TO_END: &str =
    "SELECT count(*) FROM crm_kv WHERE ns = $1 AND key >= $2 AND position($3 IN value) > 0";

fn range_query(select: &str, end: bool, descending: bool, needle: bool) -> String {
    let mut sql = format!("{select} FROM crm_kv WHERE ns = $1 AND key >= $2");
    let mut next = 3;
    if end {
        sql.push_str(&format!(" AND key < ${next}"));
        next += 1;
    }
    if needle {
        sql.push_str(&format!(" AND position(${next} IN value) > 0"));
        next += 1;
    }
    let order = if descending { "DESC" } else { "ASC" };
    sql.push_str(&format!(" ORDER BY key {order} LIMIT ${next}"));
    sql
}

/// Runs a prefix scan over `[from, end)`, with an optional needle the value
/// must contain; returns the rows.
async fn range_rows(
    pool: &Pool,
    select: &str,
    ns: &str,
    (from, end): &(Vec<u8>, Option<Vec<u8>>),
    needle: Option<&Vec<u8>>,
    descending: bool,
    limit: i64,
) -> Result<Vec<tokio_postgres::Row>, Failure> {
    let client = pool.get().await?;
    let sql = range_query(select, end.is_some(), descending, needle.is_some());
    let statement = client.prepare_cached(&sql).await?;
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&ns, from];
    if let Some(end) = end {
        params.push(end);
    }
    if let Some(needle) = needle {
        params.push(needle);
    }
    params.push(&limit);
    Ok(client.query(&statement, &params).await?)
}

impl Store for PostgresStore {
    fn get(&self, ns: &Namespace, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        let (ns, key) = (ns.as_str().to_owned(), key.to_vec());
        self.call("get", Repeat::Safe, move |pool| {
            let (ns, key) = (ns.clone(), key.clone());
            async move {
                let client = pool.get().await?;
                let row = client.query_opt(&client.prepare_cached(GET).await?, &[&ns, &key]).await?;
                Ok(row.map(|r| r.get(0)))
            }
        })
    }

    fn get_many(&self, ns: &Namespace, keys: &[Vec<u8>]) -> StoreResult<Vec<Option<Vec<u8>>>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let (ns, keys) = (ns.as_str().to_owned(), keys.to_vec());
        self.call("get_many", Repeat::Safe, move |pool| {
            let (ns, keys) = (ns.clone(), keys.clone());
            async move {
                let client = pool.get().await?;
                let rows = client.query(&client.prepare_cached(GET_MANY).await?, &[&ns, &keys]).await?;
                let found: HashMap<Vec<u8>, Vec<u8>> = rows.into_iter().map(|r| (r.get(0), r.get(1))).collect();
                Ok(keys.iter().map(|k| found.get(k).cloned()).collect())
            }
        })
    }

    fn put(&self, ns: &Namespace, key: &[u8], value: &[u8]) -> StoreResult<()> {
        let (ns, key, value) = (ns.as_str().to_owned(), key.to_vec(), value.to_vec());
        self.call("put", Repeat::Safe, move |pool| {
            let (ns, key, value) = (ns.clone(), key.clone(), value.clone());
            async move {
                let client = pool.get().await?;
                client.execute(&client.prepare_cached(PUT).await?, &[&ns, &key, &value]).await?;
                Ok(())
            }
        })
    }

    fn delete(&self, ns: &Namespace, key: &[u8]) -> StoreResult<()> {
        let (ns, key) = (ns.as_str().to_owned(), key.to_vec());
        self.call("delete", Repeat::Safe, move |pool| {
            let (ns, key) = (ns.clone(), key.clone());
            async move {
                let client = pool.get().await?;
                client.execute(&client.prepare_cached(DELETE).await?, &[&ns, &key]).await?;
                Ok(())
            }
        })
    }

    fn compare_and_swap(
        &self,
        ns: &Namespace,
        key: &[u8],
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> StoreResult<Result<(), Conflict>> {
        let (ns, key) = (ns.as_str().to_owned(), key.to_vec());
        let (expected, new) = (expected.map(<[u8]>::to_vec), new.map(<[u8]>::to_vec));
        self.call("compare_and_swap", Repeat::OnlyIfRolledBack, move |pool| {
            let (ns, key, expected, new) = (ns.clone(), key.clone(), expected.clone(), new.clone());
            async move {
                let client = pool.get().await?;
                conditional::compare_and_swap(&client, &ns, &key, expected.as_deref(), new.as_deref()).await
            }
        })
    }

    fn scan(&self, ns: &Namespace, prefix: &[u8], start: Option<&[u8]>, limit: usize) -> StoreResult<Vec<KeyValue>> {
        let (ns, range) = (ns.as_str().to_owned(), scan_range(prefix, start));
        self.call("scan", Repeat::Safe, move |pool| {
            let (ns, range) = (ns.clone(), range.clone());
            async move {
                let rows = range_rows(&pool, "SELECT key, value", &ns, &range, None, false, sql_limit(limit)).await?;
                Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
            }
        })
    }

    fn scan_reverse(
        &self,
        ns: &Namespace,
        prefix: &[u8],
        before: Option<&[u8]>,
        limit: usize,
    ) -> StoreResult<Vec<KeyValue>> {
        let Some(range) = reverse_range(prefix, before) else { return Ok(Vec::new()) };
        let ns = ns.as_str().to_owned();
        self.call("scan_reverse", Repeat::Safe, move |pool| {
            let (ns, range) = (ns.clone(), range.clone());
            async move {
                let rows = range_rows(&pool, "SELECT key, value", &ns, &range, None, true, sql_limit(limit)).await?;
                Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
            }
        })
    }

    fn find(&self, ns: &Namespace, prefix: &[u8], needle: &[u8], limit: usize) -> StoreResult<Vec<Vec<u8>>> {
        let (ns, range, needle) = (ns.as_str().to_owned(), scan_range(prefix, None), needle.to_vec());
        self.call("find", Repeat::Safe, move |pool| {
            let (ns, range, needle) = (ns.clone(), range.clone(), needle.clone());
            async move {
                let rows = range_rows(&pool, "SELECT key", &ns, &range, Some(&needle), false, sql_limit(limit)).await?;
                Ok(rows.into_iter().map(|r| r.get(0)).collect())
            }
        })
    }

    fn count_found(&self, ns: &Namespace, prefix: &[u8], needle: &[u8]) -> StoreResult<u64> {
        let (ns, (from, end), needle) = (ns.as_str().to_owned(), scan_range(prefix, None), needle.to_vec());
        self.call("count_found", Repeat::Safe, move |pool| {
            let (ns, from, end, needle) = (ns.clone(), from.clone(), end.clone(), needle.clone());
            async move {
                let client = pool.get().await?;
                let row = match &end {
                    Some(end) => {
                        let statement = client.prepare_cached(COUNT_FOUND).await?;
                        client.query_one(&statement, &[&ns, &from, end, &needle]).await?
                    }
                    None => {
                        let statement = client.prepare_cached(COUNT_FOUND_TO_END).await?;
                        client.query_one(&statement, &[&ns, &from, &needle]).await?
                    }
                };
                Ok(row.get::<_, i64>(0) as u64)
            }
        })
    }

    fn batch(&self, ns: &Namespace, ops: Vec<BatchOp>) -> StoreResult<()> {
        let repeat = match ops.iter().any(|op| matches!(op, BatchOp::Add(..))) {
            true => Repeat::OnlyIfRolledBack,
            false => Repeat::Safe,
        };
        let (ns, ensured) = (ns.as_str().to_owned(), self.ensured.clone());
        self.call("batch", repeat, move |pool| {
            let (ns, ops, ensured) = (ns.clone(), ops.clone(), ensured.clone());
            async move {
                let mut client = pool.get().await?;
                let batch = [Conditional::ops(ops.clone())];
                conditional::ensure_counters(&client, &ensured, &ns, &batch).await?;
                let tx = client.transaction().await?;
                if ops.len() > 1 {
                    conditional::lock_rows(&tx, &ns, ops.iter().map(|op| op.key().to_vec()).collect()).await?;
                }
                writes::apply(&tx, &ns, &ops).await?;
                tx.commit().await?;
                Ok(())
            }
        })
    }

    fn batch_if(&self, ns: &Namespace, conditions: Vec<Condition>, ops: Vec<BatchOp>) -> StoreResult<bool> {
        let (ns, ensured) = (ns.as_str().to_owned(), self.ensured.clone());
        let batch = [Conditional { conditions, ops }];
        self.call("batch_if", Repeat::OnlyIfRolledBack, move |pool| {
            let (ns, ensured, batch) = (ns.clone(), ensured.clone(), batch.clone());
            async move { Ok(commit_batches(&pool, &ensured, &ns, &batch).await?[0]) }
        })
    }

    fn combiner(&self) -> Option<&Combiner> {
        Some(&self.combiner)
    }

    fn drop_namespace(&self, ns: &Namespace) -> StoreResult<()> {
        self.ensured.forget(ns.as_str());
        let ns = ns.as_str().to_owned();
        self.call("drop_namespace", Repeat::Safe, move |pool| {
            let ns = ns.clone();
            async move {
                let client = pool.get().await?;
                client.execute(&client.prepare_cached(DROP_NAMESPACE).await?, &[&ns]).await?;
                Ok(())
            }
        })
    }

    /// See `durability.rs`: on PostgreSQL the commits above return
    /// before their flush, which this waits for.
    fn durable(&self) -> Pin<Box<dyn Future<Output = StoreResult<()>> + Send + '_>> {
        Box::pin(self.durability.wait())
    }

    fn position(&self) -> Option<u64> {
        self.flushed.as_ref().map(|flushed| flushed.load(Ordering::SeqCst))
    }
}
