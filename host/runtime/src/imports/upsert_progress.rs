//! The `upsert-progress` import: the contacts module tells, as an
//! `upsert-many` goes, which body it begins and which outcomes are final
//! (kept in [`crate::progress::Progress`]).

use crate::bindings::platform::crm::plugin::{contacts, upsert_progress};
use crate::progress::Progress;

/// Over the instance's progress alone.
impl upsert_progress::Host for Progress {
    async fn begin(&mut self, index: u32) {
        self.begun = Some(index);
    }

    async fn settled(&mut self, status: u16, contact_id: Option<String>, body: String) {
        self.settled.push(contacts::UpsertOutcome { status, contact_id, body });
    }
}
