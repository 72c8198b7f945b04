//! The `webhooks` import: a module asks whether a URL may receive webhooks
//! before saving it, under the operator's policy ([`crm_events::webhook_url`]).

use crate::bindings::platform::crm::plugin::webhooks;
use crate::runtime::HostState;

impl webhooks::Host for HostState {
    async fn check_url(&mut self, url: String) -> Result<(), String> {
        // The check may resolve the customer's host name: a wait, not work.
        let outbox = self.runtime.outbox.clone();
        self.turn.off_turn(async move { outbox.policy().check(&url).await.map(|_| ()) }).await
    }
}
