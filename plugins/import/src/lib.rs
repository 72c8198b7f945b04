//! The import module: a spreadsheet of contacts becomes contacts.
//!
//! Layout: [`rows`] reads a call (JSON `{rows, dryRun, locationMode}` or
//! `text/csv`, read by `crm-text-decoding`'s rule, with the options in the
//! query) into row bodies; [`report`]
//! sends them, in order, through the contacts module's `upsert-many` (the
//! one upsert rule: lookup, location, id documents, plan limit) and tallies
//! what each became; [`history`] keeps every import (dry runs too) for
//! `GET /import/contacts`.
//!
//! The dry run and the lenient city are the contacts module's
//! (`contacts/src/batch.rs`, `location.rs`): this module passes `dryRun` and
//! `locationMode` on to `upsert-many`.
//!
//! Store keys (scoped by the host to this organization and module):
//! `i/<id>` an import's summary, `i-rows/<id>/<n>` its warnings and rejected
//! rows in pages, `meta/imports` the count.

mod history;
mod report;
mod rows;

crm_sdk::component_bindings!("import-module", "../../wit");

use bindings::exports::crm::plugin::handler;
use bindings::exports::crm::plugin::route_options::{self, BodyLimit};
use crm_sdk::router::{Router, param};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};

struct Import;

/// An import's own body limit: 10,000 rows of a wide spreadsheet.
pub const MAX_BODY: u32 = 16 << 20;

/// Every route, once: what `describe` and `body_limits` tell the host and
/// what `handle` runs.
fn routes() -> Router {
    Router::in_plan_module("import")
        .post("/import/contacts", Some("contacts:write"), |_, req| rows::read(req).and_then(report::run))
        .deadline_ms(180_000)
        .max_body_bytes(MAX_BODY)
        .get("/import/contacts", Some("contacts:read"), |_, req| history::list(req))
        .get("/import/contacts/{id}", Some("contacts:read"), |_, req| history::get(param(req, "id")))
}

impl handler::Guest for Import {
    fn describe() -> ModuleInfo {
        routes().describe("import", env!("CARGO_PKG_VERSION"))
    }

    fn handle(caller: Caller, req: Request) -> Response {
        routes().handle(&caller, req)
    }
}

impl route_options::Guest for Import {
    fn body_limits() -> Vec<BodyLimit> {
        routes().body_limits(|method, path, max_body_bytes| BodyLimit { method, path, max_body_bytes })
    }
}

bindings::export!(Import with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_is_described_once_and_reaches_its_handler() {
        let described = <Import as handler::Guest>::describe();
        assert_eq!(routes().problems(&described), Vec::<String>::new());
    }
}
