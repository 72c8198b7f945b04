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
use crm_runtime::bindings::platform::crm::plugin::shipping_types::ProviderError;
use crm_runtime::{HttpClient, Kind, LoadedModule};

use super::scratch::Scratch;

pub async fn run(file: &Path, cache: Option<&Path>) -> Result<(), Box<dyn Error>> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    println!("file: {}", file.display());
    let scratch = Scratch::new(Arc::new(NoNetwork), cache)?;
    match scratch.load(file, &bytes).await? {
        Ok(module) => {
            describe(&module);
            if module.kind == Kind::Provider {
                println!("carriers: {}", carriers(&scratch, &module).await?);
            }
            println!("loads on this host: yes");
            Ok(())
        }
        Err(why) => {
            if let Some(built) = crm_contract::component::built_against(&bytes) {
                println!("built against: crm:plugin@{}", built.version());
            }
            // One problem a line: what differs from this host's contract
            // first, then the host's own words, and the fix when one is known.
            for line in why.lines() {
                match line.strip_prefix("fix: ") {
                    Some(fix) => println!("fix: {fix}"),
                    None => println!("problem: {line}"),
                }
            }
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
    println!("exports: {}", module.contract.exports.join(", "));
    for route in &module.routes {
        let permission = route.permission.as_deref().unwrap_or("any token");
        println!("route: {} {} ({permission})", route.method, route.path);
    }
    if !module.hosts.is_empty() {
        println!("outbound hosts: {}", module.hosts.join(", "));
    }
}

/// The carriers a provider names, asked as a host asks (with no network:
/// a provider that must ask its carrier says why it cannot).
async fn carriers(scratch: &Scratch, module: &LoadedModule) -> Result<String, Box<dyn Error>> {
    let ctx = Arc::new(scratch.organization(module)?);
    let (mut store, instance) = match scratch.runtime.provider_instance(ctx, &module.name).await {
        Ok(started) => started,
        Err(ProviderError::Rejected(f) | ProviderError::UnknownOutcome(f)) => {
            return Ok(format!("not said ({})", f.message));
        }
    };
    Ok(match instance.crm_plugin_provider().call_carriers(&mut store).await {
        Ok(Ok(carriers)) => carriers.join(", "),
        Ok(Err(ProviderError::Rejected(f) | ProviderError::UnknownOutcome(f))) => format!("not said ({})", f.message),
        Err(trap) => format!("not said (it trapped: {trap:#})"),
    })
}

/// A check makes no outbound request: each one is refused.
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
