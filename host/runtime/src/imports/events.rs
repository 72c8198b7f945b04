//! The `events` import: a module stages events and subscriptions; the store
//! import writes them with the module's next `commit` or `batch` (the
//! outbox, see `crm_events::outbox`).

use crm_events::outbox::{self, Writes};
use wasmtime::component::HasData;

use crate::bindings::platform::crm::plugin::events;
use crate::context::store_failure;
use crate::runtime::{Call, HostState, Staged};

/// What the `events` import may touch: the call, and what is staged.
pub(crate) struct EventsView<'a> {
    call: &'a Call,
    staged: &'a mut Staged,
}

pub(crate) struct EventsCap;

impl HasData for EventsCap {
    type Data<'a> = EventsView<'a>;
}

pub(crate) fn view(state: &mut HostState) -> EventsView<'_> {
    EventsView { call: &state.call, staged: &mut state.staged }
}

impl Staged {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The writes that carry what was staged, for the commit about to be
    /// made; the staged list is emptied whether that commit applies or not.
    pub(crate) fn take(&mut self, call: &Call) -> Result<Writes, String> {
        if self.0.is_empty() {
            return Ok(Writes::default());
        }
        let org = call.org_id().ok_or("no organization")?;
        let staged = std::mem::take(&mut self.0);
        call.runtime
            .outbox
            .writes(org, &call.module, staged)
            .map_err(|e| store_failure(call.ctx.as_deref(), "staging events", e))
    }
}

/// After the commit that carried `writes` applied: the worker is rung for
/// new deliveries and for the held ones of endpoints a subscription
/// enabled; changed subscriptions are read again.
pub(crate) fn settle(call: &Call, writes: &Writes) {
    let Some(org) = call.org_id() else { return };
    if writes.subscriptions_changed {
        call.runtime.outbox.forget_subscriptions(org);
    }
    if writes.deliveries > 0 || writes.subscriptions_changed {
        call.runtime.outbox.wake(org);
    }
}

impl EventsView<'_> {
    fn stage(&mut self, item: Result<crm_events::Staged, String>) -> Result<(), String> {
        if self.call.ctx.is_none() {
            return Err("no organization: nothing to stage events for".into());
        }
        if self.staged.0.len() >= 1000 {
            return Err("at most 1000 events and subscriptions wait for one commit".into());
        }
        self.staged.0.push(item?);
        Ok(())
    }

    /// Whether a subscription of the organization wants events of this type.
    fn is_wanted(&self, event_type: &str) -> Result<bool, String> {
        let Some(org) = self.call.org_id() else { return Err("no organization: nothing to stage events for".into()) };
        let ctx = self.call.ctx.as_deref();
        self.call.runtime.outbox.is_wanted(org, event_type).map_err(|e| store_failure(ctx, "reading subscriptions", e))
    }
}

impl events::Host for EventsView<'_> {
    async fn emit(&mut self, event_type: String, data: String) -> Result<(), String> {
        match self.is_wanted(&event_type)? {
            true => self.stage(outbox::emit(&event_type, &data)),
            false => Ok(()),
        }
    }

    async fn wanted(&mut self, event_type: String) -> Result<bool, String> {
        self.is_wanted(&event_type)
    }

    async fn subscribe(&mut self, sub: events::Subscription) -> Result<(), String> {
        let options = vec![events::DeliveryOptions { max_per_second: None, ordered: false }; sub.targets.len()];
        self.subscribe_with_options(sub, options).await
    }

    async fn subscribe_with_options(
        &mut self,
        sub: events::Subscription,
        options: Vec<events::DeliveryOptions>,
    ) -> Result<(), String> {
        if options.len() != sub.targets.len() {
            return Err("give one delivery-options for each target".into());
        }
        let sub = crm_events::records::Subscription {
            id: sub.id,
            module: String::new(),
            event_type: sub.event_type,
            filter: sub.filter,
            targets: sub
                .targets
                .into_iter()
                .zip(options)
                .map(|(t, o)| crm_events::records::Target {
                    url: t.url,
                    headers: t.headers,
                    max_per_second: o.max_per_second,
                    ordered: o.ordered,
                })
                .collect(),
        };
        let policy = self.call.runtime.outbox.policy();
        let module = self.call.module.clone();
        self.stage(outbox::subscribe(policy, &module, sub))
    }

    async fn unsubscribe(&mut self, id: String) -> Result<(), String> {
        self.stage(outbox::unsubscribe(&id))
    }
}
