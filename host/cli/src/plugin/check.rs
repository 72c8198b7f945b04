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

use crm_runtime::bindings::platform::crm::plugin::http::{HttpError, HttpResponse};
use crm_runtime::{HttpClient, LoadedModule};

use super::scratch::Scratch;

pub async fn run(file: &Path) -> Result<(), Box<dyn Error>> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    println!("file: {}", file.display());
    let scratch = Scratch::new(Arc::new(NoNetwork))?;
    match scratch.load(file, &bytes).await? {
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
