//! `crm-host plugin check FILE.wasm`: what a component was built against
//! and whether this host loads it, before a partner ships it. The component
//! is loaded exactly as a host's `--plugins-dir` loads it (validated,
//! linked against every host import, instantiated, described), in a
//! throw-away runtime with no host running; a refusal is the host's own
//! message: each interface, function or type that differs from this host's
//! contract, with both versions, then wasmtime's words.

use std::error::Error;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crm_events::Outbox;
use crm_events::webhook_url::Policy;
use crm_runtime::bindings::platform::crm::plugin::http::{HttpError, HttpResponse};
use crm_runtime::{HttpClient, LoadedModule, Runtime, loader};
use crm_store::embedded::{self, Engine};

pub async fn run(file: &Path) -> Result<(), Box<dyn Error>> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    println!("file: {}", file.display());
    match load(file, &bytes).await? {
        Ok(module) => {
            describe(&module);
            println!("loads on this host: yes");
            Ok(())
        }
        Err(why) => {
            if let Some(built) = crm_contract::component::built_against(&bytes) {
                println!("built against: crm:plugin@{}", built.version());
            }
            // One problem a line: what differs from this host's contract
            // first, then the host's own words.
            why.lines().for_each(|line| println!("problem: {line}"));
            println!("loads on this host: no");
            Err(format!("{} cannot be loaded (the problems above)", file.display()).into())
        }
    }
}

/// Loads `bytes` alone, as a plugins dir of one file (outer error: this
/// machine could not set the check up; inner: the host refuses the component).
async fn load(file: &Path, bytes: &[u8]) -> Result<Result<LoadedModule, String>, Box<dyn Error>> {
    let scratch = tempfile::tempdir()?;
    let plugins = scratch.path().join("plugins");
    std::fs::create_dir(&plugins)?;
    let name = file.file_name().map_or("component.wasm".into(), |n| n.to_string_lossy().into_owned());
    let copy = plugins.join(name);
    std::fs::write(&copy, bytes)?;
    let store = embedded::open(Engine::DEFAULT, scratch.path(), 16 << 20, Default::default())?;
    let outbox = Outbox::new(store.clone(), Policy { allow_private: false });
    let runtime =
        Runtime::new(store, 64 << 20, Duration::from_secs(5), Arc::new(NoNetwork), outbox, 1, Default::default())
            .map_err(|e| format!("cannot start a runtime: {e:#}"))?;
    let quiet = |_: &str| {};
    let loaded = loader::load_all(&runtime, &[], &scratch.path().join("cache"), Some(&plugins), &quiet).await;
    // The loader names the copy; the partner knows the file.
    let named = |why: String| why.strip_prefix(&format!("{}: ", copy.display())).map_or(why.clone(), Into::into);
    Ok(loaded.map(|mut loaded| loaded.modules.remove(0)).map_err(named))
}

/// What the component is, as `GET /admin/plugins` shows it.
fn describe(module: &LoadedModule) {
    println!("name: {} {} ({})", module.name, module.version, module.kind.as_str());
    println!("world: {}, built against {}", module.contract.world, module.contract.versions.join(", "));
    println!("imports: {}", module.contract.imports.join(", "));
    for route in &module.routes {
        let permission = route.permission.as_deref().unwrap_or("any token");
        println!("route: {} {} ({permission})", route.method, route.path);
    }
    if !module.hosts.is_empty() {
        println!("outbound hosts: {}", module.hosts.join(", "));
    }
}

/// A check calls no provider: any outbound request is refused.
struct NoNetwork;

impl HttpClient for NoNetwork {
    fn send(
        &self,
        _: &str,
        _: reqwest::Url,
        _: Vec<(String, String)>,
        _: Vec<u8>,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<HttpResponse, HttpError>> + Send + '_>> {
        Box::pin(async { Err(HttpError::NotAllowed("a plugin check makes no request".into())) })
    }
}
