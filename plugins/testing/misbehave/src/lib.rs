//! A module that misbehaves on purpose, for the host's containment tests:
//! `GET /misbehave/loop` never returns (its deadline, 300 ms, ends it; `/misbehave/spin`
//! the same for 3 s), `/misbehave/alloc` allocates without end,
//! `/misbehave/trap` traps, `/misbehave/ok` answers with the header names it was given,
//! and `POST /misbehave/small` takes a body of at most [`SMALL`] bytes (its
//! own limit, through `route-options`). Tests only; never embedded.

crm_sdk::component_bindings!("module-with-options", "../../../wit");

use bindings::exports::crm::plugin::handler::Guest;
use bindings::exports::crm::plugin::route_options::{self, BodyLimit};
use crm_sdk::http::json_response;
use crm_sdk::types::{Caller, ModuleInfo, Request, Response, Route};

struct Misbehave;

/// The body limit of `POST /misbehave/small`.
const SMALL: u32 = 64;

fn route(path: &str, deadline_ms: Option<u32>) -> Route {
    Route { method: "GET".into(), path: path.into(), permission: None, module: None, deadline_ms }
}

impl Guest for Misbehave {
    fn describe() -> ModuleInfo {
        ModuleInfo {
            name: "misbehave".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            routes: vec![
                route("/misbehave/loop", Some(300)),
                route("/misbehave/spin", Some(3000)),
                route("/misbehave/alloc", None),
                route("/misbehave/trap", None),
                route("/misbehave/ok", None),
                Route { method: "POST".into(), ..route("/misbehave/small", None) },
            ],
        }
    }

    fn handle(_caller: Caller, req: Request) -> Response {
        match req.path.as_str() {
            "/misbehave/loop" | "/misbehave/spin" => {
                let mut n: u64 = 0;
                loop {
                    n = std::hint::black_box(n.wrapping_add(1));
                }
            }
            "/misbehave/alloc" => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(vec![1u8; 1 << 20]);
                    std::hint::black_box(&hoard);
                }
            }
            "/misbehave/trap" => unreachable!("trap on purpose"),
            "/misbehave/small" => json_response(200, &serde_json::json!({ "ok": true, "bytes": req.body.len() })),
            _ => {
                let headers: Vec<&str> = req.headers.iter().map(|(k, _)| k.as_str()).collect();
                json_response(200, &serde_json::json!({ "ok": true, "headers": headers }))
            }
        }
    }
}

impl route_options::Guest for Misbehave {
    fn body_limits() -> Vec<BodyLimit> {
        vec![BodyLimit { method: "POST".into(), path: "/misbehave/small".into(), max_body_bytes: SMALL }]
    }
}

bindings::export!(Misbehave with_types_in bindings);
