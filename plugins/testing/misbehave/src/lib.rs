//! A module that misbehaves on purpose, for the host's containment tests:
//! `GET /misbehave/loop` never returns (its deadline, 300 ms, ends it; `/misbehave/spin`
//! the same for 3 s), `/misbehave/alloc` allocates without end,
//! `/misbehave/trap` traps, `/misbehave/ok` answers with the header names it was given,
//! and `POST /misbehave/small` takes a body of at most [`SMALL`] bytes (its
//! own limit, through `route-options`). Tests only; never embedded.

crm_sdk::component_bindings!("module-with-options", "../../../wit");

use bindings::exports::crm::plugin::handler::Guest;
use bindings::exports::crm::plugin::route_options::{self, BodyLimit};
use crm_sdk::http::{Error, json_response};
use crm_sdk::router::Router;
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};

struct Misbehave;

/// The body limit of `POST /misbehave/small`.
const SMALL: u32 = 64;

/// Every route, once: what `describe` and `body_limits` tell the host and
/// what `handle` runs.
fn routes() -> Router {
    Router::new()
        .get("/misbehave/loop", None, spin)
        .deadline_ms(300)
        .get("/misbehave/spin", None, spin)
        .deadline_ms(3000)
        .get("/misbehave/alloc", None, |_, _| {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 1 << 20]);
                std::hint::black_box(&hoard);
            }
        })
        .get("/misbehave/trap", None, |_, _| unreachable!("trap on purpose"))
        .get("/misbehave/ok", None, |_, req| {
            let headers: Vec<&str> = req.headers.iter().map(|(k, _)| k.as_str()).collect();
            Ok(json_response(200, &serde_json::json!({ "ok": true, "headers": headers })))
        })
        .post("/misbehave/small", None, |_, req| {
            Ok(json_response(200, &serde_json::json!({ "ok": true, "bytes": req.body.len() })))
        })
        .max_body_bytes(SMALL)
}

/// Never returns: the route's deadline ends it.
fn spin(_: &Caller, _: &mut Request) -> Result<Response, Error> {
    let mut n: u64 = 0;
    loop {
        n = std::hint::black_box(n.wrapping_add(1));
    }
}

impl Guest for Misbehave {
    fn describe() -> ModuleInfo {
        routes().describe("misbehave", env!("CARGO_PKG_VERSION"))
    }

    fn handle(caller: Caller, req: Request) -> Response {
        routes().handle(&caller, req)
    }
}

impl route_options::Guest for Misbehave {
    fn body_limits() -> Vec<BodyLimit> {
        routes().body_limits(|method, path, max_body_bytes| BodyLimit { method, path, max_body_bytes })
    }
}

bindings::export!(Misbehave with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_is_described_once_and_reaches_its_handler() {
        let described = <Misbehave as Guest>::describe();
        assert_eq!(routes().problems(&described), Vec::<String>::new());
    }
}
