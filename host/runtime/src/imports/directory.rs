//! The `directory` import: a module publishes the ids of its public routes
//! for the organization of its instance (see `crm_tenancy::directory`).

use crm_tenancy::Tenancy;

use crate::bindings::platform::crm::plugin::directory;
use crate::runtime::HostState;

/// Longest public id a module may publish.
const MAX_ID: usize = 128;

impl HostState {
    fn publishing(&self, id: &str) -> Result<(Tenancy, String), String> {
        let org = self.ctx.as_ref().map(|c| c.org.id.clone()).ok_or("no organization: nothing to publish for")?;
        if id.is_empty()
            || id.len() > MAX_ID
            || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(format!("a public id is 1 to {MAX_ID} letters, digits, - or _"));
        }
        Ok((Tenancy::new(self.store.clone()), org))
    }
}

impl directory::Host for HostState {
    async fn publish(&mut self, id: String) -> Result<bool, String> {
        let (tenancy, org) = self.publishing(&id)?;
        self.wrote = true;
        tenancy.publish(&self.module, &id, &org).map_err(|e| e.to_string())
    }

    async fn withdraw(&mut self, id: String) -> Result<(), String> {
        let (tenancy, org) = self.publishing(&id)?;
        self.wrote = true;
        tenancy.withdraw(&self.module, &id, &org).map_err(|e| e.to_string())
    }
}
