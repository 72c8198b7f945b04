//! The pipelines module: ordered stages that deals and conversations move
//! through.
//!
//! Layout: [`pipeline`] the pipelines themselves: every organization's two
//! defaults (stages and ids from `crm-first-party`, never stored, so the forms
//! module names the same default deal pipeline), the ones the app creates,
//! and the API's list and read; [`conversation_stage`] where each
//! conversation stands and the move between stages, which emits
//! `conversation.stage_entered` in the move's own commit.
//!
//! A stage of a conversation pipeline may have a `webhookUrl`: creating the
//! pipeline stages one subscription per such stage, in the same commit, so
//! the host delivers each conversation entering it there. Deals move through
//! the default deal pipeline in the forms module (`PUT /deals/{id}`).
//!
//! Store keys (scoped by the host to this organization and module):
//! `p/<id>` created pipelines, `meta/pipelines` their count,
//! `cs/<conversation id>` a conversation's stage.

mod conversation_stage;
mod pipeline;

crm_sdk::component_bindings!("pipelines-module", "../../wit");

use bindings::exports::crm::plugin::handler;
use crm_sdk::router::{Router, param};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};

struct Pipelines;

/// Every route, once: what `describe` tells the host and what `handle` runs.
fn routes() -> Router {
    Router::new()
        .get("/pipelines", Some("pipelines:read"), |_, req| pipeline::list(req))
        .get("/pipelines/{id}", Some("pipelines:read"), |_, req| pipeline::get(param(req, "id")))
        .get("/conversations/{id}/stage", Some("conversations:read"), |_, req| {
            conversation_stage::get(param(req, "id"))
        })
        .put("/conversations/{id}/stage", Some("conversations:write"), |_, req| {
            conversation_stage::set(req, param(req, "id"))
        })
        // The app's call: `POST /admin/orgs/{org}/pipelines` on the admin API.
        .post("/admin/pipelines", None, |_, req| pipeline::create(req))
}

impl handler::Guest for Pipelines {
    fn describe() -> ModuleInfo {
        routes().describe("pipelines", env!("CARGO_PKG_VERSION"))
    }

    fn handle(caller: Caller, req: Request) -> Response {
        routes().handle(&caller, req)
    }
}

bindings::export!(Pipelines with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_is_described_once_and_reaches_its_handler() {
        let described = <Pipelines as handler::Guest>::describe();
        assert_eq!(routes().problems(&described), Vec::<String>::new());
    }
}
