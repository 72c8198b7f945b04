//! Loading components: the first-party ones the binary embeds, and any in
//! `--plugins-dir` (which add modules, or replace a first-party one by name).
//!
//! Compiling a component takes from tens of milliseconds to seconds (the
//! 18 MB Python partner); each is compiled once and the artifact cached in
//! `<data-dir>/cache/`, keyed by the component's SHA-256 and the engine's
//! compatibility hash, so a restart only maps files. A load
//! that compiles does so with an engine of its own ([`engine::new_compiler`]),
//! dropped when the load ends, and maps what it compiled from the cache as a
//! restart would, so a first start holds no more memory than a restart.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crm_tenancy::{ids, permissions};
use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use crate::bindings::contacts_provider::ContactsProviderPre;
use crate::bindings::module_with_options::ModuleWithOptionsPre;
use crate::bindings::module_with_options::exports::crm::plugin::route_options::BodyLimit;
use crate::bindings::platform::PlatformPre;
use crate::bindings::platform::crm::plugin::types;
use crate::bindings::provider_component::ProviderComponentPre;
use crate::bindings::shipments_module::ShipmentsModulePre;
use crate::engine;
use crate::runtime::{Contract, Kind, LoadedModule, Route, RouteTable, Runtime, Source};

/// A component the binary carries: a label for messages and its bytes.
pub type Embedded = (&'static str, &'static [u8]);

/// How long `describe` may take at load time.
const DESCRIBE_DEADLINE: Duration = Duration::from_secs(2);

/// What [`load_all`] loaded.
pub struct Loaded {
    pub modules: Vec<LoadedModule>,
    /// Whether a component was compiled (it was not in the cache). The
    /// compile's memory is free by then, but an allocator with per-thread
    /// heaps still holds it on the threads that compiled.
    pub compiled: bool,
}

/// Told, before a component is compiled, which one and how big: the one slow
/// step of a load (seconds for a large component, minutes in a debug build),
/// which an operator watching a first start should not mistake for a hang.
pub type CompileNotice<'a> = &'a (dyn Fn(&str) + Sync);

/// Loads every component; an invalid one, or two with one name in the plugins
/// dir, stops the start with a message naming the file.
pub async fn load_all(
    runtime: &Arc<Runtime>,
    embedded: &[Embedded],
    cache_dir: &Path,
    plugins_dir: Option<&Path>,
    notice: CompileNotice<'_>,
) -> Result<Loaded, String> {
    std::fs::create_dir_all(cache_dir).map_err(|e| format!("cannot create {}: {e}", cache_dir.display()))?;
    let mut cache = Cache { dir: cache_dir, compiler: None, notice };
    let mut by_name: BTreeMap<String, LoadedModule> = BTreeMap::new();
    for (label, bytes) in embedded {
        let module =
            load_one(runtime, &mut cache, label, bytes, Source::Embedded).await.map_err(|e| format!("{label}: {e}"))?;
        by_name.insert(module.name.clone(), module);
    }
    let mut files: Vec<PathBuf> = match plugins_dir {
        None => Vec::new(),
        Some(dir) => std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read the plugins dir {}: {e}", dir.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "wasm"))
            .collect(),
    };
    files.sort();
    let mut from_files: BTreeMap<String, PathBuf> = BTreeMap::new();
    for path in files {
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let label = path.display().to_string();
        let module = load_one(runtime, &mut cache, &label, &bytes, Source::File(path.clone()))
            .await
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(other) = from_files.insert(module.name.clone(), path.clone()) {
            return Err(format!("{} and {} both name the module {:?}", other.display(), path.display(), module.name));
        }
        if by_name.contains_key(&module.name) {
            tracing::info!(module = module.name, file = %path.display(), "replacing the first-party module");
        }
        by_name.insert(module.name.clone(), module);
    }
    Ok(Loaded { modules: by_name.into_values().collect(), compiled: cache.compiler.is_some() })
}

async fn load_one(
    runtime: &Arc<Runtime>,
    cache: &mut Cache<'_>,
    label: &str,
    bytes: &[u8],
    source: Source,
) -> Result<LoadedModule, String> {
    let hash = hex::encode(Sha256::digest(bytes));
    let component =
        cache.component(runtime, label, bytes, &hash).map_err(|e| format!("not a valid component: {e:#}"))?;
    let (imports, exports) = interfaces(runtime, &component);
    let loading = Loading { bytes, versions: plugin_versions(&imports, &exports), imports, exports };
    let instance_pre = runtime.linker.instantiate_pre(&component).map_err(|e| {
        let why = format!("imports something the host does not offer: {e:#}");
        loading.refused(match fix_for(&loading.imports) {
            Some(fix) => format!("{why}\n{fix}"),
            None => why,
        })
    })?;
    match ProviderComponentPre::new(instance_pre.clone()) {
        Ok(provider) => load_provider(runtime, &loading, provider, (source, hash)).await,
        Err(_) => load_module(runtime, &loading, instance_pre, (source, hash)).await,
    }
}

/// What a load knows of a component before it is described.
struct Loading<'a> {
    bytes: &'a [u8],
    imports: Vec<String>,
    exports: Vec<String>,
    versions: Vec<String>,
}

impl Loading<'_> {
    /// A refusal, naming what differs from this host's contract before
    /// wasmtime's own words (which name only the first difference).
    fn refused(&self, why: String) -> String {
        let mismatches = crm_contract::component::mismatches(self.bytes);
        if mismatches.is_empty() { why } else { format!("{}\n{why}", mismatches.join("\n")) }
    }

    fn contract(&self, world: &'static str) -> Contract {
        Contract {
            world,
            versions: self.versions.clone(),
            imports: self.imports.clone(),
            exports: self.exports.clone(),
        }
    }
}

/// A shipping provider, described, with where it came from and its hash.
async fn load_provider(
    runtime: &Arc<Runtime>,
    loading: &Loading<'_>,
    provider: ProviderComponentPre<crate::runtime::HostState>,
    (source, hash): (Source, String),
) -> Result<LoadedModule, String> {
    let mut store = runtime.new_store("describe", None, DESCRIBE_DEADLINE);
    let instance = provider
        .instantiate_async(&mut store)
        .await
        .map_err(|e| loading.refused(format!("cannot be instantiated: {e:#}")))?;
    let info = instance
        .crm_plugin_provider()
        .call_describe(&mut store)
        .await
        .map_err(|e| format!("describe failed: {e:#}"))?;
    if !ids::is_slug(&info.name) {
        return Err(format!("provider name {:?} must match [a-z][a-z0-9_-]{{0,31}}", info.name));
    }
    Ok(LoadedModule {
        name: info.name,
        version: info.version,
        kind: Kind::Provider,
        routes: Vec::new(),
        source,
        hash,
        contract: loading.contract("provider-component"),
        hosts: info.hosts.into_iter().map(|h| h.to_ascii_lowercase()).collect(),
        needs_api_key: info.needs_api_key,
        pre: None,
        contacts: None,
        tracking: None,
        provider: Some(provider),
    })
}

/// A module, described with its routes and their body limits, with where
/// it came from and its hash.
async fn load_module(
    runtime: &Arc<Runtime>,
    loading: &Loading<'_>,
    instance_pre: wasmtime::component::InstancePre<crate::runtime::HostState>,
    (source, hash): (Source, String),
) -> Result<LoadedModule, String> {
    let pre = PlatformPre::new(instance_pre.clone()).map_err(|e| {
        loading.refused(format!("exports neither crm:plugin/handler@1 nor crm:plugin/provider@1: {e:#}"))
    })?;
    let contacts = ContactsProviderPre::new(instance_pre.clone()).ok();
    let options = ModuleWithOptionsPre::new(instance_pre.clone()).ok();
    let tracking = ShipmentsModulePre::new(instance_pre).ok();

    let instantiated = |e: wasmtime::Error| loading.refused(format!("cannot be instantiated: {e:#}"));
    let described = |e: wasmtime::Error| format!("describe failed: {e:#}");
    let mut store = runtime.new_store("describe", None, DESCRIBE_DEADLINE);
    let (info, limits) = match &options {
        Some(options) => {
            let instance = options.instantiate_async(&mut store).await.map_err(instantiated)?;
            let info = instance.crm_plugin_handler().call_describe(&mut store).await.map_err(described)?;
            let limits = instance.crm_plugin_route_options().call_body_limits(&mut store).await;
            (info, limits.map_err(|e| format!("body-limits failed: {e:#}"))?)
        }
        None => {
            let instance = pre.instantiate_async(&mut store).await.map_err(instantiated)?;
            (instance.crm_plugin_handler().call_describe(&mut store).await.map_err(described)?, Vec::new())
        }
    };
    let routes = routes(info.routes, limits, handler_version(&loading.exports).as_deref())?;
    validate(&info.name, &routes)?;
    let world = match (&contacts, &tracking, &options) {
        (Some(_), _, _) => "contacts-provider",
        (None, Some(_), _) => "shipments-module",
        (None, None, Some(_)) => "module-with-options",
        (None, None, None) => "module",
    };
    Ok(LoadedModule {
        name: info.name,
        version: info.version,
        kind: Kind::Module,
        routes,
        source,
        hash,
        contract: loading.contract(world),
        hosts: Vec::new(),
        needs_api_key: false,
        pre: Some(pre),
        contacts,
        tracking,
        provider: None,
    })
}

/// The compiled components in `<data-dir>/cache/`, and the engine one load
/// compiles with, made when a component is not there.
struct Cache<'a> {
    dir: &'a Path,
    compiler: Option<Engine>,
    notice: CompileNotice<'a>,
}

impl Cache<'_> {
    /// Maps the artifact of `bytes` cached by this load or an earlier one,
    /// compiling it first when it is not there (or was made by another build).
    fn component(&mut self, runtime: &Runtime, label: &str, bytes: &[u8], hash: &str) -> wasmtime::Result<Component> {
        let path = self.dir.join(format!("{hash}-{:016x}.cwasm", engine::compatibility(&runtime.engine)));
        if path.exists() {
            // SAFETY: the file was written by `precompile_component` of an engine with
            // the same compatibility hash, into the host's own data dir, under the
            // SHA-256 of its source; the data dir is trusted like the binary.
            match unsafe { Component::deserialize_file(&runtime.engine, &path) } {
                Ok(component) => return Ok(component),
                Err(e) => tracing::warn!(error = %e, path = %path.display(), "recompiling a stale cached component"),
            }
        }
        let compiler = match &mut self.compiler {
            Some(compiler) => compiler,
            empty => empty.insert(engine::new_compiler()?),
        };
        (self.notice)(&format!("compiling {label} ({:.1} MB; cached for later starts)", bytes.len() as f64 / 1e6));
        let compiled = compiler.precompile_component(bytes)?;
        if write_whole(&path, &compiled).is_ok() {
            drop(compiled);
            // SAFETY: written a moment ago by an engine of the same compatibility hash.
            return unsafe { Component::deserialize_file(&runtime.engine, &path) };
        }
        tracing::warn!(path = %path.display(), "cannot cache a compiled component");
        // SAFETY: `compiled` was produced a moment ago by an engine of the same compatibility hash.
        unsafe { Component::deserialize(&runtime.engine, &compiled) }
    }
}

/// Writes `bytes` to `path` so that a reader finds all of them or no file:
/// through a temporary file, on disk before it is renamed (a power cut must
/// not leave a truncated file that `deserialize_file` would trust).
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| std::fs::rename(&tmp, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed
}

fn validate(name: &str, routes: &[Route]) -> Result<(), String> {
    if !ids::is_slug(name) {
        return Err(format!("module name {name:?} must match [a-z][a-z0-9_-]{{0,31}}"));
    }
    for route in routes {
        let public = route.table == RouteTable::Tokenless;
        let allowed = matches!(route.method.as_str(), "GET" | "POST" | "PUT" | "PATCH" | "DELETE")
            || (public && route.method == "OPTIONS");
        if !allowed {
            return Err(format!("route {} {}: unsupported method", route.method, route.path));
        }
        if !route.path.starts_with('/') || route.path.contains("//") {
            return Err(format!("route {} {}: the path must start with one /", route.method, route.path));
        }
        if public && !route.path.split('/').any(|segment| segment == "{id}") {
            return Err(format!("route {} {}: a public route needs an {{id}} segment", route.method, route.path));
        }
        if let Some(p) = &route.permission
            && !permissions::is_valid(p)
        {
            return Err(format!("route {} {}: {p:?} is not a permission", route.method, route.path));
        }
        if let Some(m) = &route.module
            && !ids::is_slug(m)
        {
            return Err(format!("route {} {}: {m:?} is not a module name", route.method, route.path));
        }
    }
    Ok(())
}

/// The routes `describe` listed, with the body limits `route-options` set
/// (each must name one of them) and the table each is served from: a module
/// built against 1.0.0 was promised that every path is an API route under
/// `/api`; the `/admin/` and `/public/` tables came in 1.1.0.
fn routes(described: Vec<types::Route>, limits: Vec<BodyLimit>, handler: Option<&str>) -> Result<Vec<Route>, String> {
    let mut routes: Vec<Route> = described
        .into_iter()
        .map(|r| Route {
            table: if handler == Some("1.0.0") { RouteTable::Api } else { RouteTable::of(&r.path) },
            method: r.method,
            path: r.path,
            permission: r.permission,
            module: r.module,
            deadline_ms: r.deadline_ms,
            max_body_bytes: None,
        })
        .collect();
    for limit in limits {
        let route = routes.iter_mut().find(|r| r.method == limit.method && r.path == limit.path);
        let Some(route) = route else {
            return Err(format!("body-limits names {} {}, which describe does not list", limit.method, limit.path));
        };
        route.max_body_bytes = Some(limit.max_body_bytes);
    }
    Ok(routes)
}

/// The version of `crm:plugin/handler` a component exports (`1.0.0`).
fn handler_version(exports: &[String]) -> Option<String> {
    exports.iter().find_map(|name| name.strip_prefix("crm:plugin/handler@").map(Into::into))
}

/// The names of the interfaces `component` imports and exports, sorted.
fn interfaces(runtime: &Runtime, component: &Component) -> (Vec<String>, Vec<String>) {
    let ty = component.component_type();
    let mut imports: Vec<String> = ty.imports(&runtime.engine).map(|(name, _)| name.to_string()).collect();
    let mut exports: Vec<String> = ty.exports(&runtime.engine).map(|(name, _)| name.to_string()).collect();
    imports.sort();
    exports.sort();
    (imports, exports)
}

/// The fix for an import this host never offers, when a toolchain is known
/// to add it by default, as a line starting `fix: `.
fn fix_for(imports: &[String]) -> Option<String> {
    let http = imports.iter().find(|name| name.starts_with("wasi:http/"))?;
    Some(format!(
        "fix: {http} is not offered to components (a provider reaches its carrier through crm:plugin/http); \
         componentize-js adds wasi:http to a JavaScript component unless its build disables the features \
         `http` and `fetch-event`: `componentize({{ ..., disableFeatures: [\"http\", \"fetch-event\"] }})`, \
         as the build.mjs of `crm-host plugin new --lang js` does"
    ))
}

/// `crm:plugin@<version>` for each version of the package the names carry.
fn plugin_versions(imports: &[String], exports: &[String]) -> Vec<String> {
    let mut versions: Vec<String> = imports
        .iter()
        .chain(exports)
        .filter_map(|name| name.strip_prefix("crm:plugin/")?.split_once('@').map(|(_, v)| format!("crm:plugin@{v}")))
        .collect();
    versions.sort();
    versions.dedup();
    versions
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described(paths: &[&str]) -> Vec<types::Route> {
        let route = |path: &&str| types::Route {
            method: "POST".into(),
            path: path.to_string(),
            permission: None,
            module: None,
            deadline_ms: None,
        };
        paths.iter().map(route).collect()
    }

    #[test]
    fn an_import_of_wasi_http_is_told_the_fix_and_other_imports_none() {
        let imports = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let fix = fix_for(&imports(&["crm:plugin/store@1.2.0", "wasi:http/types@0.2.3"])).unwrap();
        assert!(fix.starts_with("fix: wasi:http/types@0.2.3 is not offered"), "{fix}");
        assert!(fix.contains(r#"disableFeatures: ["http", "fetch-event"]"#), "{fix}");
        assert_eq!(fix_for(&imports(&["crm:plugin/store@1.2.0", "wasi:io/streams@0.2.3"])), None);
    }

    #[test]
    fn a_module_built_against_1_0_0_has_every_route_under_the_api() {
        let paths = ["/admin/forms", "/public/forms/{id}", "/forms"];
        let tables = |version| -> Vec<RouteTable> {
            routes(described(&paths), Vec::new(), Some(version)).unwrap().iter().map(|r| r.table).collect()
        };
        assert_eq!(tables("1.0.0"), [RouteTable::Api; 3]);
        assert_eq!(tables("1.1.0"), [RouteTable::Admin, RouteTable::Tokenless, RouteTable::Api]);
    }

    #[test]
    fn a_body_limit_applies_to_the_route_it_names_and_must_name_one() {
        let limit = |path: &str| BodyLimit { method: "POST".into(), path: path.into(), max_body_bytes: 64 };
        let routes_with = |limits| routes(described(&["/a", "/b"]), limits, Some("1.1.0"));
        let limited = routes_with(vec![limit("/b")]).unwrap();
        assert_eq!(limited.iter().map(|r| r.max_body_bytes).collect::<Vec<_>>(), [None, Some(64)]);
        assert_eq!(
            routes_with(vec![limit("/c")]).unwrap_err(),
            "body-limits names POST /c, which describe does not list"
        );
    }
}
