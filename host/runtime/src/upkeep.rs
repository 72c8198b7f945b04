//! Calls the host makes on its own behalf into a module's upkeep exports:
//! today the contacts module's `contacts-upkeep.reindex`, which the server
//! runs for every organization at start. Each call is an instance bound to
//! the organization, with the admin's context, under the batch deadline, in
//! a compute turn of that organization like any request's.

use std::sync::Arc;

use crm_tenancy::Org;

use crate::context::CallContext;
use crate::nested::BATCH_DEADLINE;
use crate::runtime::Runtime;
use crate::turns::Held;

/// One page of a reindex: how many contacts, and where the next starts
/// (`None` after the last).
#[derive(Debug, PartialEq, Eq)]
pub struct Reindexed {
    pub indexed: u32,
    pub next: Option<String>,
}

impl Runtime {
    /// The contacts module's `reindex` for `org`, from the cursor `after`;
    /// `Ok(None)` when no loaded module offers contacts.
    pub async fn reindex_contacts(
        self: &Arc<Self>,
        org: Org,
        after: Option<String>,
    ) -> Result<Option<Reindexed>, String> {
        let turn = Held::new(self.turns.take(&org.id).await, &org.id);
        let ctx = Arc::new(CallContext::admin(org, &crm_tenancy::ids::new_id()));
        let Some(started) = self.nested_contacts(ctx, turn, BATCH_DEADLINE).await else { return Ok(None) };
        let (mut store, instance) = started.map_err(|e| e.to_string())?;
        let answer = instance.crm_plugin_contacts_upkeep().call_reindex(&mut store, after.as_deref()).await;
        let page = answer.map_err(|e| e.to_string())??;
        Ok(Some(Reindexed { indexed: page.indexed, next: page.next }))
    }
}
