//! The core of the runtime: the [`Runtime`] (engine, loaded components,
//! limits), which makes the [`HostState`] each instance carries (`state`,
//! beside it: each names the other) and calls components in fresh
//! instances.
//!
//! Every call gets a fresh instance, bound to one organization, under a
//! deadline and a memory cap; a trap or an exceeded limit is that call's
//! error, nothing more.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use crm_store::Store;
use tokio::sync::Semaphore;
use wasmtime::component::Linker;
use wasmtime::{Engine, UpdateDeadline};

use crate::bindings::contacts_provider::ContactsProviderPre;
use crate::bindings::platform::PlatformPre;
use crate::bindings::platform::crm::plugin::types;
use crate::bindings::provider_component::ProviderComponentPre;
use crate::bindings::shipments_module::ShipmentsModulePre;
use crate::context::CallContext;
use crate::engine::POOL_INSTANCES;
use crate::limits::CallLimits;
use crate::outbound::{HttpClient, Outbound};
mod state;

use crate::turns::{Held, Turns};
pub(crate) use state::{Call, CityKey, CityMemo, Staged, Writes};
pub use state::{HostState, ProviderScope};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Embedded,
    File(PathBuf),
}

/// What a component is, from what it exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Exports `handler`: serves routes.
    Module,
    /// Exports `provider`: a shipping provider.
    Provider,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Module => "module",
            Kind::Provider => "provider",
        }
    }
}

/// A component ready to serve: its description and its pre-linked instance.
pub struct LoadedModule {
    pub name: String,
    pub version: String,
    pub kind: Kind,
    pub routes: Vec<Route>,
    pub source: Source,
    /// SHA-256 of the component's bytes.
    pub hash: String,
    /// What the component was built against: the WIT world its exports
    /// make it (`module`, `contacts-provider`, `shipments-module`,
    /// `provider-component`), the `crm:plugin` versions its imports and
    /// exports name, and the interfaces it imports.
    pub contract: Contract,
    /// Providers: hosts their outbound HTTP may reach, and whether an
    /// organization must configure an API key.
    pub hosts: Vec<String>,
    pub needs_api_key: bool,
    /// Set for modules.
    pub(crate) pre: Option<PlatformPre<HostState>>,
    /// Set when the component exports the `contacts` interface.
    pub(crate) contacts: Option<ContactsProviderPre<HostState>>,
    /// Set when the component exports `tracking-sink` (the shipments module).
    pub(crate) tracking: Option<ShipmentsModulePre<HostState>>,
    /// Set for providers.
    pub(crate) provider: Option<ProviderComponentPre<HostState>>,
}

/// A route a module serves, as the host reads it at load: what `describe`
/// says of it, with its body limit from `route-options` (since 1.1.0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub method: String,
    pub path: String,
    pub permission: Option<String>,
    pub module: Option<String>,
    pub deadline_ms: Option<u32>,
    pub max_body_bytes: Option<u32>,
    /// Which of the host's route tables serves it.
    pub table: RouteTable,
}

/// Which route table serves a component route, from its path (see the WIT's
/// `route`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteTable {
    /// `/...`: the external API under `/api`, behind a token.
    Api,
    /// `/admin/...`: the admin API, as `/admin/orgs/{org}/...`.
    Admin,
    /// `/public/...`: the public listener without a token, as `/api/v1/...`.
    Tokenless,
}

impl RouteTable {
    pub fn of(path: &str) -> RouteTable {
        if path == "/admin" || path.starts_with("/admin/") {
            RouteTable::Admin
        } else if path.starts_with("/public/") {
            RouteTable::Tokenless
        } else {
            RouteTable::Api
        }
    }
}

/// What a component was built against, read from its own type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contract {
    pub world: &'static str,
    /// `crm:plugin@1.0.0`, one of each version named.
    pub versions: Vec<String>,
    /// Every interface it imports (`crm:plugin/store@1.0.0`, `wasi:io/...`).
    pub imports: Vec<String>,
    /// Every interface it exports (`crm:plugin/handler@1.0.0`).
    pub exports: Vec<String>,
}

/// The loaded components by name, replaced whole by a reload: a call keeps
/// the `Arc` of the component it started on until it ends.
pub type Modules = BTreeMap<String, Arc<LoadedModule>>;

/// The engine, the linker with every host import, and the loaded modules.
pub struct Runtime {
    pub(crate) engine: Engine,
    pub(crate) linker: Linker<HostState>,
    pub(crate) store: Arc<dyn Store>,
    modules: RwLock<Arc<Modules>>,
    /// Outer calls take a permit; nested calls (a module calling contacts) use the
    /// pool's other half, so they never wait on their own callers.
    pub(crate) permits: Semaphore,
    /// The CPU, shared between organizations: an outer call computes only on a turn.
    pub turns: Arc<Turns>,
    memory_cap: usize,
    /// How long a nested call may run.
    pub(crate) nested_deadline: Duration,
    /// Outbound HTTP of provider components, and how long one provider call may take.
    pub(crate) outbound: Outbound,
    pub(crate) provider_timeout: Duration,
    /// Outbound events: the `events` import stages into it, the `webhooks`
    /// import checks saved URLs against its policy.
    pub(crate) outbox: Arc<crm_events::Outbox>,
    /// The organizations whose contacts module committed a write since the
    /// host last asked, by id: those its upkeep rounds visit (`crate::upkeep`).
    pub(crate) contacts_written: std::sync::Mutex<std::collections::HashMap<String, crm_tenancy::Org>>,
}

impl Runtime {
    /// A runtime over `engine` and `linker` (made by `Runtime::new`, in
    /// `start.rs`: the linker names every import, which names this module).
    pub(crate) fn assemble(
        (engine, linker): (Engine, Linker<HostState>),
        store: Arc<dyn Store>,
        memory_cap: usize,
        (provider_timeout, http): (Duration, Arc<dyn HttpClient>),
        outbox: Arc<crm_events::Outbox>,
        turns: Arc<Turns>,
    ) -> Arc<Runtime> {
        Arc::new(Runtime {
            engine,
            linker,
            store,
            modules: RwLock::default(),
            permits: Semaphore::new(POOL_INSTANCES as usize / 2),
            turns,
            memory_cap,
            nested_deadline: Duration::from_secs(5),
            outbound: Outbound::new(http),
            provider_timeout,
            outbox,
            contacts_written: Default::default(),
        })
    }

    /// Installs the loaded modules (at start, and again at each reload);
    /// returns the set now in force.
    pub fn set_modules(&self, modules: &[Arc<LoadedModule>]) -> Arc<Modules> {
        let map: Arc<Modules> = Arc::new(modules.iter().map(|m| (m.name.clone(), m.clone())).collect());
        *self.modules.write().expect("modules lock") = map.clone();
        map
    }

    /// The modules in force now.
    pub fn modules(&self) -> Arc<Modules> {
        self.modules.read().expect("modules lock").clone()
    }

    /// The first module in force that `wanted` picks.
    pub(crate) fn find_module(&self, wanted: impl Fn(&LoadedModule) -> bool) -> Option<Arc<LoadedModule>> {
        self.modules().values().find(|m| wanted(m)).cloned()
    }

    /// A wasmtime store for one call of `module`.
    pub(crate) fn new_store(
        self: &Arc<Self>,
        module: &str,
        ctx: Option<Arc<CallContext>>,
        deadline: Duration,
    ) -> wasmtime::Store<HostState> {
        self.new_store_for(module, ctx, None, deadline)
    }

    /// [`Self::new_store`] for a provider component, which gets settings and
    /// outbound HTTP instead of a store.
    pub(crate) fn new_store_for(
        self: &Arc<Self>,
        module: &str,
        ctx: Option<Arc<CallContext>>,
        provider: Option<ProviderScope>,
        deadline: Duration,
    ) -> wasmtime::Store<HostState> {
        let limits = CallLimits::new(self.memory_cap);
        let state = HostState::new(self.clone(), ctx, module, provider, limits);
        let mut store = wasmtime::Store::new(&self.engine, state);
        store.limiter(|state| &mut state.compute.limits);
        let until = Instant::now() + deadline;
        store.set_epoch_deadline(1);
        store.epoch_deadline_callback(move |store| {
            if Instant::now() >= until {
                return Err(wasmtime::Error::msg("deadline exceeded"));
            }
            // Every tick lets the thread's other tasks run; a call holding a
            // turn another request waits for passes it on first.
            Ok(match store.data().compute.turn.pass_if_wanted() {
                Some(pass) => UpdateDeadline::YieldCustom(1, pass),
                None => UpdateDeadline::Yield(1),
            })
        });
        store
    }

    /// Calls `module`'s handler for one request. `Ok` carries the response and
    /// whether the instance wrote (the caller then waits for durability); `Err`
    /// is a trap, an exceeded deadline or memory cap: that request's 500.
    ///
    /// Without a context (a public route whose id no organization published)
    /// the instance has no store and its caller an empty `org-id`: it can only
    /// answer its own not-found.
    pub async fn handle(
        self: &Arc<Self>,
        module: &LoadedModule,
        ctx: Option<CallContext>,
        request: types::Request,
        deadline: Duration,
    ) -> wasmtime::Result<(types::Response, bool)> {
        let _permit = self.permits.acquire().await?;
        let org = ctx.as_ref().map_or("", |c| c.org.id.as_str());
        let turn = Held::new(self.turns.take(org).await, org);
        let caller = ctx.as_ref().map_or_else(CallContext::nobody, CallContext::caller);
        let mut store = self.new_store(&module.name, ctx.map(Arc::new), deadline);
        store.data_mut().compute.turn = turn;
        let pre = module.pre.as_ref().ok_or_else(|| wasmtime::Error::msg("not a module"))?;
        let started = Instant::now();
        let call = async {
            let instance = pre.instantiate_async(&mut store).await?;
            let response = instance.crm_plugin_handler().call_handle(&mut store, &caller, &request).await?;
            Ok::<_, wasmtime::Error>(response)
        };
        // The epoch deadline stops guest code; this one also bounds host waits.
        let outcome = match tokio::time::timeout(deadline + Duration::from_millis(250), call).await {
            Ok(result) => result,
            Err(_) => Err(wasmtime::Error::msg("deadline exceeded while waiting on the host")),
        };
        let (limits, wrote) = (&store.data().compute.limits, store.data().writes.wrote);
        if !store.data().staged.is_empty() {
            tracing::warn!(module = module.name, "a call staged events but never committed them: dropped");
        }
        let result = match &outcome {
            Ok(_) => "ok",
            Err(_) if limits.hit_memory_cap => "memory_cap",
            Err(e) if format!("{e:#}").contains("deadline exceeded") => "deadline",
            Err(_) => "trap",
        };
        metrics::counter!("crm_component_calls_total", "component" => module.name.clone(), "outcome" => result)
            .increment(1);
        metrics::histogram!("crm_component_call_seconds", "component" => module.name.clone())
            .record(started.elapsed().as_secs_f64());
        tracing::debug!(
            module = module.name,
            micros = started.elapsed().as_micros() as u64,
            peak_memory = limits.peak_memory,
            hit_memory_cap = limits.hit_memory_cap,
            "component call"
        );
        outcome.map(|response| (response, wrote))
    }
}
