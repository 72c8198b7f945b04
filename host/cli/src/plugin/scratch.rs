//! A throw-away host runtime with one component loaded, as a host's
//! `--plugins-dir` loads it: what `plugin check` and `plugin test` run on.
//! Its store is an embedded one in a temporary folder, dropped with it; its
//! compiled component too, unless a cache dir is named (a host's
//! `--cache-dir`): compiling a 12 MB JavaScript or 18 MB Python component
//! takes seconds, and `check`, `test` and a host's start can share one.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crm_events::Outbox;
use crm_events::webhook_url::Policy;
use crm_runtime::{CallContext, HttpClient, Kind, LoadedModule, Runtime, integrations, loader};
use crm_store::Store;
use crm_store::embedded::{self, Engine};
use crm_tenancy::{Tenancy, plans};
use tempfile::TempDir;

use super::carrier_sim;

/// How long a provider call may take here, as on a host by default.
pub const PROVIDER_TIMEOUT: Duration = Duration::from_secs(5);

pub struct Scratch {
    pub runtime: Arc<Runtime>,
    pub store: Arc<dyn Store>,
    dir: TempDir,
    cache: PathBuf,
}

impl Scratch {
    /// A runtime whose components' outbound HTTP goes to `http`, compiling
    /// into `cache` (none: a throw-away one).
    pub fn new(http: Arc<dyn HttpClient>, cache: Option<&Path>) -> Result<Scratch, Box<dyn Error>> {
        let dir = tempfile::tempdir()?;
        let cache = cache.map_or_else(|| dir.path().join("cache"), Path::to_path_buf);
        let store = embedded::open(Engine::DEFAULT, dir.path(), 16 << 20, Default::default())?;
        let outbox = Outbox::new(store.clone(), Policy { allow_private: false });
        let runtime = Runtime::new(store.clone(), 64 << 20, PROVIDER_TIMEOUT, http, outbox, 1, Default::default())
            .map_err(|e| format!("cannot start a runtime: {e:#}"))?;
        Ok(Scratch { runtime, store, dir, cache })
    }

    /// Loads `bytes` alone, as a plugins dir of one file, and makes it the
    /// runtime's one component (outer error: this machine could not set
    /// the load up; inner: the host refuses the component, in its words).
    pub async fn load(&self, file: &Path, bytes: &[u8]) -> Result<Result<Arc<LoadedModule>, String>, Box<dyn Error>> {
        let plugins = self.dir.path().join("plugins");
        std::fs::create_dir_all(&plugins)?;
        let name = file.file_name().map_or("component.wasm".into(), |n| n.to_string_lossy().into_owned());
        let copy = plugins.join(name);
        std::fs::write(&copy, bytes)?;
        let quiet = |_: &str| {};
        let loaded = loader::load_all(&self.runtime, &[], &self.cache, Some(&plugins), &quiet).await;
        // The loader names the copy; the partner knows the file.
        let named = |why: String| why.strip_prefix(&format!("{}: ", copy.display())).map_or(why.clone(), Into::into);
        Ok(match loaded {
            Ok(mut loaded) => {
                let module = Arc::new(loaded.modules.remove(0));
                self.runtime.set_modules(std::slice::from_ref(&module));
                Ok(module)
            }
            Err(why) => Err(named(why)),
        })
    }

    /// An organization to call `module` for, with every permission; for a
    /// provider, its integration points at the carrier simulator's URLs.
    pub fn organization(&self, module: &LoadedModule) -> Result<CallContext, Box<dyn Error>> {
        let tenancy = Tenancy::new(self.store.clone());
        let org =
            tenancy.create_org("Plugin".into(), plans::DEFAULT_PLAN.into(), Default::default(), Default::default())?;
        if module.kind == Kind::Provider {
            let (base, queries) = (carrier_sim::BASE_URL.into(), carrier_sim::QUERIES_URL.into());
            integrations::save(self.store.as_ref(), &org.id, &module.name, "test-key".into(), base, queries)?;
        }
        Ok(CallContext {
            org,
            token_id: "plugin".into(),
            user_id: None,
            permissions: vec!["*".into()],
            request_id: "plugin".into(),
            store: None,
            unreachable: Default::default(),
        })
    }
}
