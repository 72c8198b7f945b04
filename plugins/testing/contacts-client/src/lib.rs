//! A module of the `module-using-contacts` world that calls the contacts module
//! through the `contacts` interface, as other modules do (tests only; never
//! embedded): `POST /contacts-client/upsert` forwards its body to the contacts
//! module's `upsert` and answers with the outcome; `GET /contacts-client/{id}`
//! answers with the contacts module's `get`.
//!
//! `POST /contacts-client/joined?then=` upserts through `contacts-joined`, then
//! makes its own commit (`commit`), a commit whose condition fails (`fail`),
//! none (`none`), or (`race`) lets a plain upsert of the same body create the
//! contact first, commits, and runs the joined upsert and the commit again;
//! `?times=N` makes N joined upserts without a commit.

crm_sdk::component_bindings!("module-using-contacts", "../../../wit");

use bindings::crm::plugin::{contacts, contacts_joined};
use bindings::exports::crm::plugin::handler::Guest;
use crm_sdk::http::{json_response, query_first};
use crm_sdk::router::{Router, param};
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};
use serde_json::{Value, json};

struct ContactsClient;

/// Every route, once: what `describe` tells the host and what `handle` runs.
fn routes() -> Router {
    Router::new()
        .post("/contacts-client/upsert", None, |_, req| Ok(upsert(req)))
        .post("/contacts-client/joined", None, |_, req| Ok(joined(req)))
        .get("/contacts-client/{id}", None, |_, req| Ok(get(param(req, "id"))))
}

impl Guest for ContactsClient {
    fn describe() -> ModuleInfo {
        routes().describe("contacts-client", env!("CARGO_PKG_VERSION"))
    }

    fn handle(caller: Caller, req: Request) -> Response {
        routes().handle(&caller, req)
    }
}

/// The contacts module's `upsert` of the body, and its outcome.
fn upsert(req: &Request) -> Response {
    let outcome = contacts::upsert(&String::from_utf8_lossy(&req.body));
    let body: Value = serde_json::from_str(&outcome.body).unwrap_or(Value::Null);
    json_response(200, &json!({ "status": outcome.status, "contactId": outcome.contact_id, "body": body }))
}

/// The contacts module's `get` of `id`.
fn get(id: &str) -> Response {
    match contacts::get(id) {
        Some(contact) => json_response(200, &serde_json::from_str::<Value>(&contact).unwrap_or(Value::Null)),
        None => json_response(404, &json!({ "found": false })),
    }
}

/// A joined upsert's options: none.
const PLAIN: contacts::UpsertOptions =
    contacts::UpsertOptions { attribution: None, lenient_location: false, dry_run: false };

/// The joined upsert, then what `then` asks for; with `times=N`, N joined
/// upserts of the body and no commit: the statuses, counted.
fn joined(req: &Request) -> Response {
    let body = String::from_utf8_lossy(&req.body).into_owned();
    let then = query_first(req, "then").unwrap_or("commit");
    if let Some(times) = query_first(req, "times").and_then(|t| t.parse::<usize>().ok()) {
        let mut statuses = serde_json::Map::new();
        for _ in 0..times {
            let outcome = contacts_joined::upsert(&body, &PLAIN);
            let count = statuses.entry(outcome.status.to_string()).or_insert(json!(0));
            *count = json!(count.as_u64().unwrap_or(0) + 1);
        }
        return json_response(200, &Value::Object(statuses));
    }
    let first = joined_round(&body, then);
    if then != "race" {
        return json_response(200, &first);
    }
    let second = joined_round(&body, "commit");
    json_response(200, &json!({ "first": first, "second": second }))
}

fn joined_round(body: &str, then: &str) -> Value {
    let outcome = contacts_joined::upsert(body, &PLAIN);
    let mark = Write::Put((b"joined-mark".to_vec(), b"1".to_vec()));
    let committed = match then {
        "none" => None,
        "fail" => Some(store::commit(&[Condition::Equals((b"never-written".to_vec(), Some(b"x".to_vec())))], &[mark])),
        "race" => {
            contacts::upsert(body);
            Some(store::commit(&[], &[mark]))
        }
        _ => Some(store::commit(&[], &[mark])),
    };
    json!({
        "status": outcome.status,
        "contactId": outcome.contact_id,
        "committed": committed.map(|c| c.unwrap_or(false)),
    })
}

bindings::export!(ContactsClient with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_is_described_once_and_reaches_its_handler() {
        let described = <ContactsClient as Guest>::describe();
        assert_eq!(routes().problems(&described), Vec::<String>::new());
    }
}
