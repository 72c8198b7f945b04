//! The `webhooks` import: a module asks whether a URL may receive webhooks
//! before saving it, under the operator's policy ([`crm_events::webhook_url`]).

use wasmtime::component::HasData;

use crate::bindings::platform::crm::plugin::webhooks;
use crate::runtime::{Call, HostState};
use crate::turns::Held;

/// What the `webhooks` import may touch: the call, and its compute turn
/// (given back while a host name resolves).
pub(crate) struct WebhooksView<'a> {
    call: &'a Call,
    turn: &'a Held,
}

pub(crate) struct WebhooksCap;

impl HasData for WebhooksCap {
    type Data<'a> = WebhooksView<'a>;
}

pub(crate) fn view(state: &mut HostState) -> WebhooksView<'_> {
    WebhooksView { call: &state.call, turn: &state.compute.turn }
}

impl webhooks::Host for WebhooksView<'_> {
    async fn check_url(&mut self, url: String) -> Result<(), String> {
        // The check may resolve the customer's host name: a wait, not work.
        let outbox = self.call.runtime.outbox.clone();
        self.turn.off_turn(async move { outbox.policy().check(&url).await.map(|_| ()) }).await
    }
}
