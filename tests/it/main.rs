//! The black-box suite, one test binary (rust-analyzer's `tests/it`): each
//! module is one feature's tests, against the real `crm-host` binary the
//! harness (`crm_tests`, `src/lib.rs`) starts on loopback ports. One binary
//! links reqwest, warp and the PostgreSQL store once, not once a feature.
//!
//! The slow tests (a minute or more each: 100,000 contacts, the fuzzer, a
//! wait for answers to expire) are `#[ignore = "slow: ..."]`: `cargo test`
//! lists them as ignored, and `.ci/run` runs them with
//! `cargo test -- --include-ignored`.
//!
//! `tidy` is no black-box test: it reads the sources and `cargo metadata` to
//! check what ARCHITECTURE.md claims.

mod admin;
mod auth;
mod automations;
mod catalog;
mod clients;
mod companies;
mod concurrency;
mod connections;
mod contact_bounds;
mod contact_list;
mod contacts;
mod content_coding;
mod crash_counts;
mod disk_full;
mod edge;
mod failover;
mod fairness;
mod form_leads;
mod forms;
mod hostile_input;
mod import;
mod isolation;
mod large_org;
mod many_hosts;
mod me;
mod observability;
mod openapi;
mod operations;
mod partner_provider;
mod pipelines;
mod plugin_contract;
mod plugin_kit;
mod plugin_reload;
mod python_partner;
mod runtime;
mod search_index;
mod shipment_idempotency;
mod shipment_rules;
mod shipment_tracking;
mod shipments;
mod store_backup;
mod store_copy;
mod store_migration;
mod store_tls;
mod tidy;
mod tls;
mod webhooks;
