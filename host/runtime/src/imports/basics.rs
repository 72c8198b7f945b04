//! The small imports every component may use, over the [`Call`] alone:
//! `types` (definitions only), `runtime` (ids, clock, logs) and `tenant`
//! (its organization). WASI, with nothing granted, is the state's (`runtime/state.rs`).

use crm_tenancy::{clock, ids};

use crate::bindings::platform::crm::plugin::{runtime, shipping_types, tenant, types};
use crate::runtime::Call;

impl Call {
    fn log_target(&self) -> (&str, &str) {
        let rid = self.ctx.as_ref().map_or("", |c| c.request_id.as_str());
        (&self.module, rid)
    }
}

/// `types` and `shipping-types` hold only type definitions.
impl types::Host for Call {}
impl shipping_types::Host for Call {}

impl runtime::Host for Call {
    async fn new_id(&mut self) -> String {
        ids::new_id()
    }

    async fn now(&mut self) -> String {
        clock::now_text()
    }

    async fn now_millis(&mut self) -> u64 {
        clock::now().timestamp_millis().max(0) as u64
    }

    async fn log(&mut self, level: runtime::Level, message: String) {
        let (module, request_id) = self.log_target();
        let message: String = message.chars().take(2000).collect();
        match level {
            runtime::Level::Debug => tracing::debug!(module, request_id, "{message}"),
            runtime::Level::Info => tracing::info!(module, request_id, "{message}"),
            runtime::Level::Warn => tracing::warn!(module, request_id, "{message}"),
            runtime::Level::Error => tracing::error!(module, request_id, "{message}"),
        }
    }
}

impl tenant::Host for Call {
    async fn organization_id(&mut self) -> String {
        self.ctx.as_ref().map(|c| c.org.id.clone()).unwrap_or_default()
    }

    async fn contact_limit(&mut self) -> Option<u64> {
        self.ctx.as_ref().and_then(|c| c.org.contact_limit())
    }
}
