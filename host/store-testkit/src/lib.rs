//! What the store's tests and the black-box tests share to test a store,
//! kept out of the crates the `crm-host` binary links: only tests and
//! benchmarks depend on this crate (a dev-dependency of `crm-store` and
//! `crm-store-postgres`, a dependency of `crm-tests`), which
//! `tests/it/tidy.rs` checks.
//!
//! Layout:
//! - [`contract`]: the promises of [`crm_store::Store`], written once;
//!   [`store_contract!`] makes a test of each for one backend
//!   (`host/store/tests/fjall_contract.rs`, `sled_contract.rs`,
//!   `migration.rs`, and `host/store-postgres/tests/postgres_contract.rs`);
//! - [`crash`]: the `kill -9` test of a backend, its writer the test's own
//!   executable started again;
//! - [`throwaway`]: a PostgreSQL server in a temporary folder (with TLS on,
//!   if asked, or as a hot standby of another, promoted at will), for the
//!   PostgreSQL store's tests and the black-box tests of hosts on
//!   PostgreSQL (`tests/src/backend.rs`, `tests/it/edge.rs`, ...).
//!
//! It knows the store's trait and nothing of the backends behind it: each
//! backend's tests bring their own. It opens sockets only to find a free
//! port for a throw-away server.

pub mod contract;
pub mod crash;
pub mod throwaway;
