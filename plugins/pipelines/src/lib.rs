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
use crm_sdk::http::{Error, path_param, respond};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};

struct Pipelines;

impl handler::Guest for Pipelines {
    fn describe() -> ModuleInfo {
        let route = |method, path, permission| crm_sdk::route(method, path, permission, None);
        ModuleInfo {
            name: "pipelines".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            routes: vec![
                route("GET", "/pipelines", Some("pipelines:read")),
                route("GET", "/pipelines/{id}", Some("pipelines:read")),
                route("GET", "/conversations/{id}/stage", Some("conversations:read")),
                route("PUT", "/conversations/{id}/stage", Some("conversations:write")),
                // The app's call: `POST /admin/orgs/{org}/pipelines` on the admin API.
                route("POST", "/admin/pipelines", None),
            ],
        }
    }

    fn handle(_caller: Caller, req: Request) -> Response {
        let id = path_param(&req, "id").unwrap_or_default().to_string();
        let path: Vec<&str> = req.path.trim_start_matches('/').split('/').collect();
        respond(match (req.method.as_str(), path.as_slice()) {
            ("GET", ["pipelines"]) => pipeline::list(&req),
            ("GET", ["pipelines", _]) => pipeline::get(&id),
            ("POST", ["admin", "pipelines"]) => pipeline::create(&req),
            ("GET", ["conversations", _, "stage"]) => conversation_stage::get(&id),
            ("PUT", ["conversations", _, "stage"]) => conversation_stage::set(&req, &id),
            _ => Err(Error::not_found("Route")),
        })
    }
}

bindings::export!(Pipelines with_types_in bindings);
