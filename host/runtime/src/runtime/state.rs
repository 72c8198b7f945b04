//! The state of one instance, one part per capability, as wasmtime-wasi
//! keeps one state and one view per capability: each import is
//! implemented over a view of the parts it may touch (`imports/`), so its
//! type says what it can reach. An import that may not write cannot set
//! the write flag; one that stages no events cannot see the staged ones.
//!
//! - [`Call`]: who the call is for and where it runs; every import reads it.
//! - [`Writes`]: the store's scope (the organization's namespace and the
//!   module's prefix), the store, whether the instance wrote, and what a
//!   holding instance holds for its caller's commit.
//! - [`Staged`]: the events and subscriptions staged for the next commit
//!   (what they do is the `events` import's).
//! - [`CityMemo`]: the cities this instance resolved (the `catalog` import's).
//! - [`ProviderScope`]: a provider instance's integration and the hosts it may reach.
//! - [`Compute`]: the memory cap and the compute turn.
//! - [`Progress`]: what a contacts instance told of its `upsert-many`.

use std::sync::Arc;

use crm_store::{Namespace, Store};
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::Runtime;
use crate::context::CallContext;
use crate::deferred::Deferred;
use crate::integrations::Integration;
use crate::limits::CallLimits;
use crate::outbound::Allowlist;
use crate::progress::Progress;
use crate::turns::Held;

/// The state of one instance, bound to one organization and one module: every
/// store key a component names is prefixed with `m/<module>/` inside that
/// organization's namespace, so neither another organization's data nor
/// another module's is reachable.
pub struct HostState {
    pub(crate) call: Call,
    pub(crate) writes: Writes,
    pub(crate) staged: Staged,
    pub(crate) cities: CityMemo,
    /// Set for provider instances (which get no store).
    pub(crate) provider: Option<ProviderScope>,
    pub(crate) compute: Compute,
    pub(crate) progress: Progress,
    wasi: WasiCtx,
    table: ResourceTable,
}

/// Who a call is for, and where it runs.
pub(crate) struct Call {
    pub(crate) runtime: Arc<Runtime>,
    /// `None` while a component is only being described at load time.
    pub(crate) ctx: Option<Arc<CallContext>>,
    pub(crate) module: String,
}

impl Call {
    /// The organization's id, when the call has one.
    pub(crate) fn org_id(&self) -> Option<&str> {
        self.ctx.as_ref().map(|c| c.org.id.as_str())
    }
}

/// The store capability.
pub(crate) struct Writes {
    pub(crate) store: Arc<dyn Store>,
    /// The organization's namespace and this module's key prefix (`m/<module>/`),
    /// fixed for the instance's life; `None` while describing, and for providers.
    pub(crate) scope: Option<(Namespace, Vec<u8>)>,
    /// Whether the instance wrote: the host then waits for durability.
    pub(crate) wrote: bool,
    /// Set on a joined nested call's instance: its writes are held in
    /// `deferred` for its caller's commit, not made (see [`crate::deferred`]).
    pub(crate) holding: bool,
    /// Writes the next commit makes first: a joined nested call's (or, when
    /// `holding`, this instance's own).
    pub(crate) deferred: Deferred,
}

/// Events and subscriptions staged for the next commit.
#[derive(Default)]
pub(crate) struct Staged(pub(crate) Vec<crm_events::Staged>);

/// A city input (code, city, state, country): a key of [`CityMemo`].
pub(crate) type CityKey = [Option<String>; 4];

/// The cities one instance resolved.
#[derive(Default)]
pub(crate) struct CityMemo(pub(crate) std::collections::HashMap<CityKey, CatalogResolution>);

type CatalogResolution = crate::bindings::platform::crm::plugin::catalog::Resolution;

/// What bounds an instance's use of the machine.
pub(crate) struct Compute {
    pub(crate) limits: CallLimits,
    /// The outer call's compute turn; given back while it waits outside, and
    /// at a tick while another request waits. Nested calls hold none.
    pub(crate) turn: Held,
}

/// What a provider instance may use: its organization's integration and the
/// hosts it may reach.
pub struct ProviderScope {
    pub integration: Integration,
    pub allowed: Allowlist,
}

impl HostState {
    pub(crate) fn new(
        runtime: Arc<Runtime>,
        ctx: Option<Arc<CallContext>>,
        module: &str,
        provider: Option<ProviderScope>,
        limits: CallLimits,
    ) -> Self {
        let scope = match provider {
            Some(_) => None,
            None => ctx.as_ref().map(|c| (c.org.namespace(), format!("m/{module}/").into_bytes())),
        };
        let store = ctx.as_ref().and_then(|c| c.store.clone()).unwrap_or_else(|| runtime.store.clone());
        HostState {
            call: Call { runtime, ctx, module: module.to_string() },
            writes: Writes { store, scope, wrote: false, holding: false, deferred: Deferred::default() },
            staged: Staged::default(),
            cities: CityMemo::default(),
            provider,
            compute: Compute { limits, turn: Held::default() },
            progress: Progress::default(),
            // No filesystem, sockets, environment or arguments.
            wasi: WasiCtx::builder().build(),
            table: ResourceTable::new(),
        }
    }
}

/// WASI with nothing granted: what a Python or JavaScript guest needs to run.
impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}
