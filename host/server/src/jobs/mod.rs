//! Background work a host runs beside its requests: the deleted
//! organizations' namespaces dropped again, the search index an earlier
//! version wrote, rewritten at start, the search index's log folded into its
//! lists as contacts are written, and the notification of a webhook
//! endpoint the delivery worker disabled. (The tracking refresh is shipping's,
//! `shipping/scheduler.rs`; webhook delivery is `crm-events`'.)

pub mod endpoint_notice;
pub mod org_sweep;
pub mod reindex_at_start;
pub mod search_fold;
