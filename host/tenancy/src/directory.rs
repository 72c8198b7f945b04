//! Public ids: which organization a token-less door's id belongs to (a form's
//! public submit URL names only the form). A module publishes the ids of its
//! public routes; the host reads the map before any organization is known, so
//! it lives in the system namespace, one key per module and id.

use crm_store::{Namespace, StoreResult};

use crate::Tenancy;

fn key(module: &str, id: &str) -> Vec<u8> {
    format!("public/{module}/{id}").into_bytes()
}

impl Tenancy {
    /// Publishes `id` of `module` for `org_id`; `false` when another
    /// organization holds it (publishing one's own id again is a success).
    pub fn publish(&self, module: &str, id: &str, org_id: &str) -> StoreResult<bool> {
        let swapped =
            self.store().compare_and_swap(&Namespace::system(), &key(module, id), None, Some(org_id.as_bytes()))?;
        Ok(match swapped {
            Ok(()) => true,
            Err(current) => current.as_deref() == Some(org_id.as_bytes()),
        })
    }

    /// Withdraws `id` of `module` if `org_id` holds it.
    pub fn withdraw(&self, module: &str, id: &str, org_id: &str) -> StoreResult<()> {
        // Lost: another organization holds it, or nobody; nothing to withdraw.
        let _ = self.store().compare_and_swap(&Namespace::system(), &key(module, id), Some(org_id.as_bytes()), None)?;
        Ok(())
    }

    /// The organization that published `id` of `module`, if any.
    pub fn publisher(&self, module: &str, id: &str) -> StoreResult<Option<String>> {
        if id.is_empty() || id.len() > 128 {
            return Ok(None);
        }
        Ok(self.store().get(&Namespace::system(), &key(module, id))?.map(|v| String::from_utf8_lossy(&v).into_owned()))
    }
}
