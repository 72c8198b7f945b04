//! A module built from a never-published text of the contract (`wit/`): its
//! route has a field (`max-body-bytes`) and its store a function (`vacuum`) no
//! published version has. `crm-host plugin check` and the host's refusal must
//! name what drifted. Tests only.

wit_bindgen::generate!({ path: "wit", world: "drifted" });

use crm::plugin::store;
use crm::plugin::types::{Caller, ModuleInfo, Request, Response, Route};
use exports::crm::plugin::handler::Guest;

struct Drifted;

impl Guest for Drifted {
    fn describe() -> ModuleInfo {
        let route = Route {
            method: "GET".into(),
            path: "/drifted".into(),
            permission: None,
            module: None,
            deadline_ms: None,
            max_body_bytes: Some(1024),
        };
        ModuleInfo { name: "drifted".into(), version: env!("CARGO_PKG_VERSION").into(), routes: vec![route] }
    }

    fn handle(_caller: Caller, _req: Request) -> Response {
        let status = match (store::get(b"k"), store::vacuum()) {
            (Ok(_), Ok(())) => 200,
            _ => 500,
        };
        Response { status, headers: Vec::new(), body: Vec::new() }
    }
}

export!(Drifted);
