//! The small imports every component may use: `types` (definitions only),
//! `runtime` (ids, clock, logs), `tenant` (its organization), and WASI with
//! nothing granted.

use crm_tenancy::{clock, ids};
use wasmtime_wasi::{WasiCtxView, WasiView};

use crate::bindings::platform::crm::plugin::{runtime, tenant, types};
use crate::runtime::HostState;

impl HostState {
    fn log_target(&self) -> (&str, &str) {
        let rid = self.ctx.as_ref().map_or("", |c| c.request_id.as_str());
        (&self.module, rid)
    }
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

/// `types` holds only type definitions.
impl types::Host for HostState {}

impl runtime::Host for HostState {
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

impl tenant::Host for HostState {
    async fn organization_id(&mut self) -> String {
        self.ctx.as_ref().map(|c| c.org.id.clone()).unwrap_or_default()
    }

    async fn contact_limit(&mut self) -> Option<u64> {
        self.ctx.as_ref().and_then(|c| c.org.contact_limit())
    }
}
