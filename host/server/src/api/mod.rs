//! The external API under `/api`: the route table and the checks every request
//! passes before its handler runs.
//!
//! Order of checks (each refusal is the spec's exact body); the first five
//! need only the request's head and run before its body is read
//! ([`Api::admit`]), so a caller refused by them never has a body held:
//! 1. token (401, see [`crate::api::auth`]), then the organization id it names (403);
//! 2. the route (404 `NOT_FOUND`, 405 `METHOD_NOT_ALLOWED`);
//! 3. the plan's `api` module, when enforced (403 `PLAN_MODULE_REQUIRED`); `/me` is
//!    exempt so a blocked integrator can still see its plan;
//! 4. the route's permission (403 `INSUFFICIENT_API_PERMISSIONS`);
//! 5. the route's plan module, e.g. `shipping` (403 `PLAN_MODULE_REQUIRED`);
//! 6. the organization's fair share and the token's quota (429 `RATE_LIMITED`,
//!    see [`crate::fairness`]);
//! 7. a compute turn for the handler's work, organizations served in turn
//!    (`crm_runtime::turns`; a component call takes it in `Runtime::handle`).

pub mod auth;

mod catalogs;
mod deliveries;
mod event_types;
mod me;
pub mod openapi;
mod webhook_test;

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crm_runtime::LoadedModule;
use crm_tenancy::{Tenancy, permissions};
use http::Method;

use crate::components;
use crate::edge::{Reading, Side};
use crate::fairness::Gate;
use crate::http::extract::{Admission, BodyLimits};
use crate::http::router::{Match, Params, Router};
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;
use auth::Caller;

/// A handler served by the host itself.
pub type NativeHandler = fn(&ServerState, &Caller, &ApiRequest, &Params) -> Result<Response, ApiError>;

/// A native handler that waits on the network (a test send to a receiver).
pub type WaitingHandler =
    fn(Arc<ServerState>, Caller, ApiRequest) -> Pin<Box<dyn Future<Output = Result<Response, ApiError>> + Send>>;

/// Who serves a route.
pub enum Handler {
    /// A native handler that only reads what requests wrote (durable
    /// before they were answered).
    Native(NativeHandler),
    /// A native handler whose answer leaves once everything it wrote or
    /// read is on disk: a write's, and a read of what a background task
    /// wrote without waiting for the disk (the delivery worker's attempts),
    /// so that it never shows a status a crash could take back.
    NativeDurable(NativeHandler),
    /// A native handler whose CPU work grows faster than its input (fuzzy
    /// city matching): it runs on the blocking pool, off the threads that
    /// serve I/O. (A catalog search is linear in `q` and stays inline.)
    NativeBlocking(NativeHandler),
    /// A native handler that waits on the network: it takes no compute
    /// turn, which a slow receiver would hold.
    NativeWaiting(WaitingHandler),
    /// A module component, with the deadline of one call.
    Component(Arc<LoadedModule>, Duration),
}

/// What a route requires and who serves it.
pub struct Route {
    /// `None`: any valid token.
    pub permission: Option<String>,
    /// A plan module the route needs besides `api`.
    pub module: Option<String>,
    /// The route's own body limit, when it has one.
    pub max_body: Option<usize>,
    /// The pattern under `/api`, as logs and metrics name the route.
    pub pattern: Arc<str>,
    /// Skip the `api` module check (only `/me`).
    pub api_module_exempt: bool,
    pub handler: Handler,
}

/// The route table: built at start, replaced whole by a plugin reload (a
/// request keeps the route it was admitted with).
pub type Table = Router<Arc<Route>>;

/// A request admitted on its head: its route, its caller and the path's
/// parameters, and on an edge host where it reads.
pub struct Admitted {
    route: Arc<Route>,
    caller: Caller,
    params: Params,
    reading: Option<Reading>,
}

impl Admitted {
    /// Where the request reads, on an edge host.
    pub fn reading(&self) -> Option<&Reading> {
        self.reading.as_ref()
    }

    /// The request, reading from `reading` (chosen once its caller was known).
    pub fn reading_from(self, reading: Reading) -> Admitted {
        Admitted { reading: Some(reading), ..self }
    }
}

/// The external API: its route table, and the gate that keeps organizations
/// fair to each other.
pub struct Api {
    routes: RwLock<Arc<Table>>,
    default_deadline: Duration,
    gate: Arc<Gate>,
}

impl Api {
    /// The host's own routes plus every public route of the modules. Two
    /// modules claiming one route, or a module claiming a host route, stop the start.
    pub fn new(modules: &[Arc<LoadedModule>], default_deadline: Duration, gate: Arc<Gate>) -> Result<Api, String> {
        Ok(Api { routes: RwLock::new(Arc::new(routes(modules, default_deadline)?)), default_deadline, gate })
    }

    /// The table `modules` would give, or why they cannot be served together.
    pub fn table_for(&self, modules: &[Arc<LoadedModule>]) -> Result<Table, String> {
        routes(modules, self.default_deadline)
    }

    /// Serves new requests with `table` (a reload).
    pub fn replace_table(&self, table: Table) {
        *self.routes.write().expect("routes lock") = Arc::new(table);
    }

    /// The live routes as `(method, full path pattern)`: the table's and the
    /// OpenAPI document's own.
    pub fn listed(&self) -> Vec<(Method, String)> {
        let table = self.table();
        let mut listed: Vec<(Method, String)> =
            table.entries().map(|(method, _, route)| (method.clone(), route.pattern.to_string())).collect();
        listed.push((Method::GET, openapi::PATH.to_string()));
        listed
    }

    fn table(&self) -> Arc<Table> {
        self.routes.read().expect("routes lock").clone()
    }

    /// Checks a request whose path starts with `/api` on its head: the
    /// token, the route, the plan and the permission. Its body may be as
    /// large as the route allows (an unknown route's as the listener's
    /// default), a refused one's too, to be dropped as it arrives.
    ///
    /// `reading`: on an edge host, where the request reads (its token too).
    pub fn admit(
        &self,
        app: &ServerState,
        req: &ApiRequest,
        limits: &BodyLimits,
        reading: Option<Reading>,
    ) -> Admission<Admitted> {
        let table = self.table();
        let found = table.find(&req.method, api_path(req));
        Admission { max_body: body_limit_of(&found, limits), verdict: checked(found, app, req, reading) }
    }

    /// Serves an admitted request.
    pub async fn dispatch(&self, app: &Arc<ServerState>, admitted: Admitted, req: ApiRequest) -> Response {
        let Admitted { route, caller, params, reading } = admitted;
        let org = caller.org.id.clone();
        let pass = match self.gate.enter(&caller.org.id, Some(&caller.token.id)).await {
            Ok(pass) => pass,
            Err(e) => return e.into_response(),
        };
        let served = match &route.handler {
            Handler::Native(handler) => {
                let _turn = app.runtime.turns.take(&org).await;
                handler(app, &caller, &req, &params)
            }
            Handler::NativeDurable(handler) => {
                let computed = {
                    let _turn = app.runtime.turns.take(&org).await;
                    handler(app, &caller, &req, &params)
                };
                match computed {
                    Ok(done) => app.store.durable().await.map(|_| done).map_err(Into::into),
                    refused => refused,
                }
            }
            Handler::NativeBlocking(handler) => {
                let (handler, app) = (*handler, app.clone());
                let turn = app.runtime.turns.take(&org).await;
                tokio::task::spawn_blocking(move || {
                    let _turn = turn;
                    handler(&app, &caller, &req, &params)
                })
                .await
                .unwrap_or_else(|_| Err(ApiError::internal()))
            }
            Handler::NativeWaiting(handler) => handler(app.clone(), caller, req).await,
            Handler::Component(module, deadline) => {
                let path = api_path(&req).to_string();
                let ctx = Some(caller.call_context(&req.request_id, reading.map(|r| r.store)));
                Ok(components::call(app, module, ctx, &req, path, params, *deadline).await)
            }
        };
        let served = pass.stamp(served.unwrap_or_else(ApiError::into_response));
        served.served_by(route.pattern.clone(), Some(&org))
    }
}

/// The path below `/api`, as the route table holds it.
fn api_path(req: &ApiRequest) -> &str {
    req.path.strip_prefix("/api").unwrap_or(&req.path)
}

/// The body limit of the route `found` (an unknown route's: the listener's default).
fn body_limit_of(found: &Match<'_, Arc<Route>>, limits: &BodyLimits) -> usize {
    limits.of(match found {
        Match::Found(route, _, _) => route.max_body,
        _ => None,
    })
}

/// The caller, then the route `found` for it, then what the route requires.
fn checked(
    found: Match<'_, Arc<Route>>,
    app: &ServerState,
    req: &ApiRequest,
    reading: Option<Reading>,
) -> Result<Admitted, ApiError> {
    let (caller, reading) = match reading {
        None => (auth::authenticate(&app.tenancy, req)?, None),
        Some(reading) => authenticated_on_edge(app, req, reading)?,
    };
    let (route, params) = match found {
        Match::Found(route, params, _) => (route.clone(), params),
        Match::MethodNotAllowed(allowed) => {
            return Err(ApiError::method_not_allowed(&req.method, &req.path, &allowed));
        }
        Match::NotFound => return Err(ApiError::not_found(&format!("Route {} {}", req.method, req.path))),
    };
    if app.config.limits.enforce_api_module && !route.api_module_exempt && !caller.org.module_enabled("api") {
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
    Ok(Admitted { route, caller, params, reading })
}

/// On an edge host, the caller as the request's side knows it. A token the
/// replica does not know may be one made a moment ago: the primary is
/// asked before it is refused, and then serves the whole request; a token
/// the primary did not know either is refused without asking it again for
/// [`crate::edge::credentials::REFUSED_FOR`]. (A
/// revoked one is refused once the replica holds the revocation, and a
/// token verified on the replica a moment ago is answered without asking
/// it again for [`crate::edge::credentials::KEPT`]: the bound's half second.)
fn authenticated_on_edge(
    app: &ServerState,
    req: &ApiRequest,
    reading: Reading,
) -> Result<(Caller, Option<Reading>), ApiError> {
    let tenancy = Tenancy::new(reading.store.clone());
    let found = match (&app.edge, reading.side) {
        (Some(edge), Side::Replica) => auth::authenticate_with(req, |text| edge.credentials.verify(&tenancy, text)),
        _ => auth::authenticate(&tenancy, req),
    };
    match (found, &app.edge) {
        (Err(e), Some(edge)) if reading.side == Side::Replica && e.code() == "API_TOKEN_INVALID" => {
            let text = auth::presented_token(req)?.unwrap_or_default();
            if edge.credentials.refused_by_primary(text) {
                return Err(e);
            }
            let reading = edge.reading_primary(&reading);
            match auth::authenticate(&Tenancy::new(reading.store.clone()), req) {
                Err(e) if e.code() == "API_TOKEN_INVALID" => {
                    edge.credentials.remember_refusal(text);
                    Err(e)
                }
                found => Ok((found?, Some(reading))),
            }
        }
        (found, _) => Ok((found?, Some(reading))),
    }
}

fn routes(modules: &[Arc<LoadedModule>], default_deadline: Duration) -> Result<Table, String> {
    let mut r = Router::default();
    let pattern = |path: &str| -> Arc<str> { format!("/api{path}").into() };
    let native = |path: &str, handler, permission: Option<&str>, api_module_exempt| Route {
        permission: permission.map(Into::into),
        module: None,
        max_body: None,
        pattern: pattern(path),
        api_module_exempt,
        handler,
    };
    for (method, path, handler, permission, exempt) in [
        (Method::GET, "/me", Handler::Native(me::get), None, true),
        (Method::GET, "/catalogs/municipalities", Handler::Native(catalogs::municipalities), None, false),
        (Method::GET, "/catalogs/states", Handler::Native(catalogs::states), None, false),
        (Method::GET, "/catalogs/resolve", Handler::NativeBlocking(catalogs::resolve), None, false),
        (
            Method::GET,
            "/webhooks/deliveries",
            Handler::NativeDurable(deliveries::list),
            Some("automations:read"),
            false,
        ),
        (Method::GET, "/webhooks/event-types", Handler::Native(event_types::list), Some("automations:read"), false),
        (Method::POST, "/webhooks/test", Handler::NativeWaiting(webhook_test::send), Some("automations:write"), false),
        (
            Method::POST,
            "/webhooks/deliveries/recover",
            Handler::NativeDurable(deliveries::recover),
            Some("automations:write"),
            false,
        ),
        (
            Method::POST,
            "/webhooks/deliveries/{id}/retry",
            Handler::NativeDurable(deliveries::retry),
            Some("automations:write"),
            false,
        ),
    ] {
        r.try_add(method, path, Arc::new(native(path, handler, permission, exempt)))?;
    }
    components::for_each_route(
        modules,
        components::RouteTable::Api,
        default_deadline,
        |method, route, module, deadline| {
            let target = Route {
                permission: route.permission.clone(),
                module: route.module.clone(),
                max_body: route.max_body_bytes.map(|n| n as usize),
                pattern: pattern(&route.path),
                api_module_exempt: false,
                handler: Handler::Component(module.clone(), deadline),
            };
            r.try_add(method, &route.path, Arc::new(target))
        },
    )?;
    Ok(r)
}
