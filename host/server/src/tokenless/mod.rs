//! The token-less routes: component routes served without a token on the public
//! listener, at `/api/v1/...` (a module declares them as `/public/...`). A
//! form's public submit URL is one.
//!
//! Knowing no token, the host finds the organization through the route's
//! `{id}`, which the module published in the directory
//! (`crm_tenancy::directory`), then checks, in order (the first three on the
//! request's head, before its body is read, [`Tokenless::admit`]):
//! 1. the route (404 `NOT_FOUND`, 405 `METHOD_NOT_ALLOWED`);
//! 2. the organization's plan module the route names (403
//!    `PLAN_MODULE_REQUIRED`); the `api` module is not needed: a public form
//!    is not the API;
//! 3. per id and client address (an IPv6 client by its /64), at most
//!    `CRM_FORM_RATE_PER_MINUTE` calls a minute (429 `RATE_LIMITED` with
//!    `Retry-After`; [`crate::fairness::form_rate`], shared by every host on a shared
//!    store); a CORS preflight is not counted. The client address is the
//!    peer's, or behind a proxy `CRM_TRUST_FORWARDED_FOR` names, what its
//!    `X-Forwarded-For` says ([`crate::http::forwarded`]);
//! 4. the organization's fair share ([`crate::fairness`]).
//!
//! Everything else (the key, the origin, what a submission is) is the
//! component's rule. An id nobody published, or one of a deleted
//! organization, still reaches the component, unbound, to answer its own
//! not-found.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use crm_runtime::{CallContext, LoadedModule};
use crm_tenancy::{Org, Tenancy};
use http::Method;

use crate::components::{self, RouteTable};
use crate::edge::Edge;
use crate::fairness::Gate;
use crate::fairness::form_rate::FormRate;
use crate::http::extract::{Admission, BodyLimits};
use crate::http::forwarded::TrustedProxies;
use crate::http::router::{Match, Params, Router};
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;

/// Where public routes live on the public listener, and in a module's terms.
const PUBLIC_PREFIX: &str = "/api/v1/";
const MODULE_PREFIX: &str = "/public/";

pub struct PublicRoute {
    module: Arc<LoadedModule>,
    plan_module: Option<String>,
    deadline: Duration,
    /// The route's own body limit, when it has one.
    max_body: Option<usize>,
}

/// The route table; replaced whole by a plugin reload.
pub type Table = Router<Arc<PublicRoute>>;

/// A request admitted on its head.
pub struct Admitted {
    route: Arc<PublicRoute>,
    /// The path as the module declares it (`/public/...`), and its parameters.
    module_path: String,
    params: Params,
    /// The route's pattern as the listener serves it, for logs and metrics.
    pattern: Arc<str>,
    /// `None`: the id names no organization (the component answers its own not-found).
    org: Option<Org>,
}

pub struct Tokenless {
    routes: RwLock<Arc<Table>>,
    default_deadline: Duration,
    rate: FormRate,
    trusted_proxies: TrustedProxies,
    gate: Arc<Gate>,
}

/// Whether `path` is a token-less route's (under `/api/v1/`).
pub fn is_tokenless_path(path: &str) -> bool {
    path.starts_with(PUBLIC_PREFIX)
}

/// A module's `/public/...` pattern as the listener serves it.
fn public_pattern(module_pattern: &str) -> String {
    format!("{PUBLIC_PREFIX}{}", module_pattern.strip_prefix(MODULE_PREFIX).unwrap_or(module_pattern))
}

impl Tokenless {
    pub fn new(
        modules: &[Arc<LoadedModule>],
        default_deadline: Duration,
        rate: FormRate,
        trusted_proxies: TrustedProxies,
        gate: Arc<Gate>,
    ) -> Result<Tokenless, String> {
        let routes = RwLock::new(Arc::new(table(modules, default_deadline)?));
        Ok(Tokenless { routes, default_deadline, rate, trusted_proxies, gate })
    }

    /// The table `modules` would give, or why they cannot be served together.
    pub fn table_for(&self, modules: &[Arc<LoadedModule>]) -> Result<Table, String> {
        table(modules, self.default_deadline)
    }

    /// Serves new requests with `table` (a reload).
    pub fn replace_table(&self, table: Table) {
        *self.routes.write().expect("routes lock") = Arc::new(table);
    }

    /// The live routes as `(method, full path pattern)`.
    pub fn listed(&self) -> Vec<(Method, String)> {
        let routes = self.routes.read().expect("routes lock").clone();
        routes.entries().map(|(method, pattern, _)| (method.clone(), public_pattern(pattern))).collect()
    }

    /// Checks a public request on its head: the route, the organization's
    /// plan and the client's rate. The body may be as large as the route allows.
    pub fn admit(&self, app: &ServerState, req: &ApiRequest, limits: &BodyLimits) -> Admission<Admitted> {
        self.admit_with(req, limits, |route, admitted| {
            let org = publisher_org(&app.tenancy, &route.module.name, public_id(&admitted))?;
            self.checked(app.store.as_ref(), &self.rate, req, admitted, org)
        })
    }

    /// On an edge host that forwards writes: a public write's checks on the
    /// replica, before its body is read ([`Tokenless::admit`]'s, the
    /// client's rate counted here as well, [`Edge::form_rate`]). An id the
    /// replica does not know is asked of the primary (a form made a moment
    /// ago); one the primary does not know either is served here, unbound,
    /// for the component to answer its own not-found, and not asked again
    /// for a while. So a public write costs the WAN only when it is for a
    /// real form and within its rate.
    pub fn admit_on_edge(
        &self,
        app: &ServerState,
        edge: &Edge,
        req: &ApiRequest,
        limits: &BodyLimits,
    ) -> Admission<OnEdge> {
        self.admit_with(req, limits, |route, admitted| {
            let (module, id) = (route.module.name.as_str(), public_id(&admitted));
            let mut org = publisher_org(&Tenancy::new(edge.replica().clone()), module, id)?;
            if org.is_none() && !edge.public_id_unknown(module, id) {
                org = publisher_org(&Tenancy::new(edge.primary().clone()), module, id)?;
                if org.is_none() {
                    edge.remember_unknown_public_id(module, id);
                }
            }
            self.checked(app.store.as_ref(), edge.form_rate(), req, admitted, org)
        })
        .map(|admitted| match admitted.org {
            Some(_) => OnEdge::Forward,
            None => OnEdge::Here(Box::new(admitted)),
        })
    }

    /// The route `req` names, then `check` on it.
    fn admit_with(
        &self,
        req: &ApiRequest,
        limits: &BodyLimits,
        check: impl FnOnce(&PublicRoute, Admitted) -> Result<Admitted, ApiError>,
    ) -> Admission<Admitted> {
        let tail = req.path.strip_prefix(PUBLIC_PREFIX).unwrap_or_default();
        let module_path = format!("{MODULE_PREFIX}{tail}");
        let routes = self.routes.read().expect("routes lock").clone();
        let found = routes.find(&req.method, &module_path);
        let max_body = limits.of(match &found {
            Match::Found(route, _, _) => route.max_body,
            _ => None,
        });
        let verdict = match found {
            Match::Found(route, params, pattern) => {
                let pattern = public_pattern(&pattern).into();
                check(route, Admitted { route: route.clone(), module_path, params, pattern, org: None })
            }
            Match::MethodNotAllowed(allowed) => Err(ApiError::method_not_allowed(&req.method, &req.path, &allowed)),
            Match::NotFound => Err(ApiError::not_found(&format!("Route {} {}", req.method, req.path))),
        };
        Admission { max_body, verdict }
    }

    /// The organization's plan and the client's rate (counted by `rate`),
    /// for a route whose id names `org` (`None`: nobody's; the component
    /// answers its own not-found).
    fn checked(
        &self,
        store: &dyn crm_store::Store,
        rate: &FormRate,
        req: &ApiRequest,
        mut admitted: Admitted,
        org: Option<Org>,
    ) -> Result<Admitted, ApiError> {
        let Some(org) = org else { return Ok(admitted) };
        if let Some(module) = &admitted.route.plan_module
            && !org.module_enabled(module)
        {
            return Err(ApiError::plan_module_required(module));
        }
        if req.method != Method::OPTIONS {
            let client = req.peer.map(|peer| self.trusted_proxies.client(peer, &req.headers));
            rate.check(store, &org.id, public_id(&admitted), client)?;
        }
        admitted.org = Some(org);
        Ok(admitted)
    }

    /// Serves an admitted request.
    pub async fn dispatch(&self, app: &Arc<ServerState>, admitted: Admitted, req: ApiRequest) -> Response {
        let Admitted { route, module_path, params, pattern, org } = admitted;
        let Some(org) = org else {
            let answer = components::call(app, &route.module, None, &req, module_path, params, route.deadline).await;
            return answer.served_by(pattern, None);
        };
        let pass = match self.gate.enter(&org.id, None).await {
            Ok(pass) => pass,
            Err(e) => return e.into_response(),
        };
        let org_id = org.id.clone();
        let ctx = CallContext::public(org, &req.request_id);
        let answer = components::call(app, &route.module, Some(ctx), &req, module_path, params, route.deadline).await;
        pass.stamp(answer).served_by(pattern, Some(&org_id))
    }
}

/// What an edge host does with a public write it admitted.
pub enum OnEdge {
    /// Sends it to the write host.
    Forward,
    /// Serves it here, unbound: its id names no organization.
    Here(Box<Admitted>),
}

/// The route's `{id}`: the public id the module published.
fn public_id(admitted: &Admitted) -> &str {
    admitted.params.iter().find(|(k, _)| k == "id").map(|(_, v)| v.as_str()).unwrap_or_default()
}

/// The organization that published `id` for `module`, as `tenancy` knows it.
fn publisher_org(tenancy: &Tenancy, module: &str, id: &str) -> Result<Option<Org>, ApiError> {
    let Some(org_id) = tenancy.publisher(module, id)? else { return Ok(None) };
    Ok(tenancy.org(&org_id)?)
}

fn table(modules: &[Arc<LoadedModule>], default_deadline: Duration) -> Result<Table, String> {
    let mut routes = Router::default();
    components::for_each_route(modules, RouteTable::Tokenless, default_deadline, |method, route, module, deadline| {
        let target = PublicRoute {
            module: module.clone(),
            plan_module: route.module.clone(),
            deadline,
            max_body: route.max_body_bytes.map(|n| n as usize),
        };
        routes.try_add(method, &route.path, Arc::new(target))
    })?;
    Ok(routes)
}
