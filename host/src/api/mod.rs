//! The external API under `/api`: the route table and the checks every request
//! passes before its handler runs.
//!
//! Order of checks (each refusal is the spec's exact body):
//! 1. token (401, see [`crate::auth`]), then the organization id it names (403);
//! 2. the route (404 `NOT_FOUND`, 405 `METHOD_NOT_ALLOWED`);
//! 3. the plan's `api` module, when enforced (403 `PLAN_MODULE_REQUIRED`); `/me` is
//!    exempt so a blocked integrator can still see its plan;
//! 4. the route's permission (403 `INSUFFICIENT_API_PERMISSIONS`);
//! 5. the route's plan module, e.g. `shipping` (403 `PLAN_MODULE_REQUIRED`).

mod catalogs;
mod me;

use std::sync::Arc;

use http::{Method, StatusCode};

use crate::app::App;
use crate::auth::{self, Caller};
use crate::http::router::{Match, Params, Router};
use crate::http::{ApiError, ApiRequest, Response};
use crate::tenancy::permissions;

/// A handler served by the host itself.
pub type NativeHandler = fn(&App, &Caller, &ApiRequest, &Params) -> Result<Response, ApiError>;

/// What a route requires and who serves it.
pub struct Route {
    /// `None`: any valid token.
    pub permission: Option<String>,
    /// A plan module the route needs besides `api`.
    pub module: Option<String>,
    /// Skip the `api` module check (only `/me`).
    pub api_module_exempt: bool,
    pub handler: NativeHandler,
}

pub type ApiRoutes = Router<Route>;

/// The host's own routes.
pub fn routes() -> ApiRoutes {
    let mut r = Router::default();
    let any_token = |handler, api_module_exempt| Route { permission: None, module: None, api_module_exempt, handler };
    r.add(Method::GET, "/me", any_token(me::get as NativeHandler, true));
    r.add(Method::GET, "/catalogs/municipalities", any_token(catalogs::municipalities, false));
    r.add(Method::GET, "/catalogs/states", any_token(catalogs::states, false));
    r
}

/// Serves a request whose path starts with `/api`.
pub async fn dispatch(app: &Arc<App>, req: ApiRequest) -> Response {
    match checked(app, &req) {
        Ok((route, caller, params)) => (route.handler)(app, &caller, &req, &params),
        Err(e) => Err(e),
    }
    .unwrap_or_else(ApiError::into_response)
}

fn checked<'a>(app: &'a App, req: &ApiRequest) -> Result<(&'a Route, Caller, Params), ApiError> {
    let caller = auth::authenticate(&app.tenancy, req)?;
    let path = req.path.strip_prefix("/api").unwrap_or(&req.path);
    let (route, params) = match app.api.find(&req.method, path) {
        Match::Found(route, params) => (route, params),
        Match::MethodNotAllowed => {
            return Err(ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "METHOD_NOT_ALLOWED",
                format!("{} is not allowed on {}", req.method, req.path),
            ));
        }
        Match::NotFound => return Err(ApiError::not_found(&format!("Route {} {}", req.method, req.path))),
    };
    if app.config.enforce_api_module && !route.api_module_exempt && !caller.org.module_enabled("api") {
        return Err(ApiError::plan_module_required("api"));
    }
    if let Some(required) = &route.permission
        && !permissions::grants(&caller.token.permissions, required)
    {
        return Err(ApiError::insufficient_permissions(required, &caller.token.permissions));
    }
    if let Some(module) = &route.module
        && !caller.org.module_enabled(module)
    {
        return Err(ApiError::plan_module_required(module));
    }
    Ok((route, caller, params))
}
