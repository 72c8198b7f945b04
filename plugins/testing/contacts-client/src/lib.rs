//! A module of the `module-using-contacts` world: `POST /contacts-client/upsert`
//! forwards its body to the contacts module's `upsert` and answers with the
//! outcome; `GET /contacts-client/{id}` answers with the contacts module's `get`.

crm_sdk::component_bindings!("module-using-contacts", "../../../wit");

use bindings::crm::plugin::contacts;
use bindings::exports::crm::plugin::handler::Guest;
use crm_sdk::http::{json_response, path_param};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response, Route};
use serde_json::{Value, json};

struct ContactsClient;

fn route(method: &str, path: &str) -> Route {
    Route {
        method: method.into(),
        path: path.into(),
        permission: None,
        module: None,
        deadline_ms: None,
        max_body_bytes: None,
    }
}

impl Guest for ContactsClient {
    fn describe() -> ModuleInfo {
        ModuleInfo {
            name: "contacts-client".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            routes: vec![route("POST", "/contacts-client/upsert"), route("GET", "/contacts-client/{id}")],
        }
    }

    fn handle(_caller: Caller, req: Request) -> Response {
        if req.method == "POST" {
            let outcome = contacts::upsert(&String::from_utf8_lossy(&req.body));
            let body: Value = serde_json::from_str(&outcome.body).unwrap_or(Value::Null);
            return json_response(
                200,
                &json!({ "status": outcome.status, "contactId": outcome.contact_id, "body": body }),
            );
        }
        match contacts::get(path_param(&req, "id").unwrap_or_default()) {
            Some(contact) => json_response(200, &serde_json::from_str::<Value>(&contact).unwrap_or(Value::Null)),
            None => json_response(404, &json!({ "found": false })),
        }
    }
}

bindings::export!(ContactsClient with_types_in bindings);
