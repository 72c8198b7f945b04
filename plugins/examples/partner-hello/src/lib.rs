//! A partner's module, written from `wit/` alone: one route, `GET /hello`, that
//! greets the caller's organization and counts calls in its own store. It adds
//! a route and replaces no first-party module.

crm_sdk::component_bindings!("module", "../../../wit");

use bindings::exports::crm::plugin::handler::Guest;
use crm_sdk::http::{Error, json_response};
use crm_sdk::router::Router;
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};
use crm_sdk::{kv, runtime};

struct PartnerHello;

/// Its one route, with its handler: what `describe` tells the host and what
/// `handle` runs.
fn routes() -> Router {
    Router::new().get("/hello", Some("hello:read"), |caller, _| hello(caller))
}

/// `GET /hello`: the caller's organization, and the calls counted so far.
fn hello(caller: &Caller) -> Result<Response, Error> {
    let calls: u64 = kv::get("calls")?.unwrap_or(0) + 1;
    kv::put("calls", &calls)?;
    Ok(json_response(
        200,
        &serde_json::json!({ "success": true, "hello": caller.org_id, "calls": calls, "at": runtime::now() }),
    ))
}

impl Guest for PartnerHello {
    fn describe() -> ModuleInfo {
        routes().describe("partner-hello", env!("CARGO_PKG_VERSION"))
    }

    fn handle(caller: Caller, req: Request) -> Response {
        routes().handle(&caller, req)
    }
}

bindings::export!(PartnerHello with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_is_described_once_and_reaches_its_handler() {
        let described = <PartnerHello as Guest>::describe();
        assert_eq!(routes().problems(&described), Vec::<String>::new());
    }
}
