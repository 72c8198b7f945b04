//! The forms module: how leads reach the CRM from the web.
//!
//! Layout: [`form`] the form records and the app's calls on them (create,
//! read, change, rotate the public key) and the API's reads; [`fields`] what
//! a site posts (JSON or an HTML form's urlencoded or multipart body) read
//! into a contact body, the first touch and the extra fields; [`first_touch`]
//! the attribution a submission gives its contact; [`submit`] the
//! one submission rule behind both doors (the token door
//! `POST /forms/{id}/submit` and the public door
//! `POST /api/v1/forms/submit/{id}?key=`); [`dedupe`] the double click and
//! the sweep of its expired answers; [`cors`] what browsers are told;
//! [`submissions`], [`deals`] and [`notifications`] (the team's) what a
//! submission leaves behind, with their lists.
//!
//! A submission becomes a contact only through the contacts module's upsert
//! (lookup, strict location, plan limit, id documents stay there), joined to
//! the submission's own commit (`contacts-joined`: its writes wait for this
//! module's commit, `host/runtime/src/deferred.rs`): the contact, the
//! submission, its deal and its notifications in one commit per lead. The
//! city rule stays in the catalog.
//!
//! Each accepted submission emits `form.submitted`. Deals move between the
//! stages of the default deal pipeline ([`deals`], `PUT /deals/{id}`), each
//! move emitting `deal.stage_changed`.
//!
//! Store keys (scoped by the host to this organization and module):
//! `f/<id>` forms, `s/<formId>/<id>` submissions, `d/<id>` deals with their
//! indexes `dc/<contactId>/<id>` and `ds/<stage>/<id>`, `open/<contactId>/<formId>`
//! the open deal of a contact and form, `n/<id>` notifications,
//! `dd/<formId>/<period>/<hash>` recent answers (double clicks) by the 30 s
//! period of their commit, `meta/...` counters.

mod cors;
mod deals;
mod dedupe;
mod fields;
mod first_touch;
mod form;
mod notifications;
mod submissions;
mod submit;

crm_sdk::component_bindings!("public-module", "../../wit");

use bindings::exports::crm::plugin::handler;
use bindings::exports::crm::plugin::route_options::{self, BodyLimit};
use crm_sdk::http::{Error, path_param, respond};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response, Route};

struct Forms;

fn route(method: &str, path: &str, permission: Option<&str>) -> Route {
    crm_sdk::route(method, path, permission, Some("forms"))
}

/// The doors' submit routes: the host refuses a body past
/// [`fields::MAX_BODY`] before reading it ([`route_options`]).
const TOKEN_SUBMIT: &str = "/forms/{id}/submit";
const PUBLIC_SUBMIT: &str = "/public/forms/submit/{id}";

impl route_options::Guest for Forms {
    fn body_limits() -> Vec<BodyLimit> {
        let limit = |path: &str| BodyLimit {
            method: "POST".into(),
            path: path.into(),
            max_body_bytes: fields::MAX_BODY as u32,
        };
        vec![limit(TOKEN_SUBMIT), limit(PUBLIC_SUBMIT)]
    }
}

impl handler::Guest for Forms {
    fn describe() -> ModuleInfo {
        ModuleInfo {
            name: "forms".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            routes: vec![
                route("GET", "/forms", Some("forms:read")),
                route("GET", "/forms/{id}", Some("forms:read")),
                route("POST", TOKEN_SUBMIT, Some("forms:write")),
                route("GET", "/forms/{id}/submissions", Some("forms:read")),
                route("GET", "/deals", Some("deals:read")),
                route("GET", "/deals/{id}", Some("deals:read")),
                route("PUT", "/deals/{id}", Some("deals:write")),
                route("GET", "/notifications", Some("notifications:read")),
                route("PUT", "/notifications/{id}", Some("notifications:write")),
                // The public door: `/api/v1/forms/submit/{id}?key=`, no token.
                route("POST", PUBLIC_SUBMIT, None),
                route("OPTIONS", PUBLIC_SUBMIT, None),
                // The app's calls: `/admin/orgs/{org}/forms...` on the admin API.
                route("POST", "/admin/forms", None),
                route("GET", "/admin/forms/{id}", None),
                route("PATCH", "/admin/forms/{id}", None),
                route("POST", "/admin/forms/{id}/rotate-key", None),
                route("POST", "/admin/notifications", None),
            ],
        }
    }

    fn handle(caller: Caller, req: Request) -> Response {
        let id = path_param(&req, "id").unwrap_or_default().to_string();
        // A public id no organization published reaches us unbound.
        if caller.org_id.is_empty() {
            return form::not_found().into_response();
        }
        let path: Vec<&str> = req.path.trim_start_matches('/').split('/').collect();
        respond(match (req.method.as_str(), path.as_slice()) {
            ("GET", ["forms"]) => form::list(&req),
            ("GET", ["forms", _]) => form::get(&id),
            ("POST", ["forms", _, "submit"]) => submit::submit(&req, &id, submit::Door::Token),
            ("GET", ["forms", _, "submissions"]) => submissions::list(&req, &id),
            ("GET", ["deals"]) => deals::list(&req),
            ("GET", ["deals", _]) => deals::get(&id),
            ("PUT", ["deals", _]) => deals::update(&req, &id),
            ("GET", ["notifications"]) => notifications::list(&req),
            ("PUT", ["notifications", _]) => notifications::update(&req, &id),
            ("POST", ["public", "forms", "submit", _]) => submit::submit(&req, &id, submit::Door::Public),
            ("OPTIONS", ["public", "forms", "submit", _]) => cors::preflight(&req, &id),
            ("POST", ["admin", "forms"]) => form::create(&req),
            ("GET", ["admin", "forms", _]) => form::admin_get(&id),
            ("PATCH", ["admin", "forms", _]) => form::update(&req, &id),
            ("POST", ["admin", "forms", _, "rotate-key"]) => form::rotate_key(&id),
            ("POST", ["admin", "notifications"]) => notifications::create(&req),
            _ => Err(Error::not_found("Route")),
        })
    }
}

bindings::export!(Forms with_types_in bindings);
