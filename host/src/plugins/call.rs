//! Calling components: one fresh instance per call, bound to one organization,
//! under a deadline and a memory cap.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use wasmtime::component::{HasSelf, Linker};
use wasmtime::{Engine, StoreLimitsBuilder, UpdateDeadline};

use super::bindings::platform::Platform;
use super::bindings::platform::crm::plugin::{contacts, types};
use super::engine::{self, POOL_INSTANCES};
use super::imports::{HostState, ProviderScope};
use super::loader::LoadedModule;
use crate::shipping::outbound::Outbound;
use crate::store::Store;
use crate::tenancy::Org;

/// Who a call is for: the organization it is bound to and the caller's token.
#[derive(Debug, Clone)]
pub struct CallContext {
    pub org: Org,
    pub token_id: String,
    pub user_id: Option<String>,
    pub permissions: Vec<String>,
    pub request_id: String,
}

impl CallContext {
    fn caller(&self) -> types::Caller {
        types::Caller {
            org_id: self.org.id.clone(),
            token_id: self.token_id.clone(),
            user_id: self.user_id.clone(),
            permissions: self.permissions.clone(),
        }
    }
}

/// The engine, the linker with every host import, and the loaded modules.
pub struct Runtime {
    pub(super) engine: Engine,
    pub(super) linker: Linker<HostState>,
    pub(super) store: Arc<dyn Store>,
    modules: OnceLock<BTreeMap<String, Arc<LoadedModule>>>,
    /// Outer calls take a permit; nested calls (a module calling contacts) use the
    /// pool's other half, so they never wait on their own callers.
    pub(super) permits: Semaphore,
    memory_cap: usize,
    /// How long a nested call may run.
    pub(super) nested_deadline: Duration,
    /// Outbound HTTP of provider components, and how long one provider call may take.
    pub(super) outbound: Outbound,
    pub(super) provider_timeout: Duration,
}

impl Runtime {
    pub fn new(store: Arc<dyn Store>, memory_cap: usize, provider_timeout: Duration) -> wasmtime::Result<Arc<Runtime>> {
        let engine = engine::new_engine(memory_cap)?;
        engine::start_ticker(&engine);
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
        Platform::add_to_linker::<_, HasSelf<HostState>>(&mut linker, |state| state)?;
        Ok(Arc::new(Runtime {
            engine,
            linker,
            store,
            modules: OnceLock::new(),
            permits: Semaphore::new(POOL_INSTANCES as usize / 2),
            memory_cap,
            nested_deadline: Duration::from_secs(5),
            outbound: Outbound::new(provider_timeout),
            provider_timeout,
        }))
    }

    /// Installs the loaded modules (once, at start).
    pub fn set_modules(&self, modules: Vec<LoadedModule>) {
        let map = modules.into_iter().map(|m| (m.name.clone(), Arc::new(m))).collect();
        let _ = self.modules.set(map);
    }

    pub fn modules(&self) -> impl Iterator<Item = &Arc<LoadedModule>> {
        self.modules.get().into_iter().flat_map(|m| m.values())
    }

    /// A wasmtime store for one call of `module`.
    pub(super) fn new_store(
        self: &Arc<Self>,
        module: &str,
        ctx: Option<Arc<CallContext>>,
        deadline: Duration,
    ) -> wasmtime::Store<HostState> {
        self.new_store_for(module, ctx, None, deadline)
    }

    /// [`Self::new_store`] for a provider component, which gets settings and
    /// outbound HTTP instead of a store.
    pub(super) fn new_store_for(
        self: &Arc<Self>,
        module: &str,
        ctx: Option<Arc<CallContext>>,
        provider: Option<ProviderScope>,
        deadline: Duration,
    ) -> wasmtime::Store<HostState> {
        let limits = StoreLimitsBuilder::new().memory_size(self.memory_cap).instances(64).build();
        let state = HostState::new(self.clone(), ctx, module, provider, limits);
        let mut store = wasmtime::Store::new(&self.engine, state);
        store.limiter(|state| &mut state.limits);
        let until = Instant::now() + deadline;
        store.set_epoch_deadline(1);
        store.epoch_deadline_callback(move |_| {
            if Instant::now() >= until {
                Err(wasmtime::Error::msg("deadline exceeded"))
            } else {
                Ok(UpdateDeadline::Yield(1))
            }
        });
        store
    }

    /// Calls `module`'s handler for one request. `Ok` carries the response and
    /// whether the instance wrote (the caller then waits for durability); `Err`
    /// is a trap, an exceeded deadline or memory cap: that request's 500.
    pub async fn handle(
        self: &Arc<Self>,
        module: &LoadedModule,
        ctx: CallContext,
        request: types::Request,
        deadline: Duration,
    ) -> wasmtime::Result<(types::Response, bool)> {
        let _permit = self.permits.acquire().await?;
        let caller = ctx.caller();
        let mut store = self.new_store(&module.name, Some(Arc::new(ctx)), deadline);
        let pre = module.pre.as_ref().ok_or_else(|| wasmtime::Error::msg("not a module"))?;
        let call = async {
            let instance = pre.instantiate_async(&mut store).await?;
            let response = instance.crm_plugin_handler().call_handle(&mut store, &caller, &request).await?;
            Ok::<_, wasmtime::Error>((response, store.data().wrote))
        };
        // The epoch deadline stops guest code; this one also bounds host waits.
        match tokio::time::timeout(deadline + Duration::from_millis(250), call).await {
            Ok(result) => result,
            Err(_) => Err(wasmtime::Error::msg("deadline exceeded while waiting on the host")),
        }
    }

    fn contacts_module(&self) -> Option<&Arc<LoadedModule>> {
        self.modules().find(|m| m.contacts.is_some())
    }

    /// The contacts module's `upsert`, for another module of the same organization.
    pub(super) async fn contacts_upsert(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        body: String,
    ) -> contacts::UpsertOutcome {
        let failed = |status| contacts::UpsertOutcome { status, contact_id: None, body: "{}".into() };
        let Some(module) = self.contacts_module().cloned() else { return failed(501) };
        let pre = module.contacts.as_ref().expect("checked");
        let mut store = self.new_store(&module.name, Some(ctx), self.nested_deadline);
        let outcome = async {
            let instance = pre.instantiate_async(&mut store).await?;
            instance.crm_plugin_contacts().call_upsert(&mut store, &body).await
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
    pub(super) async fn contacts_get(self: &Arc<Self>, ctx: Arc<CallContext>, id: String) -> Option<String> {
        let module = self.contacts_module()?.clone();
        let pre = module.contacts.as_ref()?;
        let mut store = self.new_store(&module.name, Some(ctx), self.nested_deadline);
        let instance = pre.instantiate_async(&mut store).await.ok()?;
        instance.crm_plugin_contacts().call_get(&mut store, &id).await.ok().flatten()
    }
}
