//! What a component may call, implemented for one instance.
//!
//! [`HostState`] is created per request and bound to one organization and one
//! module: every store key a component names is prefixed with
//! `m/<module>/` inside that organization's namespace, so neither another
//! organization's data nor another module's is reachable.

use std::sync::Arc;

use crm_catalog::{CityInput, Resolution, Status, catalog};
use wasmtime::StoreLimits;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::bindings::platform::crm::plugin::{catalog as wit_catalog, contacts, runtime, store, tenant, types};
use super::call::{CallContext, Runtime};
use crate::shipping::integrations::Integration;
use crate::shipping::outbound::Allowlist;
use crate::store::{BatchOp, Namespace, Store};
use crate::{clock, ids};

/// Largest key and value a component may store, and most pairs per scan.
const MAX_KEY: usize = 1024;
const MAX_VALUE: usize = 4 << 20;
const MAX_SCAN: u32 = 1000;
/// Most keys one `find` returns (keys only, so a larger bound is cheap).
const MAX_FIND: u32 = 100_000;

/// What a provider instance may use: its organization's integration and the
/// hosts it may reach.
pub struct ProviderScope {
    pub integration: Integration,
    pub allowed: Allowlist,
}

/// The state of one instance.
pub struct HostState {
    pub(super) runtime: Arc<Runtime>,
    /// `None` while a component is only being described at load time.
    pub(super) ctx: Option<Arc<CallContext>>,
    pub(super) module: String,
    /// The organization's namespace and this module's key prefix (`m/<module>/`),
    /// fixed for the instance's life; `None` while describing.
    scope: Option<(Namespace, Vec<u8>)>,
    /// Set for provider instances (which get no store).
    pub(super) provider: Option<ProviderScope>,
    pub(super) store: Arc<dyn Store>,
    /// Whether the instance wrote: the host then waits for durability.
    pub(super) wrote: bool,
    pub(super) limits: StoreLimits,
    wasi: WasiCtx,
    table: ResourceTable,
}

impl HostState {
    pub(super) fn new(
        runtime: Arc<Runtime>,
        ctx: Option<Arc<CallContext>>,
        module: &str,
        provider: Option<ProviderScope>,
        limits: StoreLimits,
    ) -> Self {
        let scope = match provider {
            Some(_) => None,
            None => ctx.as_ref().map(|c| (c.org.namespace(), format!("m/{module}/").into_bytes())),
        };
        HostState {
            provider,
            store: runtime.store.clone(),
            runtime,
            ctx,
            module: module.to_string(),
            scope,
            wrote: false,
            limits,
            // No filesystem, sockets, environment or arguments.
            wasi: WasiCtx::builder().build(),
            table: ResourceTable::new(),
        }
    }

    fn scope(&self) -> Result<&(Namespace, Vec<u8>), String> {
        self.scope.as_ref().ok_or_else(|| "no organization: the store is not available here".into())
    }

    fn namespace(&self) -> Result<Namespace, String> {
        Ok(self.scope()?.0.clone())
    }

    fn scoped(&self, key: &[u8]) -> Result<Vec<u8>, String> {
        if key.len() > MAX_KEY {
            return Err(format!("key longer than {MAX_KEY} bytes"));
        }
        let prefix = &self.scope()?.1;
        let mut scoped = Vec::with_capacity(prefix.len() + key.len());
        scoped.extend_from_slice(prefix);
        scoped.extend_from_slice(key);
        Ok(scoped)
    }

    fn unscoped(&self, key: Vec<u8>) -> Vec<u8> {
        let prefix = self.scope.as_ref().map_or(0, |(_, p)| p.len());
        key[prefix.min(key.len())..].to_vec()
    }

    fn log_target(&self) -> (&str, &str) {
        let rid = self.ctx.as_ref().map_or("", |c| c.request_id.as_str());
        (&self.module, rid)
    }
}

fn check_value(value: &[u8]) -> Result<(), String> {
    if value.len() > MAX_VALUE { Err(format!("value larger than {MAX_VALUE} bytes")) } else { Ok(()) }
}

fn store_err(e: crate::store::StoreError) -> String {
    tracing::error!(error = %e, "store failure in a component call");
    "store failure".into()
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

/// `types` holds only type definitions.
impl types::Host for HostState {}

impl store::Host for HostState {
    async fn get(&mut self, key: Vec<u8>) -> Result<Option<Vec<u8>>, String> {
        let (ns, key) = (self.namespace()?, self.scoped(&key)?);
        self.store.get(&ns, &key).map_err(store_err)
    }

    async fn put(&mut self, key: Vec<u8>, value: Vec<u8>) -> Result<(), String> {
        let (ns, key) = (self.namespace()?, self.scoped(&key)?);
        check_value(&value)?;
        self.wrote = true;
        self.store.put(&ns, &key, &value).map_err(store_err)
    }

    async fn delete(&mut self, key: Vec<u8>) -> Result<(), String> {
        let (ns, key) = (self.namespace()?, self.scoped(&key)?);
        self.wrote = true;
        self.store.delete(&ns, &key).map_err(store_err)
    }

    async fn compare_and_swap(
        &mut self,
        key: Vec<u8>,
        expected: Option<Vec<u8>>,
        new: Option<Vec<u8>>,
    ) -> Result<bool, String> {
        let (ns, key) = (self.namespace()?, self.scoped(&key)?);
        if let Some(v) = &new {
            check_value(v)?;
        }
        let swapped = self.store.compare_and_swap(&ns, &key, expected.as_deref(), new.as_deref()).map_err(store_err)?;
        self.wrote |= swapped.is_ok();
        Ok(swapped.is_ok())
    }

    async fn scan(
        &mut self,
        prefix: Vec<u8>,
        start: Option<Vec<u8>>,
        limit: u32,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, String> {
        let ns = self.namespace()?;
        let prefix = self.scoped(&prefix)?;
        let start = start.map(|s| self.scoped(&s)).transpose()?;
        let pairs = self.store.scan(&ns, &prefix, start.as_deref(), limit.min(MAX_SCAN) as usize).map_err(store_err)?;
        Ok(pairs.into_iter().map(|(k, v)| (self.unscoped(k), v)).collect())
    }

    async fn scan_reverse(
        &mut self,
        prefix: Vec<u8>,
        before: Option<Vec<u8>>,
        limit: u32,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, String> {
        let ns = self.namespace()?;
        let prefix = self.scoped(&prefix)?;
        let before = before.map(|b| self.scoped(&b)).transpose()?;
        let pairs = self
            .store
            .scan_reverse(&ns, &prefix, before.as_deref(), limit.min(MAX_SCAN) as usize)
            .map_err(store_err)?;
        Ok(pairs.into_iter().map(|(k, v)| (self.unscoped(k), v)).collect())
    }

    async fn find(&mut self, prefix: Vec<u8>, needle: Vec<u8>, limit: u32) -> Result<Vec<Vec<u8>>, String> {
        let ns = self.namespace()?;
        let prefix = self.scoped(&prefix)?;
        let keys = self.store.find(&ns, &prefix, &needle, limit.min(MAX_FIND) as usize).map_err(store_err)?;
        Ok(keys.into_iter().map(|k| self.unscoped(k)).collect())
    }

    async fn batch(&mut self, ops: Vec<store::Op>) -> Result<(), String> {
        let ns = self.namespace()?;
        let ops = ops
            .into_iter()
            .map(|op| match op {
                store::Op::Put((k, v)) => check_value(&v).and_then(|_| Ok(BatchOp::Put(self.scoped(&k)?, v))),
                store::Op::Delete(k) => Ok(BatchOp::Delete(self.scoped(&k)?)),
            })
            .collect::<Result<Vec<_>, String>>()?;
        self.wrote = true;
        self.store.batch(&ns, ops).map_err(store_err)
    }
}

fn to_wit(m: &crm_catalog::Municipality) -> wit_catalog::Municipality {
    wit_catalog::Municipality {
        code: m.code.clone(),
        name: m.name.clone(),
        short_name: m.short_name.clone(),
        state_code: m.state_code.clone(),
        state_name: m.state_name.clone(),
        state_iso2: m.state_iso2.clone(),
        dane8: m.dane8.clone(),
    }
}

impl wit_catalog::Host for HostState {
    async fn resolve(&mut self, input: wit_catalog::CityInput) -> wit_catalog::Resolution {
        let resolution = catalog().resolve(CityInput {
            city_code: input.city_code.as_deref(),
            city: input.city.as_deref(),
            state: input.state.as_deref(),
            country: input.country.as_deref(),
        });
        match resolution {
            Resolution::Resolved(m) => wit_catalog::Resolution::Resolved(to_wit(m)),
            Resolution::Foreign { city } => wit_catalog::Resolution::Foreign(city),
            Resolution::Absent => wit_catalog::Resolution::Absent,
            Resolution::Unresolved { status, candidates } => {
                wit_catalog::Resolution::Unresolved(wit_catalog::Unresolved {
                    status: match status {
                        Status::Ambiguous => wit_catalog::UnresolvedStatus::Ambiguous,
                        Status::Fuzzy => wit_catalog::UnresolvedStatus::Fuzzy,
                        Status::None => wit_catalog::UnresolvedStatus::None,
                        Status::InvalidCode => wit_catalog::UnresolvedStatus::InvalidCode,
                    },
                    candidates: candidates.into_iter().map(to_wit).collect(),
                })
            }
        }
    }

    async fn lookup(&mut self, code: String) -> Option<wit_catalog::Municipality> {
        catalog().municipality(&code).map(to_wit)
    }
}

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

impl contacts::Host for HostState {
    async fn upsert(&mut self, body: String) -> contacts::UpsertOutcome {
        let Some(ctx) = self.ctx.clone() else {
            return contacts::UpsertOutcome { status: 500, contact_id: None, body: "{}".into() };
        };
        let outcome = self.runtime.contacts_upsert(ctx, body).await;
        self.wrote |= outcome.status < 300;
        outcome
    }

    async fn get(&mut self, id: String) -> Option<String> {
        let ctx = self.ctx.clone()?;
        self.runtime.contacts_get(ctx, id).await
    }
}
