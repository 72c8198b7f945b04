//! The loaded components: `GET /admin/plugins` lists them, `POST
//! /admin/plugins/reload` loads the embedded ones and `--plugins-dir` again
//! without a restart.
//!
//! A reload is all or nothing: every component must load, link and describe
//! itself, and the new set must give route tables without a conflict; then
//! the runtime's set and the three route tables (API, admin, token-less)
//! are replaced. A request already running keeps the component it started
//! on; new ones use the new. A refusal (422 `PLUGIN_REFUSED`, with the
//! reason naming the file) changes nothing: the previous set keeps serving.

use std::sync::Arc;

use crm_runtime::{LoadedModule, Modules, Source};
use http::StatusCode;
use serde_json::{Value, json};

use super::{Admin, module_table};
use crate::components::served;
use crate::http::{ApiError, Response};
use crate::state::ServerState;

/// `GET /admin/plugins`.
pub fn list(app: &ServerState) -> Response {
    let plugins: Vec<Value> = app.runtime.modules().values().map(|m| describe(m)).collect();
    Response::json(StatusCode::OK, &json!({ "data": plugins }))
}

fn describe(m: &LoadedModule) -> Value {
    json!({
        "name": m.name,
        "version": m.version,
        "kind": m.kind.as_str(),
        "hosts": m.hosts,
        "source": match &m.source { Source::Embedded => "embedded".to_string(), Source::File(p) => p.display().to_string() },
        "hash": m.hash,
        "world": m.contract.world,
        "contract": m.contract.versions,
        "imports": m.contract.imports,
        "exports": m.contract.exports,
        "routes": m.routes.iter().map(|r| json!({
            "method": r.method, "path": r.path, "permission": r.permission, "module": r.module,
            "deadlineMs": r.deadline_ms, "maxBodyBytes": r.max_body_bytes,
        })).collect::<Vec<_>>(),
    })
}

/// `POST /admin/plugins/reload`: 200 `{added, replaced, removed, unchanged}`
/// (component names), or 422 `PLUGIN_REFUSED` and nothing changed.
pub async fn reload(app: &ServerState, admin: &Admin) -> Result<Response, ApiError> {
    let _one_at_a_time = admin.reloading.lock().await;
    let refused = |reason: String| {
        tracing::warn!(reason, "plugin reload refused; the previous components keep serving");
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "PLUGIN_REFUSED", format!("Reload refused: {reason}"))
    };
    let loaded = served::load(&app.runtime, &app.config).await.map_err(refused)?;
    let api_table = admin.api.table_for(&loaded).map_err(refused)?;
    let tokenless_table = admin.tokenless.table_for(&loaded).map_err(refused)?;
    let admin_table = module_table(&loaded, admin.default_deadline).map_err(refused)?;

    let before = app.runtime.modules();
    let after = app.runtime.set_modules(&loaded);
    admin.api.replace_table(api_table);
    admin.tokenless.replace_table(tokenless_table);
    *admin.module_routes.write().expect("routes lock") = Arc::new(admin_table);
    let changes = changes(&before, &after);
    tracing::info!(changes = %changes, "plugins reloaded");
    Ok(Response::json(StatusCode::OK, &json!({ "success": true, "data": changes })))
}

/// What a reload changed, by component name.
fn changes(before: &Modules, after: &Modules) -> Value {
    let names = |pick: &dyn Fn(&str) -> bool, from: &Modules| -> Vec<String> {
        from.keys().filter(|n| pick(n)).cloned().collect()
    };
    let same = |n: &str| before.get(n).zip(after.get(n)).is_some_and(|(a, b)| a.hash == b.hash);
    json!({
        "added": names(&|n| !before.contains_key(n), after),
        "replaced": names(&|n| before.contains_key(n) && !same(n), after),
        "removed": names(&|n| !after.contains_key(n), before),
        "unchanged": names(&same, after),
    })
}
