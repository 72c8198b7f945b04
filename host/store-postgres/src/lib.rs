//! The store on the PostgreSQL wire protocol: PostgreSQL itself, and the
//! distributed engines that speak it (YugabyteDB, CockroachDB), so that many
//! hosts can share one database.
//!
//! Layout:
//! - [`PostgresStore`] (`store.rs`): the [`crm_store::Store`] trait, one SQL
//!   statement or transaction per call, every key in one table `crm_kv`
//!   keyed by `(ns, key)`;
//! - `coalesce.rs`: a batch's writes coalesced into three set statements, sent
//!   together;
//! - `schema.rs`: the versioned schema, created or migrated at start;
//! - `bridge.rs`: the trait is synchronous (sled answers from memory) and the
//!   driver is async, so calls run on a small runtime of this crate's own and
//!   the caller waits without holding up the caller's runtime;
//! - `conditional.rs`: conditional writes held by row locks;
//! - `engine.rs`: which engine is behind the URL, and the session settings
//!   the host's connections get on PostgreSQL;
//! - `durability.rs`: when a commit is on disk per engine, and how
//!   `durable()` waits for it (on PostgreSQL: commits return before their
//!   flush, and waiting callers share one synchronous commit);
//! - `retry.rs`: which failures are retried (serialization failures always;
//!   lost connections only for calls that are safe to repeat);
//! - `replica.rs`: a hot standby's connection, which only reads, and the
//!   log positions that tell how far behind its primary it is (an edge
//!   host's staleness and bookmarks);
//! - `tls.rs`: TLS to the database, from the URL's `sslmode` and
//!   `sslrootcert` as libpq reads them.
//!
//! It passes the store's contract suite (`tests/postgres_contract.rs`, on
//! throw-away servers of `crm-store-testkit`, a crate only tests depend
//! on), plus a crash of the server itself under writes. The host picks it with
//! `--store-url` (`host/server/src/server/storage.rs`).
//!
//! Isolation, per promise of the trait:
//! - `get`, `put`, `delete`, `scan`, `find`: one statement each, so the
//!   engine's default (read committed, or snapshot) is enough;
//! - `batch`: one transaction at read committed, its existing rows locked
//!   first in key order (so two batches never deadlock on them); a counter
//!   is added by one `INSERT .. ON CONFLICT DO UPDATE` that reads and writes
//!   the row under its lock, so concurrent adds never lose one;
//! - `batch_if` and `compare_and_swap` (`conditional.rs`): read committed
//!   too, their conditions held by row locks (and a placeholder row for a
//!   key expected absent) until the commit, so concurrent writers of one
//!   hot row (an organization's contact count) queue instead of rolling
//!   back; a compare-and-swap is one conditional statement. Batches queued
//!   at once through `batch_if_shared` commit in one such transaction (one
//!   lock pass over all their keys, in key order), each checked against the
//!   rows and the batches before it.

mod bridge;
mod coalesce;
mod conditional;
mod durability;
mod engine;
mod replica;
mod retry;
mod schema;
mod store;
mod tls;
mod writes;

pub use store::PostgresStore;
