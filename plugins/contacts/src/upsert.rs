//! `POST /contacts` (and the `contacts.upsert` export): rules 1–10 of the spec.
//!
//! Order: body → identity present (rule 1) → plan limit before the lookup
//! (rule 5) → lookup by email, then mobile (rule 2) → company, identity
//! document, location, conversation checks (rules 6–10), all before any write →
//! update (200, unflattened) or create (201, flattened).
//!
//! Unique keys (email, mobile) are taken in the record's own commit, which
//! checks that nobody took them meanwhile: a create that loses a race runs
//! again as an update of the winner, and no key ever names a contact that was
//! not written. The same commit writes every counter the record moves and
//! checks the plan's limit: concurrent creates never pass it. The
//! conversation link is claimed by compare-and-swap just before.
//!
//! A mobile another contact already holds does not refuse an update (the
//! contact found by email is updated, rule 3): the number is stored on both,
//! and a lookup by that mobile finds the contact that had it first, the
//! holder of its claim. An email stays unique: a `PUT` giving one contact
//! another's email is 409 `CONTACT_CONFLICT`.

use crm_sdk::http::{self, Error};
use crm_sdk::{runtime, tenant};
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::batch::Batch;
use crate::checked::{Checked, apply};
use crate::companies;
use crate::conversations;
use crate::identity;
use crate::input::{self, ContactInput};
use crate::location;
use crate::record::{self, Attribution, Contact, Flat, Stored};
use crate::unique::{self, email_key, mobile_key};

/// Rules 6, 8, 9: everything that can refuse the body, without writing.
/// `lenient`: a city the catalog cannot confirm is kept as text, with a
/// warning, instead of refusing the body (imports).
pub fn check(
    input: &ContactInput,
    stored_id_type: Option<&str>,
    clear_on_empty_city: bool,
    lenient: bool,
) -> Result<Checked, Error> {
    let company = input.company_id.as_deref().map(companies::existing_for_contact).transpose()?;
    let (id_type, id_number) = identity::checked(input.id_type.as_deref(), input.id_number.as_deref(), stored_id_type)?;
    let mut warnings = Vec::new();
    let location = match location::resolve(&input.location, clear_on_empty_city) {
        Ok(location) => location,
        Err(e) if lenient => {
            let (location, warning) = location::unconfirmed(&input.location, &e).ok_or(e)?;
            warnings.push(warning);
            Some(location)
        }
        Err(e) => return Err(e),
    };
    Ok(Checked { location, id_type, id_number, company, warnings })
}

/// What a calling module adds to an upsert (the WIT's `upsert-options`).
#[derive(Debug, Default)]
pub struct Options {
    /// The first touch, kept only on a contact that has none.
    pub attribution: Option<Attribution>,
    /// Keep a city the catalog cannot confirm as text, with a warning.
    pub lenient_location: bool,
    /// Check everything, write nothing (see [`crate::batch`]).
    pub dry_run: bool,
}

impl Options {
    pub fn from_wit(options: crate::bindings::exports::crm::plugin::contacts::UpsertOptions) -> Options {
        let attribution = options.attribution.and_then(|text| {
            let attribution = Attribution::from_json(&text);
            if attribution.is_none() {
                runtime::log(runtime::Level::Warn, "upsert-options.attribution is not a JSON object: ignored");
            }
            attribution
        });
        Options { attribution, lenient_location: options.lenient_location, dry_run: options.dry_run }
    }
}

/// The outcome of an upsert: status, the contact's id, and the JSON body.
pub struct Outcome {
    pub status: u16,
    pub contact_id: Option<String>,
    pub body: Body,
}

/// An upsert's answer: a `Value`, or a create's answer written at once from
/// the contact. Built as a `Value` tree, then written and dropped, that
/// answer was a tenth of a create's instructions (BENCHMARKS.md, "The
/// guest's share, by function").
pub enum Body {
    Value(Value),
    Written(Box<RawValue>),
}

impl Body {
    /// The field `key` of a `Value` body (an error's `code`); a written
    /// body, a create's, is read by no one.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Body::Value(value) => value.get(key),
            Body::Written(_) => None,
        }
    }

    /// The body's JSON text.
    pub fn into_json(self) -> String {
        match self {
            Body::Value(value) => value.to_string(),
            Body::Written(raw) => String::from(Box::<str>::from(raw)),
        }
    }
}

impl Serialize for Body {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Body::Value(value) => value.serialize(serializer),
            Body::Written(raw) => raw.serialize(serializer),
        }
    }
}

/// A create's 201 answer, in the order of the others' keys.
#[derive(Serialize)]
struct Created<'a> {
    success: bool,
    message: &'a str,
    data: Flat<'a>,
    #[serde(skip_serializing_if = "<[Value]>::is_empty")]
    warnings: &'a [Value],
}

/// An upsert of a JSON body (the `contacts` export's); a batch of them
/// shares `batch`.
pub fn upsert(body: &[u8], options: &Options, batch: &mut Batch) -> Outcome {
    upsert_input(read(body), options, batch)
}

/// A JSON body as an upsert reads it.
pub fn read(body: &[u8]) -> Result<ContactInput, Error> {
    http::parse_json(body).and_then(http::object).and_then(|body| input::parse(&body))
}

/// [`upsert`] of a body already read.
pub fn upsert_input(input: Result<ContactInput, Error>, options: &Options, batch: &mut Batch) -> Outcome {
    outcome(input.and_then(|input| run(&input, options, batch)), batch.compact)
}

/// [`upsert`] of a body already parsed (`POST /contacts`).
pub fn upsert_object(body: &Map<String, Value>, options: &Options) -> Outcome {
    upsert_input(input::parse(body), options, &mut Batch::default())
}

/// What an upsert did.
struct Upserted {
    contact: Contact,
    created: bool,
    warnings: Vec<Value>,
}

/// The answer of `POST /contacts`; `compact` leaves the contact out of a
/// success (a batch's outcomes, see the WIT's `upsert-many`).
fn outcome(result: Result<Upserted, Error>, compact: bool) -> Outcome {
    let Upserted { contact, created, warnings } = match result {
        Ok(done) => done,
        Err(e) => return Outcome { status: e.status, contact_id: None, body: Body::Value(Value::Object(e.body)) },
    };
    let message = if created { "Contact created" } else { "Contact updated" };
    if created && !compact {
        let answer = Created { success: true, message, data: contact.flattened(), warnings: &warnings };
        return match serde_json::value::to_raw_value(&answer) {
            Ok(written) => Outcome { status: 201, contact_id: Some(contact.id), body: Body::Written(written) },
            Err(e) => outcome(Err(Error::internal(e)), compact),
        };
    }
    let mut body = Map::new();
    body.insert("success".into(), Value::Bool(true));
    body.insert("message".into(), message.into());
    if !compact {
        body.insert("contact".into(), contact.unflattened(&tenant::organization_id()));
    }
    if !warnings.is_empty() {
        body.insert("warnings".into(), Value::Array(warnings));
    }
    Outcome {
        status: if created { 201 } else { 200 },
        contact_id: Some(contact.id),
        body: Body::Value(Value::Object(body)),
    }
}

/// Upserts one body: written through `batch` (at once, or with its import
/// chunk), or kept there by a dry run.
fn run(input: &ContactInput, options: &Options, batch: &mut Batch) -> Result<Upserted, Error> {
    if input.email.is_none() && input.mobile.is_none() && input.linked_conversation_id.is_none() {
        return Err(Error::text(
            400,
            "At least one of email, mobile (or whatsapp_phone) or linkedConversationId is required",
        ));
    }
    let limit = tenant::contact_limit();
    if let Some(limit) = limit
        && unique::count()? + batch.created >= limit
    {
        return Err(unique::limit_reached(limit));
    }
    for _ in 0..8 {
        let (found, claims) = lookup(input, batch)?;
        let checked =
            check(input, found.as_ref().and_then(|c| c.contact.id_type.as_deref()), false, options.lenient_location)?;
        if let Some(conv) = &input.linked_conversation_id {
            let conversation = conversations::get(conv)?.ok_or_else(conversations::not_found)?;
            if let Some(holder) = conversation.contact_id.or_else(|| batch.linked_to(conv))
                && found.as_ref().is_none_or(|c| c.contact.id != holder)
            {
                return Err(conversations::already_linked(&holder));
            }
        }
        let warnings = checked.warnings.clone();
        if options.dry_run {
            let found = found.map(|s| s.contact);
            let (contact, created) = batch.simulate(found, input, checked, options.attribution.as_ref())?;
            return Ok(Upserted { contact, created, warnings });
        }
        match found {
            Some(stored) => {
                let contact = update(stored, input, checked, options.attribution.as_ref(), batch)?;
                return Ok(Upserted { contact, created: false, warnings });
            }
            None => {
                if let Some(contact) = create(input, checked, limit, options.attribution.as_ref(), claims, batch)? {
                    return Ok(Upserted { contact, created: true, warnings });
                }
                // Lost a race for the email or mobile: the winner exists now.
            }
        }
    }
    Err(Error::internal("an upsert kept losing races"))
}

/// Rule 2: exact email (trimmed, case-sensitive), then the mobile's digits;
/// a dry run's own contacts first, as they are newer than the store's. When
/// no contact holds them, also the claims a create takes on them: each key
/// with the holder seen (none, or a contact that no longer exists), which
/// must still hold it at the create's commit.
fn lookup(input: &ContactInput, batch: &Batch) -> Result<(Option<Stored>, unique::Claims), Error> {
    let keys = unique::keys(input.email.as_deref(), input.mobile.as_deref());
    let mut claims = unique::Claims::default();
    for key in keys {
        if let Some(c) = batch.find(&key) {
            return Ok((Some(Stored::unwritten(c.clone())?), claims));
        }
        let holder = unique::owner(&key)?;
        if let Some(id) = &holder
            && let Some(stored) = record::read(id)?
        {
            return Ok((Some(stored), claims));
        }
        claims.take(key, holder);
    }
    Ok((None, claims))
}

/// Whether contact `id` exists: a key held by one that does not is free to take.
fn exists(id: &str) -> Result<bool, Error> {
    Ok(crm_sdk::store::get(record::key(id).as_bytes())?.is_some())
}

/// Creates a contact taking `claims` (from [`lookup`]); `None` when a
/// concurrent request won its email or mobile meanwhile (the caller runs
/// again, as an update of the winner) or the commit was refused for
/// another reason than a full plan (the caller runs again).
fn create(
    input: &ContactInput,
    checked: Checked,
    limit: Option<u64>,
    attribution: Option<&Attribution>,
    claims: unique::Claims,
    batch: &mut Batch,
) -> Result<Option<Contact>, Error> {
    let id = runtime::new_id();
    let now = runtime::now();
    let mut contact = Contact { id: id.clone(), created_at: now.clone(), updated_at: now, ..Contact::default() };
    apply(&mut contact, input, checked);
    contact.attribution = attribution.cloned();
    record::check_bounds(&contact)?;
    if let Some(conv) = &input.linked_conversation_id {
        conversations::link(conv, &id)?;
    }
    let saved = batch.save(None, &contact, limit, &claims);
    if !matches!(saved, Ok(true))
        && let Some(conv) = &input.linked_conversation_id
    {
        conversations::unlink(conv, &contact.id)?;
    }
    match (saved?, limit) {
        (true, _) => Ok(Some(contact)),
        // Refused with its claims still free: the plan is full, or the
        // search log's epoch it read was sealed meanwhile (run again).
        (false, Some(limit)) if claims.unchanged()? && unique::count()? >= limit => Err(unique::limit_reached(limit)),
        (false, _) => Ok(None),
    }
}

/// How many times an update may find its contact changed under it.
const UPDATE_ROUNDS: usize = 128;

/// Updates a found contact. A new email must not belong to another contact
/// (409); a new mobile that does is stored without its claim (see the top).
/// `attribution` is set only when the contact has none. An update that
/// changes nothing writes nothing.
pub fn update(
    stored: Stored,
    input: &ContactInput,
    checked: Checked,
    attribution: Option<&Attribution>,
    batch: &mut Batch,
) -> Result<Contact, Error> {
    if let Some(conv) = &input.linked_conversation_id
        && stored.contact.linked_conversation_id.as_deref() != Some(conv)
    {
        conversations::link(conv, &stored.contact.id)?;
    }
    let mut current = stored;
    // A key taken meanwhile by another request, or the record changed by
    // another update, is looked at again: the update applies to what is stored.
    // Each round of concurrent updates of one contact has a winner, so N of
    // them settle within N rounds; the route's deadline bounds the time.
    for _ in 0..UPDATE_ROUNDS {
        let before = &current.contact;
        let mut contact = before.clone();
        apply(&mut contact, input, checked.clone());
        if contact.attribution.is_none() {
            contact.attribution = attribution.cloned();
        }
        if contact == *before {
            // Nothing changes: nothing is written, and `updatedAt` stays the
            // time of the last change (a sync that sends what is stored
            // does not bring every contact to the front of `sortBy=updatedAt`).
            return Ok(contact);
        }
        contact.updated_at = runtime::now();
        record::check_bounds(&contact)?;
        let claims = update_claims(before, &contact, input)?;
        if batch.save(Some(&current), &contact, None, &claims)? {
            return Ok(contact);
        }
        current = record::read(&contact.id)?.ok_or_else(|| Error::not_found("Contact"))?;
    }
    Err(Error::internal("an update kept losing races for its record, email or mobile"))
}

/// The keys an update takes (a new email or mobile no live contact holds)
/// and gives back (the old ones it held); 409 `CONTACT_CONFLICT` for an email
/// another contact holds.
fn update_claims(before: &Contact, contact: &Contact, input: &ContactInput) -> Result<unique::Claims, Error> {
    let changes = [
        (input.email.as_deref().map(email_key), before.email.as_deref().map(email_key), "email"),
        (input.mobile.as_deref().map(mobile_key), before.mobile.as_deref().map(mobile_key), "mobile"),
    ];
    let mut claims = unique::Claims::default();
    for (new, old, field) in changes {
        let Some(new) = new.filter(|n| Some(n) != old.as_ref()) else { continue };
        match unique::owner(&new)? {
            Some(holder) if holder == contact.id => {}
            Some(holder) if exists(&holder)? => {
                if field == "email" {
                    return Err(Error::new(409, "CONTACT_CONFLICT", "Another contact already has this email")
                        .with("field", field)
                        .with("contactId", holder));
                }
            }
            holder => claims.take(new, holder),
        }
        if let Some(old) = old
            && unique::owner(&old)?.as_deref() == Some(contact.id.as_str())
        {
            claims.release(old);
        }
    }
    Ok(claims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A create's answer, as it was built before it was written at once.
    fn as_a_value_tree(contact: &Contact, warnings: &[Value]) -> String {
        let mut body = json!({"success": true, "message": "Contact created", "data": contact.flattened()});
        if !warnings.is_empty() {
            body["warnings"] = Value::Array(warnings.to_vec());
        }
        body.to_string()
    }

    #[test]
    fn a_create_is_answered_with_the_bytes_its_value_tree_wrote() {
        let mut contact = Contact {
            id: "0123456789abcdef01234567".into(),
            first_name: Some("José \"Pepe\" Núñez".into()),
            email: Some("jose@example.co".into()),
            city_code: Some("05001".into()),
            lead_score: 7,
            tags: vec!["vip".into()],
            created_at: "2026-12-04T03:00:00.000Z".into(),
            updated_at: "2026-12-04T03:00:00.000Z".into(),
            ..Contact::default()
        };
        contact.custom.insert("plan".into(), json!("pro"));
        contact.custom.insert("años\n".into(), json!(3));
        let warning = json!({"field": "cityCode", "code": "CITY_NOT_FOUND"});
        for warnings in [vec![], vec![warning]] {
            let upserted = Upserted { contact: contact.clone(), created: true, warnings: warnings.clone() };
            let answer = outcome(Ok(upserted), false);
            assert_eq!((answer.status, answer.contact_id.as_deref()), (201, Some(contact.id.as_str())));
            assert_eq!(answer.body.into_json(), as_a_value_tree(&contact, &warnings));
        }
    }

    #[test]
    fn a_compact_create_leaves_the_contact_out() {
        let upserted = Upserted { contact: Contact::default(), created: true, warnings: vec![] };
        let answer = outcome(Ok(upserted), true);
        assert_eq!(answer.body.into_json(), r#"{"success":true,"message":"Contact created"}"#);
    }
}
