//! Nested calls: one module of an organization calling another's interface
//! (today the contacts module's `upsert-with` and `get`), in a fresh instance bound
//! to the same organization, under the nested deadline.

use std::sync::Arc;

use crate::bindings::platform::crm::plugin::contacts;
use crate::context::CallContext;
use crate::runtime::{LoadedModule, Runtime};

impl Runtime {
    fn contacts_module(&self) -> Option<&Arc<LoadedModule>> {
        self.modules().find(|m| m.contacts.is_some())
    }

    /// The contacts module's `upsert`, for another module of the same organization.
    pub(crate) async fn contacts_upsert(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        body: String,
        options: contacts::UpsertOptions,
    ) -> contacts::UpsertOutcome {
        let failed = |status| contacts::UpsertOutcome { status, contact_id: None, body: "{}".into() };
        let Some(module) = self.contacts_module().cloned() else { return failed(501) };
        let pre = module.contacts.as_ref().expect("checked");
        let mut store = self.new_store(&module.name, Some(ctx), self.nested_deadline);
        let outcome = async {
            let instance = pre.instantiate_async(&mut store).await?;
            let options = crate::bindings::contacts_provider::exports::crm::plugin::contacts::UpsertOptions {
                attribution: options.attribution,
            };
            instance.crm_plugin_contacts().call_upsert_with(&mut store, &body, &options).await
        }
        .await;
        match outcome {
            Ok(o) => contacts::UpsertOutcome { status: o.status, contact_id: o.contact_id, body: o.body },
            Err(e) => {
                tracing::error!(error = %e, "the contacts module failed a nested upsert");
                failed(500)
            }
        }
    }

    /// The contacts module's `get`, for another module of the same organization.
    pub(crate) async fn contacts_get(self: &Arc<Self>, ctx: Arc<CallContext>, id: String) -> Option<String> {
        let module = self.contacts_module()?.clone();
        let pre = module.contacts.as_ref()?;
        let mut store = self.new_store(&module.name, Some(ctx), self.nested_deadline);
        let instance = pre.instantiate_async(&mut store).await.ok()?;
        instance.crm_plugin_contacts().call_get(&mut store, &id).await.ok().flatten()
    }
}
