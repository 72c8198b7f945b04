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
use crm_sdk::router::{Router, param};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};

/// Calls that reach a provider may wait on it for the provider timeout (25 s
/// by default, at most 55 s), so they get a longer deadline than the host's.
const PROVIDER_ROUTE_DEADLINE_MS: u32 = 60_000;

struct Shipments;

/// Every route, once: what `describe` tells the host and what `handle` runs.
fn routes() -> Router {
    Router::in_plan_module("shipping")
        .get("/shipments", Some("shipments:read"), |_, req| list::list(req))
        .post("/shipments/rates", Some("shipments:read"), |_, req| rates::quote(req))
        .deadline_ms(PROVIDER_ROUTE_DEADLINE_MS)
        .post("/shipments", Some("shipments:write"), |_, req| generate::generate(req))
        .deadline_ms(PROVIDER_ROUTE_DEADLINE_MS)
        .get("/shipments/{id}", Some("shipments:read"), |_, req| list::get(param(req, "id")))
        .post("/shipments/{id}/track", Some("shipments:write"), |_, req| follow::track(param(req, "id")))
        .deadline_ms(PROVIDER_ROUTE_DEADLINE_MS)
        .post("/shipments/{id}/cancel", Some("shipments:write"), |_, req| follow::cancel(param(req, "id")))
        .deadline_ms(PROVIDER_ROUTE_DEADLINE_MS)
        // Served on the admin API as PUT /admin/orgs/{org}/shipping/origin.
        .put("/admin/shipping/origin", None, |_, req| origin::put(req))
        .plan_module(None)
}

impl handler::Guest for Shipments {
    fn describe() -> ModuleInfo {
        routes().describe("shipments", env!("CARGO_PKG_VERSION"))
    }

    fn handle(caller: Caller, req: Request) -> Response {
        routes().handle(&caller, req)
    }
}

bindings::export!(Shipments with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_is_described_once_and_reaches_its_handler() {
        let described = <Shipments as handler::Guest>::describe();
        assert_eq!(routes().problems(&described), Vec::<String>::new());
    }
}
