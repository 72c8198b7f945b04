//! The `contacts` and `contacts-joined` imports: another module of the same
//! organization reaches the contacts module's rules (see [`crate::nested`]);
//! a joined upsert's writes wait for the caller's commit ([`crate::deferred`]).

use wasmtime::component::HasData;

use crate::bindings::platform::crm::plugin::{contacts, contacts_joined};
use crate::nested::failed;
use crate::runtime::{Call, HostState, Writes};
use crate::turns::Held;

/// What the `contacts` imports may touch: the call, whether it wrote and
/// what a joined upsert holds for its next commit, and its compute turn
/// (which the nested instance shares).
pub(crate) struct ContactsView<'a> {
    call: &'a Call,
    writes: &'a mut Writes,
    turn: &'a Held,
}

pub(crate) struct ContactsCap;

impl HasData for ContactsCap {
    type Data<'a> = ContactsView<'a>;
}

pub(crate) fn view(state: &mut HostState) -> ContactsView<'_> {
    ContactsView { call: &state.call, writes: &mut state.writes, turn: &state.compute.turn }
}

impl ContactsView<'_> {
    async fn nested_upsert(&mut self, body: String, options: contacts::UpsertOptions) -> contacts::UpsertOutcome {
        let Some(ctx) = self.call.ctx.clone() else {
            return failed(500);
        };
        let dry_run = options.dry_run;
        let outcome = self.call.runtime.contacts_upsert(ctx, self.turn.clone(), body, options).await;
        self.writes.wrote |= !dry_run && outcome.status < 300;
        outcome
    }
}

impl contacts::Host for ContactsView<'_> {
    async fn upsert(&mut self, body: String) -> contacts::UpsertOutcome {
        let options = contacts::UpsertOptions { attribution: None, lenient_location: false, dry_run: false };
        self.nested_upsert(body, options).await
    }

    async fn upsert_with(&mut self, body: String, options: contacts::UpsertOptions) -> contacts::UpsertOutcome {
        self.nested_upsert(body, options).await
    }

    async fn upsert_many(
        &mut self,
        bodies: Vec<String>,
        options: contacts::UpsertOptions,
    ) -> Vec<contacts::UpsertOutcome> {
        let Some(ctx) = self.call.ctx.clone() else {
            return bodies.iter().map(|_| failed(500)).collect();
        };
        let dry_run = options.dry_run;
        let outcomes = self.call.runtime.contacts_upsert_many(ctx, self.turn.clone(), bodies, options).await;
        self.writes.wrote |= !dry_run && outcomes.iter().any(|o| o.status < 300);
        outcomes
    }

    async fn get(&mut self, id: String) -> Option<String> {
        let ctx = self.call.ctx.clone()?;
        self.call.runtime.contacts_get(ctx, self.turn.clone(), id).await
    }

    async fn conversation(&mut self, id: String) -> Option<String> {
        let ctx = self.call.ctx.clone()?;
        self.call.runtime.contacts_conversation(ctx, self.turn.clone(), id).await
    }
}

impl contacts_joined::Host for ContactsView<'_> {
    async fn upsert(&mut self, body: String, options: contacts::UpsertOptions) -> contacts::UpsertOutcome {
        let Some(ctx) = self.call.ctx.clone() else {
            return failed(500);
        };
        if !self.writes.deferred.is_empty() {
            tracing::warn!(module = self.call.module, "a second joined upsert before a commit: refused");
            return failed(500);
        }
        let (outcome, held) = self.call.runtime.contacts_upsert_joined(ctx, self.turn.clone(), body, options).await;
        self.writes.deferred.join(held);
        outcome
    }
}
