//! The contacts module: contacts, companies and conversations.
//!
//! Exports the `contacts` interface that other modules call (the upsert, one
//! body or many, for forms and import; a contact or a conversation by id, for
//! shipments and pipelines), and `contacts-upkeep` (the search index's
//! fold and reindex, [`reindex`]) that only the host calls.
//!
//! Layout: [`upsert`] holds the upsert rules (lookup by email, then mobile; the
//! one place forms, import and shipments reach through the `contacts` export;
//! [`many`] applies them to many bodies in one call, a chunk of rows to a
//! commit ([`batch`], which also holds a dry run's contacts), and [`bulk`] is
//! the admin API's bulk path; [`checked`] is what a checked body changes on a
//! contact), [`edit`] get and put by id, [`list`] the filters (a list walks an
//! index a chunk at a time), [`input`] body parsing and the bounds on what a
//! client sends, [`location`] strict city resolution (shared with
//! [`companies`]) and the lenient city an import may ask for, [`identity`]
//! DIAN document types and numbers, [`unique`] the compare-and-swap claims,
//! [`conversations`] linking, [`record`] the stored shape, its two API forms
//! and the bound on a whole contact.
//!
//! The list indexes and counters ([`index`]) and the search projection
//! ([`search`]) are written in the record's own commit, with one entry in the
//! log of the trigram lists behind `search=` ([`postings`]), which a fold
//! moves into the lists later; [`index`] also stages a create's
//! `contact.created` event for that commit.
//!
//! Store keys (scoped by the host to this organization and module):
//! `c/<id>` contacts, `u/email/<email>` and `u/mobile/<digits>` unique claims,
//! `meta/contacts` the count, `ix/...` the list indexes ([`index`]),
//! `s/...`, `n/...` and `b/...` what `search` reads ([`search`], [`postings`]),
//! `company/<id>`, `conv/<id>`.

mod batch;
mod bulk;
mod checked;
mod companies;
mod conversations;
mod edit;
mod identity;
mod index;
mod input;
mod list;
mod location;
mod many;
mod postings;
mod record;
mod reindex;
mod search;
mod unique;
mod upsert;

crm_sdk::component_bindings!("contacts-provider", "../../wit");

use bindings::crm::plugin::upsert_progress;
use bindings::exports::crm::plugin::{contacts, contacts_upkeep, handler};
use crm_sdk::http::{self, Error, json_response};
use crm_sdk::router::{Router, param};
use crm_sdk::types::{Caller, ModuleInfo, Request, Response};
use serde_json::Value;

struct Contacts;

/// Every route, once: what `describe` tells the host and what `handle` runs.
fn routes() -> Router {
    Router::in_plan_module("contacts")
        // A filtered list over 1,000,000 contacts walks them all.
        .get("/contacts", Some("contacts:read"), |_, req| list::list(req))
        .deadline_ms(30_000)
        .post("/contacts", Some("contacts:write"), |_, req| create(req))
        .get("/contacts/{id}", Some("contacts:read"), |_, req| edit::get(param(req, "id")))
        .put("/contacts/{id}", Some("contacts:write"), |_, req| edit::put(req, param(req, "id")))
        .get("/companies", Some("companies:read"), |_, req| companies::list(req))
        .post("/companies", Some("companies:write"), |_, req| companies::create(req))
        .get("/companies/{id}", Some("companies:read"), |_, req| companies::get(param(req, "id")))
        .put("/companies/{id}", Some("companies:write"), |_, req| companies::update(req, param(req, "id")))
        .get("/conversations", Some("conversations:read"), |_, req| conversations::list(req))
        // Served on the admin API as POST /admin/orgs/{org}/conversations.
        .post("/admin/conversations", None, |_, req| conversations::create(req))
        // Served on the admin API as POST /admin/orgs/{org}/contacts/bulk.
        .post("/admin/contacts/bulk", None, |_, req| bulk::upsert_many(req))
        .deadline_ms(300_000)
        // Served on the admin API as POST /admin/orgs/{org}/contacts/reindex.
        .post("/admin/contacts/reindex", None, |_, req| reindex::reindex(req))
        .deadline_ms(120_000)
}

/// `POST /contacts`: one body through the upsert rules.
fn create(req: &Request) -> Result<Response, Error> {
    let body = http::json_object(req)?;
    let outcome = upsert::upsert_object(&body, &upsert::Options::default());
    Ok(json_response(outcome.status, &outcome.body))
}

impl handler::Guest for Contacts {
    fn describe() -> ModuleInfo {
        routes().describe("contacts", env!("CARGO_PKG_VERSION"))
    }

    fn handle(caller: Caller, req: Request) -> Response {
        routes().handle(&caller, req)
    }
}

impl contacts::Guest for Contacts {
    fn upsert(body: String) -> contacts::UpsertOutcome {
        let options = contacts::UpsertOptions { attribution: None, lenient_location: false, dry_run: false };
        Self::upsert_with(body, options)
    }

    fn upsert_with(body: String, options: contacts::UpsertOptions) -> contacts::UpsertOutcome {
        let outcome = upsert::upsert(body.as_bytes(), &upsert::Options::from_wit(options), &mut Default::default());
        outcome.into()
    }

    /// Every outcome is told to the host as it is settled (`upsert-progress`),
    /// so the answer itself is empty.
    fn upsert_many(bodies: Vec<String>, options: contacts::UpsertOptions) -> Vec<contacts::UpsertOutcome> {
        many::upsert_many(&bodies, &upsert::Options::from_wit(options), &mut ToHost);
        Vec::new()
    }

    fn get(id: String) -> Option<String> {
        edit::find(&id).ok().and_then(|c| serde_json::to_string(&c.contact.flattened()).ok())
    }

    fn conversation(id: String) -> Option<String> {
        let found = crm_sdk::is_id(&id).then(|| conversations::get(&id).ok().flatten()).flatten()?;
        serde_json::to_string(&found).ok()
    }
}

impl contacts_upkeep::Guest for Contacts {
    fn reindex(after: Option<String>) -> Result<contacts_upkeep::Reindexed, String> {
        let failed = |e: Error| format!("{} {}", e.status, Value::Object(e.body));
        let (indexed, next) = reindex::reindex_page(after).map_err(failed)?;
        Ok(contacts_upkeep::Reindexed { indexed: indexed as u32, next })
    }
}

/// An `upsert-many`'s progress, told to the host as it goes.
struct ToHost;

impl many::Progress for ToHost {
    fn begin(&mut self, index: usize) {
        upsert_progress::begin(u32::try_from(index).unwrap_or(u32::MAX));
    }

    fn settled(&mut self, outcome: upsert::Outcome) {
        upsert_progress::settled(outcome.status, outcome.contact_id.as_deref(), &outcome.body.into_json());
    }
}

impl From<upsert::Outcome> for contacts::UpsertOutcome {
    fn from(outcome: upsert::Outcome) -> contacts::UpsertOutcome {
        contacts::UpsertOutcome {
            status: outcome.status,
            contact_id: outcome.contact_id,
            body: outcome.body.into_json(),
        }
    }
}

bindings::export!(Contacts with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_is_described_once_and_reaches_its_handler() {
        let described = <Contacts as handler::Guest>::describe();
        assert_eq!(routes().problems(&described), Vec::<String>::new());
    }
}
