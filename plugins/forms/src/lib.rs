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
use crm_sdk::router::{Router, param};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};

struct Forms;

/// The doors' submit routes: the host refuses a body past
/// [`fields::MAX_BODY`] before reading it ([`route_options`]).
const TOKEN_SUBMIT: &str = "/forms/{id}/submit";
const PUBLIC_SUBMIT: &str = "/public/forms/submit/{id}";

/// Every route, once: what `describe` and `body_limits` tell the host and
/// what `handle` runs.
fn routes() -> Router {
    const MAX_BODY: u32 = fields::MAX_BODY as u32;
    Router::in_plan_module("forms")
        .get("/forms", Some("forms:read"), |_, req| form::list(req))
        .get("/forms/{id}", Some("forms:read"), |_, req| form::get(param(req, "id")))
        .post(TOKEN_SUBMIT, Some("forms:write"), |_, req| submit::submit(req, param(req, "id"), submit::Door::Token))
        .max_body_bytes(MAX_BODY)
        .get("/forms/{id}/submissions", Some("forms:read"), |_, req| submissions::list(req, param(req, "id")))
        .get("/deals", Some("deals:read"), |_, req| deals::list(req))
        .get("/deals/{id}", Some("deals:read"), |_, req| deals::get(param(req, "id")))
        .put("/deals/{id}", Some("deals:write"), |_, req| deals::update(req, param(req, "id")))
        .get("/notifications", Some("notifications:read"), |_, req| notifications::list(req))
        .put("/notifications/{id}", Some("notifications:write"), |_, req| notifications::update(req, param(req, "id")))
        // The public door: `/api/v1/forms/submit/{id}?key=`, no token.
        .post(PUBLIC_SUBMIT, None, |_, req| submit::submit(req, param(req, "id"), submit::Door::Public))
        .max_body_bytes(MAX_BODY)
        .options(PUBLIC_SUBMIT, None, |_, req| cors::preflight(req, param(req, "id")))
        // The app's calls: `/admin/orgs/{org}/forms...` on the admin API.
        .post("/admin/forms", None, |_, req| form::create(req))
        .get("/admin/forms/{id}", None, |_, req| form::admin_get(param(req, "id")))
        .patch("/admin/forms/{id}", None, |_, req| form::update(req, param(req, "id")))
        .post("/admin/forms/{id}/rotate-key", None, |_, req| form::rotate_key(param(req, "id")))
        .post("/admin/notifications", None, |_, req| notifications::create(req))
}

impl route_options::Guest for Forms {
    fn body_limits() -> Vec<BodyLimit> {
        routes().body_limits(|method, path, max_body_bytes| BodyLimit { method, path, max_body_bytes })
    }
}

impl handler::Guest for Forms {
    fn describe() -> ModuleInfo {
        routes().describe("forms", env!("CARGO_PKG_VERSION"))
    }

    fn handle(caller: Caller, req: Request) -> Response {
        // A public id no organization published reaches us unbound.
        if caller.org_id.is_empty() {
            return form::not_found().into_response();
        }
        routes().handle(&caller, req)
    }
}

bindings::export!(Forms with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_is_described_once_and_reaches_its_handler() {
        let described = <Forms as handler::Guest>::describe();
        assert_eq!(routes().problems(&described), Vec::<String>::new());
    }
}
