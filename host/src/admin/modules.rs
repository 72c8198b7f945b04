//! Admin calls served by module components, and the list of loaded components.
//!
//! A component route whose path starts with `/admin/` (e.g. the contacts
//! module's `POST /admin/conversations`) is served here as
//! `/admin/orgs/{org}/conversations`, for that organization, with every permission.

use std::sync::Arc;

use http::StatusCode;
use serde_json::{Value, json};

use crate::api::components;
use crate::app::App;
use crate::http::router::Match;
use crate::http::{ApiError, ApiRequest, Response};
use crate::plugins::Source;
use crate::shipping::integrations;

/// `GET /admin/plugins`.
pub fn list(app: &App) -> Response {
    let plugins: Vec<Value> = app
        .runtime
        .modules()
        .map(|m| {
            json!({
                "name": m.name,
                "version": m.version,
                "kind": m.kind.as_str(),
                "hosts": m.hosts,
                "source": match &m.source { Source::Embedded => "embedded".to_string(), Source::File(p) => p.display().to_string() },
                "hash": m.hash,
                "routes": m.routes.iter().map(|r| json!({
                    "method": r.method, "path": r.path, "permission": r.permission, "module": r.module, "deadlineMs": r.deadline_ms,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    Response::json(StatusCode::OK, &json!({ "data": plugins }))
}

/// `PUT /admin/orgs/{org}/integrations/{provider}`: an organization's settings
/// for a loaded provider (the API key, URLs); answers without the key.
pub fn put_integration(app: &App, org_id: &str, provider: &str, req: &ApiRequest) -> Result<Response, ApiError> {
    app.tenancy.org(org_id)?.ok_or_else(|| ApiError::not_found("Organization"))?;
    let loaded = app.runtime.provider(provider).ok_or_else(|| {
        ApiError::new(StatusCode::NOT_FOUND, "PROVIDER_NOT_FOUND", format!("No provider named {provider:?} is loaded"))
    })?;
    let integration = integrations::put(app.store.as_ref(), org_id, provider, loaded.needs_api_key, req)?;
    Ok(Response::json(StatusCode::OK, &json!({ "success": true, "data": integration.to_admin_json() })))
}

/// `/admin/orgs/{org}/<rest>` → the component route `/admin/<rest>`.
pub async fn forward(app: &Arc<App>, req: &ApiRequest) -> Result<Response, ApiError> {
    let not_found = || ApiError::not_found(&format!("Route {} {}", req.method, req.path));
    let rest = req.path.strip_prefix("/admin/orgs/").ok_or_else(not_found)?;
    let (org_id, tail) = rest.split_once('/').ok_or_else(not_found)?;
    let module_path = format!("/admin/{tail}");
    let (route, params) = match app.admin_module_routes.find(&req.method, &module_path) {
        Match::Found(route, params) => (route, params),
        Match::MethodNotAllowed => {
            return Err(ApiError::method_not_allowed(&req.method, &req.path));
        }
        Match::NotFound => return Err(not_found()),
    };
    let org = app.tenancy.org(org_id)?.ok_or_else(|| ApiError::not_found("Organization"))?;
    let ctx = components::admin_context(org, &req.request_id);
    Ok(components::call(app, &route.module, ctx, req, module_path, params, route.deadline).await)
}
