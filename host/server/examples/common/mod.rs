//! What the in-process micro-benchmarks share: a runtime on a fresh store of
//! the host's default engine (`STORE=sled` for the other) with the host's
//! components, and a caller in a new organization.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crm_runtime::{CallContext, LoadedModule, Runtime, loader};
use crm_server::components::embedded;
use crm_server::shipping::outbound::ReqwestClient;
use crm_store::embedded::{self as engines, Engine};
use crm_tenancy::Tenancy;

/// A runtime as the host builds it, on a store in `dir`, its
/// components compiled into `cache`.
pub struct Bench {
    pub runtime: Arc<Runtime>,
    modules: Vec<Arc<LoadedModule>>,
    /// Every permission, in an organization of the plan asked for.
    pub caller: CallContext,
}

impl Bench {
    /// The embedded components, and those of `plugins` (added, or replacing
    /// one by name, as `--plugins-dir` does).
    pub async fn start(
        dir: &Path,
        cache: &Path,
        plugins: Option<&Path>,
        plan: &str,
    ) -> Result<Bench, Box<dyn std::error::Error>> {
        let engine = match std::env::var("STORE").as_deref() {
            Ok("sled") => Engine::Sled,
            _ => Engine::DEFAULT,
        };
        std::fs::create_dir_all(dir)?;
        let store = engines::open(engine, dir, engine.default_cache_mb() << 20, Default::default())?;
        let timeout = Duration::from_secs(25);
        let outbox = crm_events::Outbox::new(store.clone(), crm_events::webhook_url::Policy { allow_private: false });
        let runtime = Runtime::new(
            store.clone(),
            64 << 20,
            timeout,
            Arc::new(ReqwestClient::new(timeout, false)),
            outbox,
            4,
            Default::default(),
        )?;
        let modules: Vec<Arc<LoadedModule>> = loader::load_all(&runtime, embedded::COMPONENTS, cache, plugins, &|_| {})
            .await?
            .modules
            .into_iter()
            .map(Arc::new)
            .collect();
        runtime.set_modules(&modules);
        let org =
            Tenancy::new(store).create_org("bench".into(), plan.into(), Default::default(), Default::default())?;
        let caller = CallContext {
            org,
            token_id: "bench".into(),
            user_id: None,
            permissions: vec!["*".into()],
            request_id: "bench".into(),
            store: None,
            unreachable: Default::default(),
        };
        Ok(Bench { runtime, modules, caller })
    }

    /// The loaded module named `name`.
    pub fn module(&self, name: &str) -> Arc<LoadedModule> {
        self.modules.iter().find(|m| m.name == name).cloned().unwrap_or_else(|| panic!("no module {name:?} is loaded"))
    }
}
