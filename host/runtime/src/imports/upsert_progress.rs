//! The `upsert-progress` import: the contacts module tells, as an
//! `upsert-many` goes, which body it begins and which outcomes are final
//! (kept in [`crate::progress::Progress`]).

use crate::bindings::platform::crm::plugin::{contacts, upsert_progress};
use crate::runtime::HostState;

impl upsert_progress::Host for HostState {
    async fn begin(&mut self, index: u32) {
        self.progress.begun = Some(index);
    }

    async fn settled(&mut self, status: u16, contact_id: Option<String>, body: String) {
        self.progress.settled.push(contacts::UpsertOutcome { status, contact_id, body });
    }
}
