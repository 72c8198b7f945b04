//! The automations module: "when this happens, call that URL".
//!
//! Layout: [`automation`] the record, what a body may say (drafts only
//! through the API: 403 `AUTOMATION_DRAFT_ONLY`), and the calls: the API's
//! list, read, create and replace, and the app's activate and pause.
//!
//! Only active automations run: activating one stages its subscription (its
//! trigger's events, filtered by `toStage` or `formId`, to each action's URL)
//! with the status change, for the host's outbox, and pausing or saving it
//! withdraws it. The host matches events to subscriptions and delivers them.
//! A webhook URL is checked against the host's rules (`webhooks.check-url`:
//! public `https` only unless the operator allows private addresses) when it
//! is saved.
//!
//! Store keys (scoped by the host to this organization and module):
//! `a/<id>` automations, `meta/automations` their count.

mod automation;

crm_sdk::component_bindings!("webhooks-module", "../../wit");

use bindings::exports::crm::plugin::handler;
use crm_sdk::http::{Error, path_param, respond};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};

struct Automations;

impl handler::Guest for Automations {
    fn describe() -> ModuleInfo {
        let route = |method, path, permission| crm_sdk::route(method, path, permission, None);
        ModuleInfo {
            name: "automations".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            routes: vec![
                route("GET", "/automations", Some("automations:read")),
                route("GET", "/automations/{id}", Some("automations:read")),
                route("POST", "/automations", Some("automations:write")),
                route("PUT", "/automations/{id}", Some("automations:write")),
                // The app's calls: `/admin/orgs/{org}/automations/{id}/...` on the admin API.
                route("POST", "/admin/automations/{id}/activate", None),
                route("POST", "/admin/automations/{id}/pause", None),
            ],
        }
    }

    fn handle(_caller: Caller, req: Request) -> Response {
        let id = path_param(&req, "id").unwrap_or_default().to_string();
        let path: Vec<&str> = req.path.trim_start_matches('/').split('/').collect();
        respond(match (req.method.as_str(), path.as_slice()) {
            ("GET", ["automations"]) => automation::list(&req),
            ("GET", ["automations", _]) => automation::get(&id),
            ("POST", ["automations"]) => automation::save(&req, None),
            ("PUT", ["automations", _]) => automation::save(&req, Some(&id)),
            ("POST", ["admin", "automations", _, "activate"]) => automation::set_status(&id, "active"),
            ("POST", ["admin", "automations", _, "pause"]) => automation::set_status(&id, "paused"),
            _ => Err(Error::not_found("Route")),
        })
    }
}

bindings::export!(Automations with_types_in bindings);
