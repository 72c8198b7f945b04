//! Handing a request to a module component and its answer back: the routes
//! components declare, and the call itself. Used by both listeners.
//!
//! The host has already authenticated and checked the request; the component
//! gets the caller, the path below `/api` (or below `/admin/orgs/{org}` for
//! admin routes) and the request without its credentials.
//!
//! The components themselves: [`embedded`], the first-party ones `build.rs`
//! builds from `plugins/`, and [`served`], them and the plugins dir's, loaded.

pub mod embedded;
pub mod served;

use std::sync::Arc;
use std::time::Duration;

use http::{HeaderName, HeaderValue, Method, StatusCode};

pub use crm_runtime::RouteTable;
use crm_runtime::bindings::platform::crm::plugin::types;
use crm_runtime::{CallContext, LoadedModule, Route};

use crate::http::router::Params;
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;

/// Headers a component never sees: the caller's credentials.
const WITHHELD: &[&str] = &["authorization", "x-api-key", "cookie", "proxy-authorization"];

/// Hands `add` every module route of one table with its method and call
/// deadline; an error names the module.
pub fn for_each_route(
    modules: &[Arc<LoadedModule>],
    table: RouteTable,
    default_deadline: Duration,
    mut add: impl FnMut(Method, &Route, &Arc<LoadedModule>, Duration) -> Result<(), String>,
) -> Result<(), String> {
    for module in modules {
        for route in module.routes.iter().filter(|r| r.table == table) {
            let method = route.method.parse::<Method>().map_err(|e| format!("module {}: {e}", module.name))?;
            let deadline = route.deadline_ms.map_or(default_deadline, |ms| Duration::from_millis(ms.into()));
            add(method, route, module, deadline).map_err(|e| format!("module {}: {e}", module.name))?;
        }
    }
    Ok(())
}

/// Calls `module` and makes its writes durable before answering.
pub async fn call(
    app: &Arc<ServerState>,
    module: &LoadedModule,
    ctx: Option<CallContext>,
    req: &ApiRequest,
    path: String,
    params: Params,
    deadline: Duration,
) -> Response {
    let request = types::Request {
        method: req.method.as_str().to_string(),
        path,
        path_params: params,
        query: req.query.clone(),
        headers: req
            .headers
            .iter()
            .filter(|(name, _)| !WITHHELD.contains(&name.as_str()))
            .filter_map(|(name, value)| Some((name.as_str().to_string(), value.to_str().ok()?.to_string())))
            .collect(),
        body: req.body.to_vec(),
    };
    let request_id = req.request_id.clone();
    let unreachable = ctx.as_ref().map(|ctx| ctx.unreachable.clone());
    match app.runtime.handle(module, ctx, request, deadline).await {
        Ok((response, wrote)) => {
            if wrote && let Err(e) = app.store.durable().await {
                return ApiError::from(e).into_response();
            }
            // A component answers a store failure 500; one that could not
            // reach the store (no primary answering) is the client's 503.
            if response.status >= 500 && unreachable.is_some_and(|u| u.was_noted()) {
                return ApiError::store_unavailable("no database primary answers").into_response();
            }
            into_response(response)
        }
        Err(e) => {
            tracing::error!(module = module.name, request_id, error = %format!("{e:#}"), "component call failed");
            ApiError::internal().into_response()
        }
    }
}

fn into_response(r: types::Response) -> Response {
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = r
        .headers
        .into_iter()
        .filter_map(|(k, v)| Some((HeaderName::from_bytes(k.as_bytes()).ok()?, HeaderValue::from_str(&v).ok()?)))
        .filter(|(k, _)| k != "x-request-id" && k != "content-length")
        .collect();
    Response { status, headers, body: r.body.into(), gzipped: None, served: Default::default(), held: None }
}
