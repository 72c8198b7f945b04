//! Writes held back for the caller's commit (the WIT's `contacts-joined`).
//!
//! A joined nested call (the contacts module's upsert, for a form) runs in an
//! instance that is *holding*: its store writes and their conditions are not
//! made, they are kept in a [`Deferred`]. When the call ends, its caller takes
//! them, and its next `commit` (or `batch`) makes them with its own writes, in
//! one atomic batch: a form's lead (contact, submission, deal) is one commit,
//! and either all of it is written or none.
//!
//! A holding instance checks its conditions against the store when it holds
//! them, so a commit that would fail now fails at once, as it would have
//! without holding (the contacts module then looks again and updates the
//! winner of a race); the caller's commit checks them all again, atomically.
//! A holding instance does not read what it holds: the contacts module writes
//! each upsert with one commit and reads nothing after it. For the same
//! reason a caller holds one joined upsert at a time: the conditions of two
//! are both checked against the store as it was before either, so two creates
//! of one email would both pass (`imports/contacts.rs` refuses the second).

use crm_events::outbox::Writes;
use crm_store::{BatchOp, Condition};

/// Conditions and writes held for a later commit, with what they staged in
/// the outbox (settled once that commit applies).
#[derive(Default)]
pub struct Deferred {
    pub conditions: Vec<Condition>,
    pub ops: Vec<BatchOp>,
    pub outboxes: Vec<Writes>,
}

impl Deferred {
    pub fn is_empty(&self) -> bool {
        self.conditions.is_empty() && self.ops.is_empty()
    }

    /// Keeps one commit's conditions and writes, and the outbox writes it carries.
    pub fn hold(&mut self, conditions: Vec<Condition>, ops: Vec<BatchOp>, mut outbox: Writes) {
        self.conditions.extend(conditions);
        self.ops.extend(ops);
        self.ops.append(&mut outbox.ops);
        self.outboxes.push(outbox);
    }

    /// Adds what another instance held (a joined nested call's writes).
    pub fn join(&mut self, other: Deferred) {
        self.conditions.extend(other.conditions);
        self.ops.extend(other.ops);
        self.outboxes.extend(other.outboxes);
    }
}
