//! A contacts module that traps on purpose, for the host's containment of a
//! trap in `upsert-many` (an import): it replaces the first-party `contacts`
//! module from a plugins dir. A body whose `idNumber` starts with `TRAP`
//! panics (with the body in the panic message, which must never reach the
//! host's log); any other body with an `email` is stored as `c/<email>`,
//! three bodies to a commit, as the real module commits a chunk of rows at
//! a time. `GET /contacts` lists the stored emails. Tests only; never embedded.

crm_sdk::component_bindings!("contacts-provider", "../../../wit");

use bindings::crm::plugin::upsert_progress;
use bindings::exports::crm::plugin::{contacts, contacts_upkeep, handler};
use crm_sdk::http::json_response;
use crm_sdk::router::Router;
use crm_sdk::store;
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};
use serde_json::{Value, json};

/// Bodies committed together.
const CHUNK: usize = 3;

struct Fragile;

/// Its one route: `GET /contacts`, the stored emails.
fn routes() -> Router {
    Router::new().get("/contacts", Some("contacts:read"), |_, _| {
        let stored = store::scan(b"c/", None, 1000).unwrap_or_default();
        let emails: Vec<String> = stored.iter().map(|(_, v)| String::from_utf8_lossy(v).into_owned()).collect();
        Ok(json_response(200, &json!({ "success": true, "emails": emails })))
    })
}

impl handler::Guest for Fragile {
    fn describe() -> ModuleInfo {
        routes().describe("contacts", env!("CARGO_PKG_VERSION"))
    }

    fn handle(caller: Caller, req: Request) -> Response {
        routes().handle(&caller, req)
    }
}

/// What an `upsert-many` body becomes: a stored email, or a 400.
fn prepare(body: &str) -> Result<String, contacts::UpsertOutcome> {
    let parsed: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    if parsed.get("idNumber").and_then(Value::as_str).is_some_and(|n| n.starts_with("TRAP")) {
        panic!("trapping on purpose on the body {body}");
    }
    let refused = |message: &str| contacts::UpsertOutcome {
        status: 400,
        contact_id: None,
        body: json!({ "success": false, "code": "VALIDATION_ERROR", "message": message }).to_string(),
    };
    parsed.get("email").and_then(Value::as_str).map(str::to_string).ok_or_else(|| refused("email is required"))
}

fn created() -> contacts::UpsertOutcome {
    contacts::UpsertOutcome {
        status: 201,
        contact_id: None,
        body: json!({ "success": true, "message": "created" }).to_string(),
    }
}

fn settle(outcome: &contacts::UpsertOutcome) {
    upsert_progress::settled(outcome.status, outcome.contact_id.as_deref(), &outcome.body);
}

/// Commits the chunk's emails, then settles its outcomes in order.
fn commit(chunk: &mut Vec<Result<String, contacts::UpsertOutcome>>) {
    let ops: Vec<store::Op> = chunk
        .iter()
        .filter_map(|row| row.as_ref().ok())
        .map(|email| store::Op::Put((format!("c/{email}").into_bytes(), email.clone().into_bytes())))
        .collect();
    let committed = ops.is_empty() || store::batch(&ops).is_ok();
    for row in chunk.drain(..) {
        match row {
            Ok(_) if committed => settle(&created()),
            Ok(_) => settle(&contacts::UpsertOutcome { status: 500, contact_id: None, body: "{}".into() }),
            Err(refused) => settle(&refused),
        }
    }
}

impl contacts::Guest for Fragile {
    fn upsert(_body: String) -> contacts::UpsertOutcome {
        created()
    }

    fn upsert_with(_body: String, _options: contacts::UpsertOptions) -> contacts::UpsertOutcome {
        created()
    }

    fn upsert_many(bodies: Vec<String>, _options: contacts::UpsertOptions) -> Vec<contacts::UpsertOutcome> {
        let mut chunk = Vec::new();
        for (i, body) in bodies.iter().enumerate() {
            upsert_progress::begin(i as u32);
            chunk.push(prepare(body));
            if chunk.len() == CHUNK {
                commit(&mut chunk);
            }
        }
        commit(&mut chunk);
        Vec::new()
    }

    fn get(_id: String) -> Option<String> {
        None
    }

    fn conversation(_id: String) -> Option<String> {
        None
    }
}

impl contacts_upkeep::Guest for Fragile {
    fn reindex(_after: Option<String>) -> Result<contacts_upkeep::Reindexed, String> {
        Ok(contacts_upkeep::Reindexed { indexed: 0, next: None })
    }
}

bindings::export!(Fragile with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_is_described_once_and_reaches_its_handler() {
        let described = <Fragile as handler::Guest>::describe();
        assert_eq!(routes().problems(&described), Vec::<String>::new());
    }
}
