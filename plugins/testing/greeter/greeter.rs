// The body of the `greeter` test module, shared by `greeter-v1` and
// `greeter-v2`: two builds of one module name that answer their own
// `VERSION`, so a test can swap one for the other under load. Each crate
// defines `VERSION` and includes this file.

crm_sdk::component_bindings!("module", "../../../wit");

use bindings::exports::crm::plugin::handler::Guest;
use crm_sdk::http::json_response;
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};
use serde_json::json;

struct Greeter;

impl Guest for Greeter {
    fn describe() -> ModuleInfo {
        ModuleInfo {
            name: "greeter".into(),
            version: VERSION.into(),
            routes: vec![crm_sdk::route("GET", "/greeter", None, None)],
        }
    }

    fn handle(_caller: Caller, _req: Request) -> Response {
        json_response(200, &json!({ "version": VERSION }))
    }
}

bindings::export!(Greeter with_types_in bindings);
