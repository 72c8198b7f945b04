//! A module's route table: each route declared once, with its handler and
//! what the host needs to know of it. `describe` ([`Router::describe`]) and
//! `route-options`' `body-limits` ([`Router::body_limits`]) are read from the
//! table, and `handle` ([`Router::handle`]) runs the handler of the route the
//! host matched, so the routes a module tells the host and the ones it serves
//! are one list.
//!
//! ```ignore
//! fn routes() -> Router {
//!     Router::in_plan_module("contacts")
//!         // A filtered list over 1,000,000 contacts walks them all.
//!         .get("/contacts", Some("contacts:read"), |_, req| list::list(req))
//!         .deadline_ms(30_000)
//!         .get("/contacts/{id}", Some("contacts:read"), |_, req| edit::get(param(req, "id")))
//!         // Served on the admin API as POST /admin/orgs/{org}/contacts/bulk.
//!         .post("/admin/contacts/bulk", None, |_, req| bulk::upsert_many(req))
//! }
//!
//! impl handler::Guest for Contacts {
//!     fn describe() -> ModuleInfo {
//!         routes().describe("contacts", env!("CARGO_PKG_VERSION"))
//!     }
//!
//!     fn handle(caller: Caller, req: Request) -> Response {
//!         routes().handle(&caller, req)
//!     }
//! }
//! ```
//!
//! The request does not say which route the host matched, only its method,
//! its path (below `/api`, or the module's own `/admin/...` and `/public/...`
//! form) and the path's parameters; [`matching`] finds the route again by
//! the host's own rule, over this module's table. That is the route the
//! host found, among every module's: a route the host chose over this
//! module's others is the one chosen here too, as long as no route's first
//! segment is a parameter ([`Router::problems`] says why).

pub mod matching;

use matching::{Lookup, find, matches, shape};

use crate::http::{Error, respond};
use crate::types::{Caller, ModuleInfo, Request, Response, Route};

/// What serves a route: the caller (organization, token, user, permissions)
/// and the request (its path parameters through [`param`]); mutable, so a
/// handler may take a large body out of it instead of copying it.
pub type Handler = fn(&Caller, &mut Request) -> Result<Response, Error>;

/// One declared route.
#[derive(Debug, Clone, Copy)]
pub struct Declared {
    /// `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, or `OPTIONS` (a public route).
    pub method: &'static str,
    /// The path pattern: below `/api` (`/contacts/{id}`), or `/admin/...`
    /// (the admin API's `/admin/orgs/{org}/...`), or `/public/...` (the
    /// public listener's `/api/v1/...`, without a token).
    pub pattern: &'static str,
    /// The permission a token needs; `None`: any token (admin and public
    /// routes have no token permission).
    pub permission: Option<&'static str>,
    /// The plan module the organization needs besides `api`.
    pub plan_module: Option<&'static str>,
    /// How long one call may run; `None`: the host's default (5 s).
    pub deadline_ms: Option<u32>,
    /// The route's own limit on its request body (the `route-options`
    /// export); `None`: the host's (1 MiB).
    pub max_body_bytes: Option<u32>,
    pub handler: Handler,
}

impl Declared {
    /// The route as `describe` tells it to the host.
    pub fn route(&self) -> Route {
        Route {
            method: self.method.into(),
            path: self.pattern.into(),
            permission: self.permission.map(Into::into),
            module: self.plan_module.map(Into::into),
            deadline_ms: self.deadline_ms,
        }
    }
}

/// A module's routes, in the order declared (the order `describe` lists
/// them in, and the order the host tries patterns with parameters in).
///
/// Routes are added by method (`get`, `post`, ...: pattern, permission,
/// handler); `deadline_ms`, `max_body_bytes` and `plan_module` after a route
/// set that route's option.
#[derive(Debug, Clone, Default)]
pub struct Router {
    plan_module: Option<&'static str>,
    routes: Vec<Declared>,
}

impl Router {
    /// A table whose routes need no plan module (unless one says so).
    pub fn new() -> Router {
        Router::default()
    }

    /// A table whose routes all need the plan module `module` (unless one
    /// says otherwise with [`Router::plan_module`]).
    pub fn in_plan_module(module: &'static str) -> Router {
        Router { plan_module: Some(module), routes: Vec::new() }
    }

    /// Declares `method pattern`, needing `permission`, served by `handler`.
    pub fn route(
        mut self,
        method: &'static str,
        pattern: &'static str,
        permission: Option<&'static str>,
        handler: Handler,
    ) -> Router {
        let plan_module = self.plan_module;
        self.routes.push(Declared {
            method,
            pattern,
            permission,
            plan_module,
            deadline_ms: None,
            max_body_bytes: None,
            handler,
        });
        self
    }

    pub fn get(self, pattern: &'static str, permission: Option<&'static str>, handler: Handler) -> Router {
        self.route("GET", pattern, permission, handler)
    }

    pub fn post(self, pattern: &'static str, permission: Option<&'static str>, handler: Handler) -> Router {
        self.route("POST", pattern, permission, handler)
    }

    pub fn put(self, pattern: &'static str, permission: Option<&'static str>, handler: Handler) -> Router {
        self.route("PUT", pattern, permission, handler)
    }

    pub fn patch(self, pattern: &'static str, permission: Option<&'static str>, handler: Handler) -> Router {
        self.route("PATCH", pattern, permission, handler)
    }

    pub fn delete(self, pattern: &'static str, permission: Option<&'static str>, handler: Handler) -> Router {
        self.route("DELETE", pattern, permission, handler)
    }

    /// A public route's CORS preflight (`/public/...` only).
    pub fn options(self, pattern: &'static str, permission: Option<&'static str>, handler: Handler) -> Router {
        self.route("OPTIONS", pattern, permission, handler)
    }

    /// The last route declared runs for at most `ms` milliseconds a call.
    pub fn deadline_ms(self, ms: u32) -> Router {
        self.last(|route| route.deadline_ms = Some(ms))
    }

    /// The last route declared takes a body of at most `bytes` (above or
    /// below the host's 1 MiB): the module exports `route-options`, whose
    /// `body-limits` is [`Router::body_limits`].
    pub fn max_body_bytes(self, bytes: u32) -> Router {
        self.last(|route| route.max_body_bytes = Some(bytes))
    }

    /// The last route declared needs the plan module `module` (`None`: none),
    /// whatever the table's.
    pub fn plan_module(self, module: Option<&'static str>) -> Router {
        self.last(|route| route.plan_module = module)
    }

    /// Changes the last route declared; an option before any route is a
    /// mistake of the table's author, which its tests find (a panic).
    fn last(mut self, change: impl FnOnce(&mut Declared)) -> Router {
        let Some(route) = self.routes.last_mut() else { panic!("a route option before any route is declared") };
        change(route);
        self
    }

    /// Every declared route, in order.
    pub fn routes(&self) -> &[Declared] {
        &self.routes
    }

    /// What `describe` answers: the module's name and version, and the table.
    pub fn describe(&self, name: &str, version: &str) -> ModuleInfo {
        ModuleInfo {
            name: name.into(),
            version: version.into(),
            routes: self.routes.iter().map(Declared::route).collect(),
        }
    }

    /// What `route-options`' `body-limits` answers: each route with its own
    /// body limit, as `make(method, path, max-body-bytes)` builds the
    /// module's `body-limit` record (a type of the module's own bindings).
    pub fn body_limits<T>(&self, make: impl Fn(String, String, u32) -> T) -> Vec<T> {
        self.routes
            .iter()
            .filter_map(|r| r.max_body_bytes.map(|max| make(r.method.into(), r.pattern.into(), max)))
            .collect()
    }

    /// The route `method` and `path` name, as the host finds it (see
    /// [`matching`]).
    pub fn find(&self, method: &str, path: &str) -> Option<&Declared> {
        match find(&self.routes, method, path, |r| (r.method, r.pattern)) {
            Lookup::Found(index, _) => self.routes.get(index),
            Lookup::MethodNotAllowed(_) | Lookup::NotFound => None,
        }
    }

    /// What `handle` answers: the handler of the route the host matched.
    /// A request no declared route matches (the host sends none) is 404
    /// `NOT_FOUND`, "Route not found", whatever its method.
    pub fn handle(&self, caller: &Caller, mut req: Request) -> Response {
        match self.find(&req.method, &req.path) {
            Some(route) => respond((route.handler)(caller, &mut req)),
            None => Error::not_found("Route").into_response(),
        }
    }

    /// What is wrong with this table, with the module's `described` routes
    /// (its `describe()`): empty when `describe` lists exactly the table,
    /// no route is declared twice (one method and shape, which the host
    /// refuses), each route's first segment is literal (see below), and
    /// each route is the one a request the host would send for it finds
    /// (see [`host_request`]), so it reaches its handler. A component's
    /// tests assert it is empty.
    ///
    /// The first segment: the host matches an API request in its API
    /// table only, but hands the module the path below `/api`, so
    /// `GET /api/admin/x` taken by an API route `/{kind}/x` would reach
    /// the module as `/admin/x`, the path of its admin route `/admin/x`.
    pub fn problems(&self, described: &ModuleInfo) -> Vec<String> {
        let mut problems = Vec::new();
        let table: Vec<Route> = self.routes.iter().map(Declared::route).collect();
        if described.routes.iter().map(told).ne(table.iter().map(told)) {
            problems.push(format!("describe lists {:?}, the table {table:?}", described.routes));
        }
        for (i, route) in self.routes.iter().enumerate() {
            let name = format!("{} {}", route.method, route.pattern);
            let twice = self
                .routes
                .iter()
                .take(i)
                .any(|r| r.method == route.method && shape(r.pattern) == shape(route.pattern));
            if twice {
                problems.push(format!("{name} is declared twice"));
            }
            // `/{x}/...` under `/api` also takes `/api/admin/...` and
            // `/api/public/...`, whose paths reach the module as those of its
            // admin and public routes: it could not tell them apart.
            if shape(route.pattern).first().is_some_and(Option::is_none) {
                problems.push(format!("{name}: a route's first segment must be literal"));
            }
            let req = host_request(route.method, route.pattern);
            match find(&self.routes, &req.method, &req.path, |r| (r.method, r.pattern)) {
                Lookup::Found(found, params) if found == i && params == req.path_params => {}
                other => problems.push(format!("{name}: {} {} finds {other:?}", req.method, req.path)),
            }
        }
        problems
    }
}

/// What the host reads of a route (the WIT's records have no `PartialEq`).
fn told(route: &Route) -> (&str, &str, Option<&str>, Option<&str>, Option<u32>) {
    (&route.method, &route.path, route.permission.as_deref(), route.module.as_deref(), route.deadline_ms)
}

/// A request as the host sends one for `method pattern`: each `{name}`
/// segment filled with an id (`6b052f4b0000138387408ed5`), the path
/// parameters as the host's router extracts them, no query, headers or body.
pub fn host_request(method: &str, pattern: &str) -> Request {
    const SAMPLE: &str = "6b052f4b0000138387408ed5";
    let path: String = pattern
        .split('/')
        .map(|s| if s.starts_with('{') && s.ends_with('}') { SAMPLE } else { s })
        .collect::<Vec<_>>()
        .join("/");
    Request {
        method: method.into(),
        path_params: matches(pattern, &path).unwrap_or_default(),
        path,
        query: Vec::new(),
        headers: Vec::new(),
        body: Vec::new(),
    }
}

/// The path parameter `name` of the route's pattern. The host matched the
/// pattern, so each of its parameters is there; a request that lacks one
/// (not sent by the host) reads as empty, which no id is.
pub fn param<'r>(req: &'r Request, name: &str) -> &'r str {
    crate::http::path_param(req, name).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::json_response;
    use serde_json::{Value, json};

    fn caller() -> Caller {
        Caller { org_id: "org".into(), token_id: "token".into(), user_id: None, permissions: Vec::new() }
    }

    /// Each handler answers its own name, with what it was given.
    fn table() -> Router {
        Router::in_plan_module("things")
            .get("/things", Some("things:read"), |_, _| Ok(json_response(200, &json!({ "h": "list" }))))
            .deadline_ms(30_000)
            .post("/things", Some("things:write"), |_, req| {
                let bytes = std::mem::take(&mut req.body).len();
                Ok(json_response(201, &json!({ "h": "create", "bytes": bytes })))
            })
            .max_body_bytes(64)
            .get("/things/{id}", Some("things:read"), |_, req| {
                Ok(json_response(200, &json!({ "h": "get", "id": param(req, "id") })))
            })
            .get("/things/count", Some("things:read"), |_, _| Ok(json_response(200, &json!({ "h": "count" }))))
            .put("/things/{id}/tags/{tag}", Some("things:write"), |c, req| {
                Ok(json_response(200, &json!({ "h": "tag", "tag": param(req, "tag"), "org": c.org_id })))
            })
            .delete("/things/{id}", Some("things:write"), |_, _| Err(Error::not_found("Thing")))
            .post("/admin/things", None, |_, _| Ok(json_response(201, &json!({ "h": "admin" }))))
            .plan_module(None)
            .options("/public/things/{id}", None, |_, _| Ok(json_response(204, &json!({ "h": "preflight" }))))
    }

    fn body(response: &Response) -> Value {
        serde_json::from_slice(&response.body).unwrap()
    }

    #[test]
    fn describe_lists_the_table_with_each_routes_options() {
        let info = table().describe("things", "1.2.3");
        assert_eq!((info.name.as_str(), info.version.as_str()), ("things", "1.2.3"));
        let listed: Vec<_> = info.routes.iter().map(told).collect();
        assert_eq!(
            listed,
            [
                ("GET", "/things", Some("things:read"), Some("things"), Some(30_000)),
                ("POST", "/things", Some("things:write"), Some("things"), None),
                ("GET", "/things/{id}", Some("things:read"), Some("things"), None),
                ("GET", "/things/count", Some("things:read"), Some("things"), None),
                ("PUT", "/things/{id}/tags/{tag}", Some("things:write"), Some("things"), None),
                ("DELETE", "/things/{id}", Some("things:write"), Some("things"), None),
                ("POST", "/admin/things", None, None, None),
                ("OPTIONS", "/public/things/{id}", None, Some("things"), None),
            ]
        );
        let limits = table().body_limits(|method, path, max| (method, path, max));
        assert_eq!(limits, [("POST".to_string(), "/things".to_string(), 64)]);
        assert!(Router::new().get("/x", None, |_, _| Err(Error::not_found("X"))).routes()[0].plan_module.is_none());
    }

    #[test]
    fn each_route_reaches_its_handler_as_the_host_sends_it() {
        let router = table();
        assert_eq!(router.problems(&router.describe("things", "1")), Vec::<String>::new());
        let answers: Vec<(u16, Value)> = router
            .routes()
            .iter()
            .map(|r| {
                let mut req = host_request(r.method, r.pattern);
                req.body = b"abc".to_vec();
                let response = router.handle(&caller(), req);
                (response.status, body(&response))
            })
            .collect();
        let id = "6b052f4b0000138387408ed5";
        assert_eq!(
            answers,
            [
                (200, json!({ "h": "list" })),
                (201, json!({ "h": "create", "bytes": 3 })),
                (200, json!({ "h": "get", "id": id })),
                (200, json!({ "h": "count" })),
                (200, json!({ "h": "tag", "tag": id, "org": "org" })),
                (404, json!({ "success": false, "message": "Thing not found", "code": "NOT_FOUND" })),
                (201, json!({ "h": "admin" })),
                (204, json!({ "h": "preflight" })),
            ]
        );
    }

    #[test]
    fn a_request_no_route_matches_is_404_whatever_its_method() {
        let router = table();
        let route_not_found = json!({ "success": false, "message": "Route not found", "code": "NOT_FOUND" });
        for (method, path) in [
            ("GET", "/nothing"),
            ("PATCH", "/things"),
            ("GET", "/things/a/b"),
            // A literal's path with another method: the host's 405, never a `{id}`.
            ("DELETE", "/things/count"),
            ("get", "/things"),
        ] {
            let mut req = host_request(method, path);
            req.path_params = Vec::new();
            let response = router.handle(&caller(), req);
            assert_eq!((response.status, body(&response)), (404, route_not_found.clone()), "{method} {path}");
        }
        // The host's matching: empty segments ignored, a parameter decoded.
        let mut req = host_request("GET", "/things/");
        req.path = "//things/".into();
        assert_eq!(body(&router.handle(&caller(), req)), json!({ "h": "list" }));
        let req = Request { path: "/things/a%20b".into(), ..host_request("GET", "/things/{id}") };
        assert_eq!(router.find(&req.method, &req.path).map(|r| r.pattern), Some("/things/{id}"));
    }

    #[test]
    fn a_table_that_disagrees_with_describe_or_itself_is_told() {
        let router = table();
        let mut described = router.describe("things", "1");
        described.routes.pop();
        assert_eq!(router.problems(&described).len(), 1, "describe lists one route fewer");
        let twice =
            Router::new()
                .get("/x/{id}", None, |_, _| Err(Error::not_found("X")))
                .get("/x/{key}", None, |_, _| Err(Error::not_found("X")));
        let problems = twice.problems(&twice.describe("x", "1"));
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("declared twice"), "{problems:?}");
        assert!(problems[1].contains("finds Found(0"), "the second is never reached: {problems:?}");
        let open = Router::new().get("/{kind}/x", Some("x:read"), |_, _| Err(Error::not_found("X"))).get(
            "/admin/x",
            None,
            |_, _| Err(Error::not_found("X")),
        );
        let problems = open.problems(&open.describe("x", "1"));
        assert_eq!(problems, ["GET /{kind}/x: a route's first segment must be literal"]);
    }

    #[test]
    #[should_panic(expected = "before any route")]
    fn an_option_before_any_route_is_a_mistake() {
        let _ = Router::new().deadline_ms(1);
    }
}
