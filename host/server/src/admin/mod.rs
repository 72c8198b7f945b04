//! The admin API: a separate listener that stands in for "the app" (creating
//! organizations, users and tokens). Every call needs `Authorization: Bearer
//! <admin token>`, checked on the request's head, before its body is read
//! ([`Admin::admit`]). The `crm-host admin` command is its client (crate
//! `crm-host`, `host/cli/`).

pub mod health;
pub mod metrics;
pub mod token;

mod backups;
mod modules;
mod orgs;
mod plugins;
mod webhook_endpoints;

use std::sync::{Arc, LazyLock, RwLock};
use std::time::Duration;

use crm_runtime::LoadedModule;
use crm_tenancy::secrets;
use http::Method;

use crate::api::Api;
use crate::components::{RouteTable, for_each_route};
use crate::http::extract::Admission;
use crate::http::router::{Match, Params, Router};
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;
use crate::tokenless::Tokenless;

#[derive(Clone, Copy)]
enum Call {
    ListOrgs,
    CreateOrg,
    GetOrg,
    UpdateOrg,
    DeleteOrg,
    CreateUser,
    CreateToken,
    RevokeToken,
    ListPlugins,
    ReloadPlugins,
    ListRoutes,
    PutIntegration,
    GetWebhookSecret,
    RotateWebhookSecret,
    ListWebhookEndpoints,
    EnableWebhookEndpoint,
    StartBackup,
    BackupPart,
    CancelBackup,
}

/// The admin API's own routes, built once.
static ROUTES: LazyLock<Router<Call>> = LazyLock::new(|| {
    let mut r = Router::default();
    r.add(Method::GET, "/admin/orgs", Call::ListOrgs);
    r.add(Method::POST, "/admin/orgs", Call::CreateOrg);
    r.add(Method::GET, "/admin/orgs/{org}", Call::GetOrg);
    r.add(Method::PATCH, "/admin/orgs/{org}", Call::UpdateOrg);
    r.add(Method::DELETE, "/admin/orgs/{org}", Call::DeleteOrg);
    r.add(Method::POST, "/admin/orgs/{org}/users", Call::CreateUser);
    r.add(Method::POST, "/admin/orgs/{org}/tokens", Call::CreateToken);
    r.add(Method::DELETE, "/admin/orgs/{org}/tokens/{token}", Call::RevokeToken);
    r.add(Method::GET, "/admin/plugins", Call::ListPlugins);
    r.add(Method::POST, "/admin/plugins/reload", Call::ReloadPlugins);
    r.add(Method::GET, "/admin/routes", Call::ListRoutes);
    r.add(Method::PUT, "/admin/orgs/{org}/integrations/{provider}", Call::PutIntegration);
    r.add(Method::GET, "/admin/orgs/{org}/webhook-secret", Call::GetWebhookSecret);
    r.add(Method::POST, "/admin/orgs/{org}/webhook-secret/rotate", Call::RotateWebhookSecret);
    r.add(Method::GET, "/admin/orgs/{org}/webhook-endpoints", Call::ListWebhookEndpoints);
    r.add(Method::POST, "/admin/orgs/{org}/webhook-endpoints/enable", Call::EnableWebhookEndpoint);
    r.add(Method::POST, "/admin/store/backups", Call::StartBackup);
    r.add(Method::GET, "/admin/store/backups/{backup}/parts/{part}", Call::BackupPart);
    r.add(Method::DELETE, "/admin/store/backups/{backup}", Call::CancelBackup);
    r
});

/// A component route served on the admin API, with its call deadline.
pub struct ModuleRoute {
    pub module: Arc<LoadedModule>,
    pub deadline: Duration,
}

/// The admin API: its own routes and the component routes under `/admin/`,
/// served as `/admin/orgs/{org}/...` (built at start, replaced by a plugin
/// reload, which also replaces the API's and the token-less routes' tables).
pub struct Admin {
    module_routes: RwLock<Arc<Router<ModuleRoute>>>,
    default_deadline: Duration,
    api: Arc<Api>,
    tokenless: Arc<Tokenless>,
    /// One reload at a time.
    reloading: tokio::sync::Mutex<()>,
    /// The online backup being read, if any.
    backups: backups::Backups,
}

impl Admin {
    pub fn new(
        modules: &[Arc<LoadedModule>],
        default_deadline: Duration,
        api: Arc<Api>,
        tokenless: Arc<Tokenless>,
        backup_idle: Duration,
    ) -> Result<Admin, String> {
        let module_routes = RwLock::new(Arc::new(module_table(modules, default_deadline)?));
        Ok(Admin {
            module_routes,
            default_deadline,
            api,
            tokenless,
            reloading: Default::default(),
            backups: backups::Backups::new(backup_idle),
        })
    }

    /// `GET /admin/routes`: what the public listener serves now under `/api`,
    /// `{data: [{method, path}]}` sorted by path (the OpenAPI document is
    /// checked against it).
    fn routes(&self) -> Response {
        let mut listed = self.api.listed();
        listed.extend(self.tokenless.listed());
        listed.sort_by(|a, b| (&a.1, a.0.as_str()).cmp(&(&b.1, b.0.as_str())));
        let data: Vec<_> = listed
            .iter()
            .map(|(method, path)| serde_json::json!({ "method": method.as_str(), "path": path }))
            .collect();
        Response::json(http::StatusCode::OK, &serde_json::json!({ "data": data }))
    }

    /// Calls a component's admin route of organization `org` for the host
    /// itself (`path` below `/admin/orgs/{org}`, a JSON `body`), as the app
    /// would, but with no admin token: no network is crossed.
    pub async fn call_module(
        &self,
        app: &Arc<ServerState>,
        (org, method, path): (&str, Method, &str),
        body: &serde_json::Value,
    ) -> Result<Response, ApiError> {
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
        let req = ApiRequest {
            method,
            path: format!("/admin/orgs/{org}{path}"),
            query: Vec::new(),
            headers,
            body: body.to_string().into(),
            peer: None,
            request_id: crm_tenancy::ids::new_id(),
        };
        let table = self.module_routes.read().expect("routes lock").clone();
        modules::forward(app, &table, &req).await
    }

    /// Checks the admin token on a request's head (health and metrics need none).
    pub fn admit(app: &ServerState, req: &ApiRequest, max_body: usize) -> Admission<Admitted> {
        let verdict = match (req.method == Method::GET, req.path.as_str()) {
            (_, "/healthz") => Ok(Admitted::Healthz),
            (true, "/metrics") => Ok(Admitted::Metrics),
            _ => authorized(app, req).map(|()| Admitted::Authorized),
        };
        Admission { max_body, verdict }
    }

    /// Serves one admitted request on the admin listener.
    pub async fn dispatch(&self, app: &Arc<ServerState>, admitted: Admitted, req: ApiRequest) -> Response {
        match admitted {
            Admitted::Healthz => return crate::admin::health::healthz(),
            Admitted::Metrics => return crate::admin::metrics::render(&app.metrics),
            Admitted::Authorized => {}
        }
        let result = match ROUTES.find(&req.method, &req.path) {
            Match::Found(Call::ReloadPlugins, _, pattern) => {
                plugins::reload(app, self).await.map(|r| r.served_by(pattern, None))
            }
            Match::Found(Call::ListRoutes, _, pattern) => Ok(self.routes().served_by(pattern, None)),
            Match::Found(Call::StartBackup, _, pattern) => {
                self.backups.start(app).await.map(|r| r.served_by(pattern, None))
            }
            Match::Found(Call::BackupPart, params, pattern) => {
                let (backup, part) = (param(&params, "backup"), param(&params, "part"));
                self.backups.part(backup, part).await.map(|r| r.served_by(pattern, None))
            }
            Match::Found(Call::CancelBackup, params, pattern) => {
                self.backups.cancel(param(&params, "backup")).await.map(|r| r.served_by(pattern, None))
            }
            Match::Found(call, params, pattern) => {
                serve(app, *call, &req, &params).await.map(|r| r.served_by(pattern, None))
            }
            Match::MethodNotAllowed(allowed) => Err(ApiError::method_not_allowed(&req.method, &req.path, &allowed)),
            Match::NotFound => {
                let table = self.module_routes.read().expect("routes lock").clone();
                modules::forward(app, &table, &req).await
            }
        };
        result.unwrap_or_else(ApiError::into_response)
    }
}

/// What [`Admin::admit`] let through: the two calls that need no token, or
/// a request whose admin token was checked.
pub enum Admitted {
    Healthz,
    Metrics,
    Authorized,
}

/// The component routes under `/admin/` of `modules`.
fn module_table(modules: &[Arc<LoadedModule>], default_deadline: Duration) -> Result<Router<ModuleRoute>, String> {
    let mut table = Router::default();
    for_each_route(modules, RouteTable::Admin, default_deadline, |method, route, module, deadline| {
        table.try_add(method, &route.path, ModuleRoute { module: module.clone(), deadline })
    })?;
    Ok(table)
}

fn authorized(app: &ServerState, req: &ApiRequest) -> Result<(), ApiError> {
    if req.headers.get_all("authorization").iter().count() > 1 {
        return Err(ApiError::validation(
            "Ambiguous credentials: the Authorization header is sent more than once",
            serde_json::json!({ "field": "Authorization" }),
        ));
    }
    let presented = req
        .header("authorization")
        .and_then(|v| v.trim().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim());
    match presented {
        None => Err(ApiError::unauthorized(
            "ADMIN_TOKEN_MISSING",
            "The admin API needs Authorization: Bearer <admin token>",
        )),
        Some(token) if secrets::matches(token, &app.admin_token_digest) => Ok(()),
        Some(_) => Err(ApiError::unauthorized("ADMIN_TOKEN_INVALID", "The admin token is not valid")),
    }
}

/// The route parameter `name` ("" when absent).
fn param<'a>(params: &'a Params, name: &str) -> &'a str {
    params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).unwrap_or("")
}

async fn serve(app: &Arc<ServerState>, call: Call, req: &ApiRequest, params: &Params) -> Result<Response, ApiError> {
    let param = |name: &str| param(params, name);
    let response = match call {
        Call::ListOrgs => orgs::list(app)?,
        Call::CreateOrg => orgs::create(app, req)?,
        Call::GetOrg => orgs::get(app, param("org"))?,
        Call::UpdateOrg => orgs::update(app, param("org"), req)?,
        Call::DeleteOrg => {
            // Dropping a namespace frees each of its pages: 0.4 s at 100,000
            // contacts, so off the threads that serve requests.
            let (app, org) = (app.clone(), param("org").to_string());
            tokio::task::spawn_blocking(move || orgs::delete(&app, &org))
                .await
                .unwrap_or_else(|_| Err(ApiError::internal()))?
        }
        Call::CreateUser => orgs::create_user(app, param("org"), req)?,
        Call::CreateToken => orgs::create_token(app, param("org"), req)?,
        Call::RevokeToken => orgs::revoke_token(app, param("org"), param("token"))?,
        Call::ListPlugins => plugins::list(app),
        Call::ReloadPlugins | Call::ListRoutes | Call::StartBackup | Call::BackupPart | Call::CancelBackup => {
            unreachable!("served by Admin::dispatch")
        }
        Call::PutIntegration => modules::put_integration(app, param("org"), param("provider"), req)?,
        Call::GetWebhookSecret => orgs::webhook_secret(app, param("org"))?,
        Call::RotateWebhookSecret => orgs::rotate_webhook_secret(app, param("org"), req)?,
        Call::ListWebhookEndpoints => webhook_endpoints::list(app, param("org"))?,
        Call::EnableWebhookEndpoint => webhook_endpoints::enable(app, param("org"), req)?,
    };
    // Durable before acknowledged: every admin write is on disk before its 2xx
    // (reading the webhook secret may make it: what the app shows must stay).
    if req.method != Method::GET || matches!(call, Call::GetWebhookSecret) {
        app.store.durable().await?;
    }
    Ok(response)
}
