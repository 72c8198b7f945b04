//! The shipments module: quotes, labels with idempotency keys, tracking and
//! cancellation, through the provider components the host reaches for it.
//! It reaches providers only through the host's `shipping` import.
//!
//! Layout: [`generate`] the label and its idempotency rules (the heart of the
//! module), [`claims`] the compare-and-swap records behind them, [`rates`]
//! quotes, [`follow`] track and cancel, [`tracking`] the one rule that applies
//! a provider's tracking to a shipment (API, webhook and scheduler), [`sink`]
//! the `tracking-sink` export the host calls for tracking webhooks and its
//! scheduler's rounds, [`lock`] one writer per shipment, [`list`] reads,
//! [`input`] bodies, [`destination`] the destination address and its
//! city rules, [`origin`] the sender, [`answer`] the error answers, [`record`]
//! the stored shipment and its indexes.
//!
//! Store keys (scoped by the host to this organization and module):
//! `s/<id>` shipments, `c/<contact>/<id>` and `st/<status>/<id>` list indexes,
//! `tn/<provider>/<tracking number>` → id, `k/<key>` idempotency claims,
//! `w/<contact>` the keyless window, `busy/<id>` a shipment's writer,
//! `ev/<provider>/<event id>` webhook events seen, `origin`, `refresh/cursor`.

mod answer;
mod claims;
mod destination;
mod follow;
mod generate;
mod input;
mod list;
mod lock;
mod origin;
mod rates;
mod record;
mod sink;
mod tracking;

crm_sdk::component_bindings!("shipments-module", "../../wit");

use bindings::exports::crm::plugin::handler;
use crm_sdk::http::{path_param, respond};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response, Route};

/// Calls that reach a provider may wait on it for the provider timeout (25 s
/// by default, at most 55 s), so they get a longer deadline than the host's.
const PROVIDER_ROUTE_DEADLINE_MS: u32 = 60_000;

struct Shipments;

fn route(method: &str, path: &str, permission: Option<&str>, provider: bool) -> Route {
    let module = permission.map(|_| "shipping");
    Route {
        deadline_ms: provider.then_some(PROVIDER_ROUTE_DEADLINE_MS),
        ..crm_sdk::route(method, path, permission, module)
    }
}

impl handler::Guest for Shipments {
    fn describe() -> ModuleInfo {
        ModuleInfo {
            name: "shipments".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            routes: vec![
                route("GET", "/shipments", Some("shipments:read"), false),
                route("POST", "/shipments/rates", Some("shipments:read"), true),
                route("POST", "/shipments", Some("shipments:write"), true),
                route("GET", "/shipments/{id}", Some("shipments:read"), false),
                route("POST", "/shipments/{id}/track", Some("shipments:write"), true),
                route("POST", "/shipments/{id}/cancel", Some("shipments:write"), true),
                // Served on the admin API as PUT /admin/orgs/{org}/shipping/origin.
                route("PUT", "/admin/shipping/origin", None, false),
            ],
        }
    }

    fn handle(_caller: Caller, req: Request) -> Response {
        let id = path_param(&req, "id").unwrap_or_default().to_string();
        respond(match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/shipments") => list::list(&req),
            ("POST", "/shipments/rates") => rates::quote(&req),
            ("POST", "/shipments") => generate::generate(&req),
            ("PUT", "/admin/shipping/origin") => origin::put(&req),
            ("GET", _) => list::get(&id),
            ("POST", p) if p.ends_with("/track") => follow::track(&id),
            ("POST", p) if p.ends_with("/cancel") => follow::cancel(&id),
            _ => Err(crm_sdk::http::Error::not_found("Route")),
        })
    }
}

bindings::export!(Shipments with_types_in bindings);
