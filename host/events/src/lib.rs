//! Outbound events: what components tell customers' systems, delivered by the
//! host the way Standard Webhooks describes (signed, retried, at least once).
//!
//! Layout, in the order an event travels:
//! - [`webhook_url`]: where a webhook may go (public `https` addresses only,
//!   unless the operator allows private ones), checked when a URL is saved;
//! - [`records`]: the subscription, event and delivery records (each delivery
//!   carrying its event) and the due index, keyed in each organization's
//!   namespace;
//! - [`outbox`]: what a component stages (events, subscriptions) matched
//!   against the subscriptions it keeps in memory and turned into writes of
//!   the change's own atomic commit, and the doorbell of the worker;
//! - [`worker`]: finds due deliveries, at most 8 in flight per organization,
//!   and records each attempt;
//! - [`departure`]: when a due delivery may go (its ordered queue, its pace);
//! - [`endpoints`]: each destination's health: disabled after days of
//!   failures, its deliveries held until it is enabled again;
//! - [`sender`]: one attempt over HTTP, checking the address it connects to
//!   (no redirects, 15 s, 64 KB of the answer);
//! - [`sign`]: the `webhook-signature` header (`v1` HMAC or `v1a` ed25519);
//! - [`schedule`]: when a failed attempt is tried again;
//! - [`deliveries`]: the deliveries as the API lists, retries and recovers
//!   them;
//! - [`test_send`]: a signed sample sent once, now, for a receiver's author;
//! - [`retention`]: settled deliveries and old events removed (the worker
//!   sweeps every hour).
//!
//! It depends on the store and tenancy (each organization's signing secret)
//! and knows nothing of WebAssembly nor warp: the runtime's `events` import calls
//! [`Outbox::writes`], the server starts the [`Worker`] and serves the API.

pub mod deliveries;
pub mod departure;
pub mod endpoints;
pub mod outbox;
pub mod records;
pub mod retention;
pub mod schedule;
pub mod sender;
pub mod sign;
pub mod test_send;
pub mod webhook_url;
pub mod worker;

pub use outbox::{Outbox, Staged};
pub use worker::Worker;
