//! Background work a host runs beside its requests: the deleted
//! organizations' namespaces dropped again, and the search index an earlier
//! version wrote, rewritten at start. (The tracking refresh is shipping's,
//! `shipping/scheduler.rs`; webhook delivery is `crm-events`'.)

pub mod org_sweep;
pub mod reindex_at_start;
