//! A partner's module, written from `wit/` alone: one route, `GET /hello`, that
//! greets the caller's organization and counts calls in its own store. It adds
//! a route and replaces no first-party module.

crm_sdk::component_bindings!("module", "../../../wit");

use bindings::exports::crm::plugin::handler::Guest;
use crm_sdk::http::{Error, json_response, respond};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response, Route};
use crm_sdk::{kv, runtime};

struct PartnerHello;

impl Guest for PartnerHello {
    fn describe() -> ModuleInfo {
        ModuleInfo {
            name: "partner-hello".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            routes: vec![Route {
                method: "GET".into(),
                path: "/hello".into(),
                permission: Some("hello:read".into()),
                module: None,
                deadline_ms: None,
            }],
        }
    }

    fn handle(caller: Caller, _req: Request) -> Response {
        respond((|| {
            let calls: u64 = kv::get("calls")?.unwrap_or(0) + 1;
            kv::put("calls", &calls)?;
            Ok::<_, Error>(json_response(
                200,
                &serde_json::json!({ "success": true, "hello": caller.org_id, "calls": calls, "at": runtime::now() }),
            ))
        })())
    }
}

bindings::export!(PartnerHello with_types_in bindings);
