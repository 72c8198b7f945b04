//! What a contacts instance tells of its `upsert-many` as it goes (the
//! `upsert-progress` import, `imports/upsert_progress.rs`): the host reads
//! it after a trap, so that the trap costs only the body begun last
//! ([`crate::nested`]).

use crate::bindings::platform::crm::plugin::contacts::UpsertOutcome;

/// One `upsert-many` instance's progress.
#[derive(Default)]
pub(crate) struct Progress {
    /// The index, in the call's list, of the body begun last.
    pub(crate) begun: Option<u32>,
    /// The outcomes of the call's first bodies, each final.
    pub(crate) settled: Vec<UpsertOutcome>,
}
