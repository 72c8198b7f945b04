//! The `events` import: a module stages events and subscriptions; the store
//! import writes them with the module's next `commit` or `batch` (the
//! outbox, see `crm_events::outbox`).

use crm_events::outbox;
use crm_store::BatchOp;

use crate::bindings::platform::crm::plugin::events;
use crate::runtime::HostState;

impl HostState {
    fn stage(&mut self, item: Result<crm_events::Staged, String>) -> Result<(), String> {
        if self.scope.is_none() {
            return Err("no organization: nothing to stage events for".into());
        }
        if self.staged.len() >= 1000 {
            return Err("at most 1000 events and subscriptions wait for one commit".into());
        }
        self.staged.push(item?);
        Ok(())
    }

    /// The writes that carry what was staged, for the commit about to be
    /// made; the staged list is emptied whether that commit applies or not.
    /// The second value: whether they make deliveries (the worker is rung).
    pub(crate) fn take_staged(&mut self) -> Result<(Vec<BatchOp>, bool), String> {
        if self.staged.is_empty() {
            return Ok((Vec::new(), false));
        }
        let org = self.ctx.as_ref().map(|c| c.org.id.clone()).ok_or("no organization")?;
        let staged = std::mem::take(&mut self.staged);
        let writes = self.runtime.outbox.writes(&org, &self.module, staged).map_err(|e| {
            tracing::error!(error = %e, "store failure while staging events");
            "store failure".to_string()
        })?;
        Ok((writes.ops, writes.deliveries > 0))
    }

    /// Rings the delivery worker for this organization.
    pub(crate) fn ring(&self) {
        if let Some(ctx) = &self.ctx {
            self.runtime.outbox.wake(&ctx.org.id);
        }
    }
}

impl events::Host for HostState {
    async fn emit(&mut self, event_type: String, data: String) -> Result<(), String> {
        self.stage(outbox::emit(&event_type, &data))
    }

    async fn subscribe(&mut self, sub: events::Subscription) -> Result<(), String> {
        let sub = crm_events::records::Subscription {
            id: sub.id,
            module: String::new(),
            event_type: sub.event_type,
            filter: sub.filter,
            targets: sub
                .targets
                .into_iter()
                .map(|t| crm_events::records::Target { url: t.url, headers: t.headers })
                .collect(),
        };
        let policy = self.runtime.outbox.policy();
        let module = self.module.clone();
        self.stage(outbox::subscribe(policy, &module, sub))
    }

    async fn unsubscribe(&mut self, id: String) -> Result<(), String> {
        self.stage(outbox::unsubscribe(&id))
    }
}
