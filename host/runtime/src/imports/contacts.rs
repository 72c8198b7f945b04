//! The `contacts` import: another module of the same organization reaches
//! the contacts module's rules (see [`crate::nested`]).

use crate::bindings::platform::crm::plugin::contacts;
use crate::runtime::HostState;

impl HostState {
    async fn nested_upsert(&mut self, body: String, options: contacts::UpsertOptions) -> contacts::UpsertOutcome {
        let Some(ctx) = self.ctx.clone() else {
            return contacts::UpsertOutcome { status: 500, contact_id: None, body: "{}".into() };
        };
        let outcome = self.runtime.contacts_upsert(ctx, body, options).await;
        self.wrote |= outcome.status < 300;
        outcome
    }
}

impl contacts::Host for HostState {
    async fn upsert(&mut self, body: String) -> contacts::UpsertOutcome {
        self.nested_upsert(body, contacts::UpsertOptions { attribution: None }).await
    }

    async fn upsert_with(&mut self, body: String, options: contacts::UpsertOptions) -> contacts::UpsertOutcome {
        self.nested_upsert(body, options).await
    }

    async fn get(&mut self, id: String) -> Option<String> {
        let ctx = self.ctx.clone()?;
        self.runtime.contacts_get(ctx, id).await
    }
}
