//! Calls the host makes on its own behalf into a module's upkeep exports:
//! today the contacts module's `contacts-upkeep.reindex`, which the server
//! runs for every organization at start, and without a cursor for each
//! organization whose contacts were written since the last round (it then
//! folds the search index's log: [`Runtime::take_contacts_written`]). Each
//! call is an instance bound to the organization, with the admin's context,
//! under the batch deadline, in a compute turn of that organization like any
//! request's.

use std::sync::Arc;

use crm_tenancy::Org;

use crate::context::CallContext;
use crate::nested::BATCH_DEADLINE;
use crate::runtime::Call;
use crate::runtime::Runtime;
use crate::turns::Held;

/// Why an upkeep call failed.
#[derive(Debug)]
pub struct UpkeepFailed {
    pub message: String,
    /// The store could not be reached (no primary answering, a failover):
    /// the same call later may succeed, and is no fault of its own.
    pub store_unreachable: bool,
}

/// One page of a reindex: how many contacts, and where the next starts
/// (`None` after the last).
#[derive(Debug, PartialEq, Eq)]
pub struct Reindexed {
    pub indexed: u32,
    pub next: Option<String>,
}

/// Notes a commit of `call`'s instance for the next upkeep round, when it
/// is the contacts module's (a fold's own commit included: the round after
/// it finds nothing left and writes nothing).
pub(crate) fn note_commit(call: &Call) {
    let Some(ctx) = &call.ctx else { return };
    if call.runtime.contacts_module().is_some_and(|m| m.name == call.module) {
        let mut written = call.runtime.contacts_written.lock().expect("contacts written lock");
        written.entry(ctx.org.id.clone()).or_insert_with(|| ctx.org.clone());
    }
}

impl Runtime {
    /// The organizations whose contacts were written since the last call.
    pub fn take_contacts_written(&self) -> Vec<Org> {
        let taken = std::mem::take(&mut *self.contacts_written.lock().expect("contacts written lock"));
        taken.into_values().collect()
    }

    /// The contacts module's `reindex` for `org`, from the cursor `after`;
    /// `Ok(None)` when no loaded module offers contacts.
    pub async fn reindex_contacts(
        self: &Arc<Self>,
        org: Org,
        after: Option<String>,
    ) -> Result<Option<Reindexed>, UpkeepFailed> {
        let turn = Held::new(self.turns.take(&org.id).await, &org.id);
        let ctx = Arc::new(CallContext::admin(org, &crm_tenancy::ids::new_id()));
        let unreachable = ctx.unreachable.clone();
        let failed = |message: String| UpkeepFailed { message, store_unreachable: unreachable.was_noted() };
        let Some(started) = self.nested_contacts(ctx, turn, BATCH_DEADLINE).await else { return Ok(None) };
        let (mut store, instance) = started.map_err(|e| failed(e.to_string()))?;
        let answer = instance.crm_plugin_contacts_upkeep().call_reindex(&mut store, after.as_deref()).await;
        let page = answer.map_err(|e| failed(e.to_string()))?.map_err(failed)?;
        Ok(Some(Reindexed { indexed: page.indexed, next: page.next }))
    }
}
