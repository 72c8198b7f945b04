//! Admin calls served by module components, and providers' integrations.
//!
//! A component route whose path starts with `/admin/` (e.g. the contacts
//! module's `POST /admin/conversations`) is served here as
//! `/admin/orgs/{org}/conversations`, for that organization, with every permission.

use std::sync::Arc;

use crm_runtime::CallContext;
use crm_runtime::integrations::{self, Integration};
use http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::ModuleRoute;
use super::orgs::existing;
use crate::components;
use crate::http::router::{Match, Router};
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;

/// `PUT /admin/orgs/{org}/integrations/{provider}`: an organization's settings
/// for a loaded provider (the API key, URLs); answers without the key.
pub fn put_integration(
    app: &ServerState,
    org_id: &str,
    provider: &str,
    req: &ApiRequest,
) -> Result<Response, ApiError> {
    existing(app, org_id)?;
    let loaded = app.runtime.provider(provider).ok_or_else(|| {
        ApiError::new(StatusCode::NOT_FOUND, "PROVIDER_NOT_FOUND", format!("No provider named {provider:?} is loaded"))
    })?;
    let body: IntegrationBody = req.json()?;
    let api_key = body.api_key.unwrap_or_default().trim().to_string();
    if loaded.needs_api_key && api_key.is_empty() {
        return Err(ApiError::validation("apiKey is required", json!({ "field": "apiKey" })));
    }
    if api_key.len() > 4096 || api_key.chars().any(char::is_control) {
        return Err(ApiError::validation("apiKey is not a valid key", json!({ "field": "apiKey" })));
    }
    let base_url = http_url("baseUrl", body.base_url)?;
    let queries_url = http_url("queriesUrl", body.queries_url)?;
    let integration = integrations::save(app.store.as_ref(), org_id, provider, api_key, base_url, queries_url)?;
    Ok(Response::json(StatusCode::OK, &json!({ "success": true, "data": admin_view(&integration) })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct IntegrationBody {
    api_key: Option<String>,
    base_url: Option<String>,
    queries_url: Option<String>,
}

/// An optional http(s) URL, trimmed and without a trailing `/`; empty when absent.
fn http_url(field: &str, value: Option<String>) -> Result<String, ApiError> {
    let value = value.unwrap_or_default().trim().trim_end_matches('/').to_string();
    let valid = value.is_empty()
        || reqwest::Url::parse(&value).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.has_host());
    if valid {
        Ok(value)
    } else {
        Err(ApiError::validation(format!("{field} must be an http(s) URL"), json!({ "field": field })))
    }
}

/// The admin view of an integration: the key is never shown again, only its
/// last four characters, and not even those when they would be most of the key.
fn admin_view(integration: &Integration) -> Value {
    let chars: Vec<char> = integration.api_key.chars().collect();
    let tail: String = if chars.len() >= 12 { chars.iter().skip(chars.len() - 4).collect() } else { String::new() };
    json!({
        "provider": integration.provider,
        "apiKeySet": !integration.api_key.is_empty(),
        "apiKeyLast4": tail,
        "baseUrl": integration.base_url,
        "queriesUrl": integration.queries_url,
        "webhookPath": integration.webhook_path(),
        "updatedAt": integration.updated_at,
    })
}

/// `/admin/orgs/{org}/<rest>` → the component route `/admin/<rest>`.
pub async fn forward(
    app: &Arc<ServerState>,
    routes: &Router<ModuleRoute>,
    req: &ApiRequest,
) -> Result<Response, ApiError> {
    let not_found = || ApiError::not_found(&format!("Route {} {}", req.method, req.path));
    let rest = req.path.strip_prefix("/admin/orgs/").ok_or_else(not_found)?;
    let (org_id, tail) = rest.split_once('/').ok_or_else(not_found)?;
    let module_path = format!("/admin/{tail}");
    let (route, params, pattern) = match routes.find(&req.method, &module_path) {
        Match::Found(route, params, pattern) => (route, params, pattern),
        Match::MethodNotAllowed(allowed) => {
            return Err(ApiError::method_not_allowed(&req.method, &req.path, &allowed));
        }
        Match::NotFound => return Err(not_found()),
    };
    let org = existing(app, org_id)?;
    let org_id = org.id.clone();
    let ctx = Some(CallContext::admin(org, &req.request_id));
    let answer = components::call(app, &route.module, ctx, req, module_path, params, route.deadline).await;
    let pattern = format!("/admin/orgs/{{org}}{}", pattern.strip_prefix("/admin").unwrap_or(&pattern));
    Ok(answer.served_by(pattern.into(), Some(&org_id)))
}
