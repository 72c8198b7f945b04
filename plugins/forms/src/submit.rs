//! The one submission rule, behind both doors:
//! - the token door, `POST /forms/{id}/submit` (`forms:write`), answers
//!   `{submissionId, contactId, dealId}`;
//! - the public door, `POST /api/v1/forms/submit/{id}?key=`, checks the
//!   form's public key (401 `FORM_KEY_MISSING` / `FORM_KEY_INVALID`) and the
//!   browser's origin (403 `ORIGIN_NOT_ALLOWED`), and answers only
//!   `{submissionId}` (no internal id to an anonymous visitor), or 303 to
//!   the form's `redirectUrl` for an HTML form's post (urlencoded or
//!   multipart) unless it asks for JSON (`Accept: application/json`).
//!
//! Then, in order: the body (JSON, urlencoded or multipart, bounded) → the
//! double click ([`crate::dedupe`]) → the honeypot (201 as for a new lead,
//! kept as `spam`) → an email or a mobile (400) → the contact, through
//! `contacts-joined` with the first touch → the contact, the submission, the
//! deal, the notifications and the double click's answer in one commit. An unresolved
//! city is 400 `CITY_UNRESOLVED` and leaves nothing; a full plan is 403
//! `PLAN_LIMIT_REACHED` and keeps the submission as `rejected`.

use crm_sdk::http::{self, Error, json_response, query_first};
use crm_sdk::runtime;
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::{Request, Response};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::bindings::crm::plugin::{contacts, contacts_joined};
use crate::dedupe::{self, Seen, Slot};
use crate::fields::{self, Fields};
use crate::form::{self, Form};
use crate::submissions::{self, Submission};
use crate::{cors, deals, first_touch, notifications};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    Token,
    Public,
}

const THANKS: &str = "¡Gracias! Recibimos tus datos.";

/// How many times a submission may find its contact (or its deal) changed
/// by a concurrent one: each round has a winner, so N at once settle within
/// N rounds (then 409 `SUBMISSION_BUSY`); the call's deadline bounds the time.
const ROUNDS: usize = 128;

pub fn submit(req: &Request, id: &str, door: Door) -> Result<Response, Error> {
    let form = form::load(id)?;
    let answer = http::respond(checked(req, &form, door).and_then(|()| run(req, &form, door)));
    Ok(match door {
        Door::Public => cors::stamp(Some(&form), req, answer),
        Door::Token => answer,
    })
}

/// The public door's key and origin.
fn checked(req: &Request, form: &Form, door: Door) -> Result<(), Error> {
    if door == Door::Token {
        return Ok(());
    }
    match query_first(req, "key").map(str::trim).filter(|k| !k.is_empty()) {
        None => return Err(Error::new(401, "FORM_KEY_MISSING", "The form's public key is missing (?key=)")),
        Some(key) if !same(key.as_bytes(), form.public_key.as_bytes()) => {
            return Err(Error::new(401, "FORM_KEY_INVALID", "The form's public key is not valid"));
        }
        Some(_) => {}
    }
    cors::check(form, req)
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn run(req: &Request, form: &Form, door: Door) -> Result<Response, Error> {
    let fields = fields::read(req)?;
    let door_name = if door == Door::Public { "public" } else { "token" };
    let mut slot = match dedupe::look(&form.id, door_name, &fields.sent)? {
        Seen::Twin(answer) => return Ok(answer),
        Seen::First(slot) => slot,
    };
    if !fields.spam && !fields.has_email_or_mobile() {
        return Err(Error::validation(
            "Escribe tu correo electrónico o tu número de celular.",
            json!({ "fields": ["email", "mobile"] }),
        ));
    }
    let now = runtime::now();
    let first_touch = first_touch::of(form, &fields, req, &now)?;
    let submission = Submission {
        id: runtime::new_id(),
        form_id: &form.id,
        status: submissions::SPAM,
        fields: &fields.sent,
        attribution: &first_touch,
        contact_id: None,
        deal_id: None,
        reason: None,
        created_at: now,
    };
    // Everything a submission writes is one commit, with the double click's
    // answer; the contact's writes join it (`contacts-joined`). A round whose
    // commit fails (a twin answered first, a concurrent submission took the
    // email, changed the contact or opened its deal) runs again from the
    // upsert, which then finds what changed.
    for _ in 0..ROUNDS {
        let Round { conditions, writes, response } = round(form, door, &fields, submission.clone())?;
        if commit(conditions, writes, &slot, &response)? {
            // The lead is committed; a sweep that fails leaves its garbage to the next.
            if let Err(e) = slot.sweep() {
                runtime::log(
                    runtime::Level::Warn,
                    &format!("the double click's sweep failed: {}", Value::Object(e.body)),
                );
            }
            return Ok(response);
        }
        if let Some(answer) = slot.twin()? {
            return Ok(answer);
        }
    }
    Err(Error::new(409, "SUBMISSION_BUSY", "The contact is being changed by other submissions; try again"))
}

/// What one round of a submission writes and answers.
struct Round {
    conditions: Vec<Condition>,
    writes: Vec<Write>,
    response: Response,
}

/// One round: the contact, then what the submission leaves behind. Nothing is
/// written on an error: an unresolved city is 400 `CITY_UNRESOLVED`; a full
/// plan keeps the submission as `rejected` (no lead is lost).
fn round(form: &Form, door: Door, fields: &Fields, mut submission: Submission) -> Result<Round, Error> {
    if fields.spam {
        // Answered as a new lead would be: a bot must not tell the difference.
        let response = accepted(form, door, fields, 201, &submission);
        return Ok(Round { conditions: Vec::new(), writes: submissions::writes(&submission)?, response });
    }
    let outcome = upsert(fields, submission.attribution);
    if !matches!(outcome.status, 200 | 201) {
        // Only a refusal's body is read: a success's says nothing more.
        let body: Map<String, Value> = serde_json::from_str(&outcome.body).unwrap_or_default();
        let code = body.get("code").and_then(Value::as_str).unwrap_or("");
        return match (outcome.status, code) {
            (403, "PLAN_LIMIT_REACHED") => {
                submission.status = submissions::REJECTED;
                submission.reason = Some(json!({ "code": code, "message": body.get("message") }));
                let response = json_response(403, &body);
                Ok(Round { conditions: Vec::new(), writes: submissions::writes(&submission)?, response })
            }
            (_, "CITY_UNRESOLVED" | "INVALID_CITY_CODE") => Err(city_unresolved(&body)),
            (400..=499, _) => Err(contact_refusal(outcome.status, body, door)),
            _ => Err(Error::internal(format!("the contacts module answered {}", outcome.status))),
        };
    }
    let contact_id = outcome.contact_id.ok_or_else(|| Error::internal("an upsert without a contact id"))?;
    submission.status = submissions::ACCEPTED;
    submission.contact_id = Some(contact_id.clone());
    let mut conditions = Vec::new();
    let mut writes = notifications::writes(form, &submission.id, Some(&contact_id), &submission.created_at)?;
    if form.create_deal {
        match deals::open_deal(&contact_id, &form.id)? {
            Some(open) => submission.deal_id = Some(open),
            None => {
                let deal = deals::new_deal(&form.id, &form.name, &contact_id, &fields.who(), &submission.created_at)?;
                let (condition, deal_writes) = deals::opening(&deal)?;
                conditions.push(condition);
                writes.extend(deal_writes);
                submission.deal_id = Some(deal.id);
            }
        }
    }
    writes.extend(submissions::writes(&submission)?);
    let response = accepted(form, door, fields, outcome.status, &submission);
    crm_sdk::emit("form.submitted", &submission)?;
    Ok(Round { conditions, writes, response })
}

/// Commits a round with the answer twins will get; `false` when a condition
/// failed (nothing was written).
fn commit(
    mut conditions: Vec<Condition>,
    mut writes: Vec<Write>,
    slot: &Slot,
    response: &Response,
) -> Result<bool, Error> {
    let (unchanged, answer) = slot.finish(response)?;
    conditions.extend(unchanged);
    writes.push(answer);
    Ok(store::commit(&conditions, &writes)?)
}

/// The contact, through the contacts module, its writes joined to the next
/// commit; a success's body leaves the contact out (a form reads only the
/// status and the id). A contact that cannot hold the form's extra fields
/// (its bounds) is written without them: they stay on the submission, and
/// the lead is not lost to them.
fn upsert(fields: &Fields, first_touch: &RawValue) -> contacts::UpsertOutcome {
    let options = contacts::UpsertOptions {
        attribution: Some(first_touch.get().to_string()),
        lenient_location: false,
        dry_run: false,
    };
    // Written straight to a buffer: `Value`'s `Display` goes through the
    // formatter a piece at a time.
    let joined =
        |body: &Map<String, Value>| contacts_joined::upsert(&serde_json::to_string(body).unwrap_or_default(), &options);
    let outcome = joined(&fields.contact);
    let hit_bounds = outcome.status == 400
        && serde_json::from_str::<Value>(&outcome.body)
            .is_ok_and(|b| b.pointer("/details/limit").is_some_and(Value::is_string));
    if !hit_bounds {
        return outcome;
    }
    joined(&fields.contact_without_custom())
}

/// The answer to a lead: `{success: true, message, data}`.
#[derive(Serialize)]
struct Thanks<D> {
    success: bool,
    message: &'static str,
    data: D,
}

/// The token door's `data`: the ids the integrator may follow.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Ids<'a> {
    submission_id: &'a str,
    contact_id: Option<&'a str>,
    deal_id: Option<&'a str>,
}

/// The public door's `data`: no internal id for an anonymous visitor.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Received<'a> {
    submission_id: &'a str,
}

/// A submission that made (or updated) a contact, or was kept as spam.
fn accepted(form: &Form, door: Door, fields: &Fields, status: u16, s: &Submission) -> Response {
    match door {
        Door::Token => {
            let ids = Ids { submission_id: &s.id, contact_id: s.contact_id.as_deref(), deal_id: s.deal_id.as_deref() };
            json_response(status, &Thanks { success: true, message: THANKS, data: ids })
        }
        Door::Public => match (&form.redirect_url, fields.redirectable) {
            (Some(url), true) => Response {
                status: 303,
                headers: vec![
                    ("location".into(), url.clone()),
                    ("content-type".into(), "text/plain; charset=utf-8".into()),
                ],
                body: THANKS.as_bytes().to_vec(),
            },
            _ => {
                let received = Received { submission_id: &s.id };
                json_response(status, &Thanks { success: true, message: THANKS, data: received })
            }
        },
    }
}

/// 400 `CITY_UNRESOLVED` for the visitor (the contacts API answers 422),
/// with a message that says why, in Spanish.
fn city_unresolved(contact_body: &Map<String, Value>) -> Error {
    let input = contact_body.get("input").and_then(Value::as_str).unwrap_or("");
    let candidates = contact_body.get("candidates").and_then(Value::as_array).map_or(0, Vec::len);
    let status = contact_body.get("status").and_then(Value::as_str).unwrap_or("");
    let why = match (status, candidates) {
        (_, _) if input.is_empty() => "No reconocemos la ciudad.".to_string(),
        ("ambiguous", 1) => format!("«{input}» no está en el departamento que escribiste."),
        ("ambiguous", _) => format!("Hay varios municipios llamados «{input}»."),
        ("invalid_code", _) => format!("«{input}» no es un código de municipio."),
        _ => format!("No reconocemos la ciudad «{input}»."),
    };
    let message = format!("{why} Elige tu municipio de la lista.");
    let mut e = Error::new(400, "CITY_UNRESOLVED", message).with("error", "CITY_UNRESOLVED");
    for key in ["input", "status", "candidates"] {
        e = e.with(
            key,
            contact_body.get(key).cloned().unwrap_or(if key == "candidates" { json!([]) } else { Value::Null }),
        );
    }
    e
}

/// Another refusal of the contacts module, as it said it; its plain-text
/// 400s become `VALIDATION_ERROR`. At the public door a field's
/// `VALIDATION_ERROR`, and an identity document the contacts module
/// refuses, are told to the visitor in Spanish, by what they typed (their
/// correo, their celular, their documento), not by the contact's key.
fn contact_refusal(status: u16, mut body: Map<String, Value>, door: Door) -> Error {
    if body.contains_key("code") {
        let field = body.get("details").and_then(|d| d.get("field")).or(body.get("field")).and_then(Value::as_str);
        let message = match (body.get("code").and_then(Value::as_str), field) {
            (Some("VALIDATION_ERROR"), Some("email")) => {
                Some("Revisa tu correo electrónico: no parece una dirección válida.".to_string())
            }
            (Some("VALIDATION_ERROR"), Some("mobile" | "whatsapp_phone")) => {
                Some("Revisa tu número de celular: escribe de 7 a 15 dígitos, sin letras.".to_string())
            }
            (Some("VALIDATION_ERROR"), Some(other)) => {
                Some(format!("Revisa el dato «{other}»: no es válido o es demasiado largo."))
            }
            (Some("INVALID_ID_NUMBER"), _) => {
                Some("Revisa tu número de documento: no es válido para su tipo.".to_string())
            }
            (Some("ID_TYPE_UNRESOLVED"), _) => {
                Some("No reconocemos el tipo de documento. Elige uno de la lista.".to_string())
            }
            _ => None,
        };
        if let (Door::Public, Some(message)) = (door, message) {
            body.insert("message".into(), Value::String(message));
        }
        return Error { status, body };
    }
    let message =
        body.get("message").or(body.get("error")).and_then(Value::as_str).unwrap_or("The submission is not valid");
    Error::validation(message, json!({}))
}
