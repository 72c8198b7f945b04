//! The `directory` import: a module publishes the ids of its public routes
//! for the organization of its instance (see `crm_tenancy::directory`).

use crm_tenancy::Tenancy;
use wasmtime::component::HasData;

use crate::bindings::platform::crm::plugin::directory;
use crate::context::store_failure;
use crate::runtime::{Call, HostState, Writes};

/// What the `directory` import may touch: the call, and the store it
/// publishes through (a publication is a write).
pub(crate) struct DirectoryView<'a> {
    call: &'a Call,
    writes: &'a mut Writes,
}

pub(crate) struct DirectoryCap;

impl HasData for DirectoryCap {
    type Data<'a> = DirectoryView<'a>;
}

pub(crate) fn view(state: &mut HostState) -> DirectoryView<'_> {
    DirectoryView { call: &state.call, writes: &mut state.writes }
}

/// Longest public id a module may publish.
const MAX_ID: usize = 128;

impl DirectoryView<'_> {
    fn publishing(&self, id: &str) -> Result<(Tenancy, String), String> {
        let org = self.call.ctx.as_ref().map(|c| c.org.id.clone()).ok_or("no organization: nothing to publish for")?;
        if id.is_empty()
            || id.len() > MAX_ID
            || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(format!("a public id is 1 to {MAX_ID} letters, digits, - or _"));
        }
        Ok((Tenancy::new(self.writes.store.clone()), org))
    }
}

impl directory::Host for DirectoryView<'_> {
    async fn publish(&mut self, id: String) -> Result<bool, String> {
        let (tenancy, org) = self.publishing(&id)?;
        self.writes.wrote = true;
        let ctx = self.call.ctx.as_deref();
        tenancy.publish(&self.call.module, &id, &org).map_err(|e| store_failure(ctx, "publishing a public id", e))
    }

    async fn withdraw(&mut self, id: String) -> Result<(), String> {
        let (tenancy, org) = self.publishing(&id)?;
        self.writes.wrote = true;
        let ctx = self.call.ctx.as_deref();
        tenancy.withdraw(&self.call.module, &id, &org).map_err(|e| store_failure(ctx, "withdrawing a public id", e))
    }
}
