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
use crm_sdk::http::{Error, path_param, respond};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response, Route};

struct Import;

/// An import's own body limit: 10,000 rows of a wide spreadsheet.
pub const MAX_BODY: u32 = 16 << 20;

fn route(method: &str, path: &str, permission: &str) -> Route {
    crm_sdk::route(method, path, Some(permission), Some("import"))
}

impl handler::Guest for Import {
    fn describe() -> ModuleInfo {
        ModuleInfo {
            name: "import".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            routes: vec![
                Route { deadline_ms: Some(180_000), ..route("POST", "/import/contacts", "contacts:write") },
                route("GET", "/import/contacts", "contacts:read"),
                route("GET", "/import/contacts/{id}", "contacts:read"),
            ],
        }
    }

    fn handle(_caller: Caller, mut req: Request) -> Response {
        let (method, path) = (req.method.clone(), req.path.clone());
        respond(match (method.as_str(), path.as_str()) {
            ("POST", "/import/contacts") => rows::read(&mut req).and_then(report::run),
            ("GET", "/import/contacts") => history::list(&req),
            ("GET", _) => history::get(path_param(&req, "id").unwrap_or_default()),
            _ => Err(Error::not_found("Route")),
        })
    }
}

impl route_options::Guest for Import {
    fn body_limits() -> Vec<BodyLimit> {
        vec![BodyLimit { method: "POST".into(), path: "/import/contacts".into(), max_body_bytes: MAX_BODY }]
    }
}

bindings::export!(Import with_types_in bindings);
