// The body of the `greeter` test module, shared by `greeter-v1` and
// `greeter-v2`: two builds of one module name that answer their own
// `VERSION`, so a test can swap one for the other under load. Each crate
// defines `VERSION` and includes this file.

crm_sdk::component_bindings!("module", "../../../wit");

use bindings::exports::crm::plugin::handler::Guest;
use crm_sdk::http::json_response;
use crm_sdk::router::Router;
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};
use serde_json::json;

struct Greeter;

/// Its one route: `GET /greeter`, the version that answers.
fn routes() -> Router {
    Router::new().get("/greeter", None, |_, _| Ok(json_response(200, &json!({ "version": VERSION }))))
}

impl Guest for Greeter {
    fn describe() -> ModuleInfo {
        routes().describe("greeter", VERSION)
    }

    fn handle(caller: Caller, req: Request) -> Response {
        routes().handle(&caller, req)
    }
}

bindings::export!(Greeter with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_is_described_once_and_reaches_its_handler() {
        let described = <Greeter as Guest>::describe();
        assert_eq!(routes().problems(&described), Vec::<String>::new());
    }
}
