//! `__NAME__`: a module for the CRM, built against `crm:plugin@__WIT_VERSION__`
//! (`wit/plugin.wit`, the contract's published text). It serves
//! `GET /api/__NAME__` and counts its calls in the organization's store.
//!
//! The host has checked the token, the organization and the permission
//! before `handle` runs; the store is already scoped to the organization
//! and to this module. Each call runs in a fresh instance with a deadline
//! and a memory cap.

mod bindings {
    wit_bindgen::generate!({ path: "wit", world: "module" });
}

use bindings::crm::plugin::store;
use bindings::crm::plugin::types::{Caller, ModuleInfo, Request, Response, Route};
use bindings::exports::crm::plugin::handler::Guest;

struct Module;

/// The calls counted so far, from the store's value (none: no call yet).
fn calls_after(stored: Option<&[u8]>) -> u64 {
    stored.and_then(|v| std::str::from_utf8(v).ok()).and_then(|v| v.parse().ok()).unwrap_or(0) + 1
}

fn json(status: u16, body: String) -> Response {
    Response { status, headers: vec![("content-type".into(), "application/json".into())], body: body.into_bytes() }
}

impl Guest for Module {
    fn describe() -> ModuleInfo {
        let route = Route {
            method: "GET".into(),
            path: "/__NAME__".into(),
            // The permission a token needs (e.g. `__NAME__:read`); none: any token.
            permission: None,
            module: None,
            deadline_ms: None,
        };
        ModuleInfo { name: "__NAME__".into(), version: env!("CARGO_PKG_VERSION").into(), routes: vec![route] }
    }

    // One route, so `handle` serves it without reading the path. With more,
    // keep each route once, beside its handler, and build `describe` from
    // that list; `handle` finds the route again by the host's rule (the
    // partner guide, "Which route `handle` serves").
    fn handle(caller: Caller, _request: Request) -> Response {
        let counted = store::get(b"calls").map(|v| calls_after(v.as_deref()));
        let stored = counted.and_then(|calls| store::put(b"calls", calls.to_string().as_bytes()).map(|()| calls));
        match stored {
            // Organization ids are 24 hex characters: nothing to escape.
            Ok(calls) => json(200, format!(r#"{{"success":true,"organization":"{}","calls":{calls}}}"#, caller.org_id)),
            Err(_) => json(500, r#"{"success":false,"message":"The store failed"}"#.into()),
        }
    }
}

bindings::export!(Module with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_count_on_from_what_the_store_holds() {
        assert_eq!(calls_after(None), 1);
        assert_eq!(calls_after(Some(b"41")), 42);
        assert_eq!(calls_after(Some(b"not a number")), 1);
    }
}
