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
use crm_sdk::router::{Router, param};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};

struct Automations;

/// Every route, once: what `describe` tells the host and what `handle` runs.
fn routes() -> Router {
    Router::new()
        .get("/automations", Some("automations:read"), |_, req| automation::list(req))
        .get("/automations/{id}", Some("automations:read"), |_, req| automation::get(param(req, "id")))
        .post("/automations", Some("automations:write"), |_, req| automation::save(req, None))
        .put("/automations/{id}", Some("automations:write"), |_, req| automation::save(req, Some(param(req, "id"))))
        // The app's calls: `/admin/orgs/{org}/automations/{id}/...` on the admin API.
        .post("/admin/automations/{id}/activate", None, |_, req| automation::set_status(param(req, "id"), "active"))
        .post("/admin/automations/{id}/pause", None, |_, req| automation::set_status(param(req, "id"), "paused"))
}

impl handler::Guest for Automations {
    fn describe() -> ModuleInfo {
        routes().describe("automations", env!("CARGO_PKG_VERSION"))
    }

    fn handle(caller: Caller, req: Request) -> Response {
        routes().handle(&caller, req)
    }
}

bindings::export!(Automations with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_is_described_once_and_reaches_its_handler() {
        let described = <Automations as handler::Guest>::describe();
        assert_eq!(routes().problems(&described), Vec::<String>::new());
    }
}
