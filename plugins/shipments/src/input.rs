//! Request bodies of the shipment calls, checked field by field: a wrong
//! field is a 400 `VALIDATION_ERROR` naming it. Fields the server owns
//! (status, tracking, price, events...) are never read from a body.

use crm_sdk::http::{Error, json_number};
use serde_json::{Map, Value, json};

use crate::bindings::crm::plugin::shipping_types::{Parcel, Pickup};

/// Most packages per shipment.
const MAX_PACKAGES: usize = 20;
/// Longest free-text field.
const MAX_TEXT: usize = 300;

pub fn invalid(field: &str, problem: &str) -> Error {
    Error::validation(format!("{field} {problem}"), json!({ "field": field }))
}

/// An optional string field, trimmed; empty counts as absent.
pub fn text(body: &Map<String, Value>, field: &str) -> Result<Option<String>, Error> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.chars().count() > MAX_TEXT => Err(invalid(field, "is too long")),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
        Some(_) => Err(invalid(field, "must be a string")),
    }
}

pub fn required_text(body: &Map<String, Value>, field: &str) -> Result<String, Error> {
    text(body, field)?.ok_or_else(|| invalid(field, "is required"))
}

/// `contactId`: required, and shaped like an id.
pub fn contact_id(body: &Map<String, Value>) -> Result<String, Error> {
    let id = required_text(body, "contactId")?;
    if crm_sdk::is_id(&id) { Ok(id) } else { Err(invalid("contactId", "is not a valid id")) }
}

/// `idempotencyKey`: 1 to 100 characters when sent.
pub fn idempotency_key(body: &Map<String, Value>) -> Result<Option<String>, Error> {
    match body.get("idempotencyKey") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(k)) if (1..=100).contains(&k.chars().count()) && !k.chars().any(char::is_control) => {
            Ok(Some(k.clone()))
        }
        Some(_) => Err(invalid("idempotencyKey", "must be a string of 1 to 100 characters")),
    }
}

fn number(v: Option<&Value>, field: &str, min_exclusive: f64, max: f64) -> Result<f64, Error> {
    match v.and_then(Value::as_f64) {
        Some(n) if n > min_exclusive && n <= max => Ok(n),
        Some(_) => Err(invalid(field, &format!("must be above {min_exclusive} and at most {max}"))),
        None => Err(invalid(field, "must be a number")),
    }
}

/// `packages`: 1 to 20 of `{content, weight (kg), dimensions {length, width,
/// height} (cm), declaredValue}`.
pub fn packages(body: &Map<String, Value>) -> Result<Vec<Parcel>, Error> {
    let Some(Value::Array(list)) = body.get("packages") else {
        return Err(invalid("packages", "must be a list of packages"));
    };
    if list.is_empty() || list.len() > MAX_PACKAGES {
        return Err(invalid("packages", &format!("must hold 1 to {MAX_PACKAGES} packages")));
    }
    list.iter()
        .enumerate()
        .map(|(i, p)| {
            let field = |name: &str| format!("packages[{i}].{name}");
            let Value::Object(p) = p else { return Err(invalid(&format!("packages[{i}]"), "must be an object")) };
            let content = text(p, "content").map_err(|_| invalid(&field("content"), "must be a string"))?;
            let dims = match p.get("dimensions") {
                Some(Value::Object(d)) => d,
                _ => return Err(invalid(&field("dimensions"), "must be {length, width, height}")),
            };
            let declared_value = match p.get("declaredValue") {
                None | Some(Value::Null) => 0.0,
                v => number(v, &field("declaredValue"), -1.0, 1e12)?.max(0.0),
            };
            Ok(Parcel {
                content: content.ok_or_else(|| invalid(&field("content"), "is required"))?,
                weight: number(p.get("weight"), &field("weight"), 0.0, 1000.0)?,
                length: number(dims.get("length"), &field("dimensions.length"), 0.0, 1000.0)?,
                width: number(dims.get("width"), &field("dimensions.width"), 0.0, 1000.0)?,
                height: number(dims.get("height"), &field("dimensions.height"), 0.0, 1000.0)?,
                declared_value,
            })
        })
        .collect()
}

/// The packages as the shipment shows them.
pub fn packages_json(packages: &[Parcel]) -> Value {
    Value::Array(
        packages
            .iter()
            .map(|p| {
                json!({
                    "content": p.content,
                    "weight": json_number(p.weight),
                    "dimensions": { "length": json_number(p.length), "width": json_number(p.width), "height": json_number(p.height) },
                    "declaredValue": json_number(p.declared_value),
                })
            })
            .collect(),
    )
}

/// An amount sent as a number or as `{amount}` (`cod`, `insurance`).
pub fn amount(body: &Map<String, Value>, field: &str) -> Result<Option<f64>, Error> {
    let v = match body.get(field) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => return Ok(None),
        Some(Value::Object(o)) => o.get("amount"),
        v => v,
    };
    number(v, field, 0.0, 1e12).map(Some).map_err(|_| invalid(field, "must be a positive amount or {amount}"))
}

/// `pickup`: `{date: "YYYY-MM-DD", timeFrom, timeTo, instructions?}`, hours
/// 0 to 23 with `timeFrom` first, the date not before `today`.
pub fn pickup(body: &Map<String, Value>, today: &str) -> Result<Option<Pickup>, Error> {
    let p = match body.get("pickup") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => return Ok(None),
        Some(Value::Object(p)) => p,
        Some(_) => return Err(invalid("pickup", "must be {date, timeFrom, timeTo, instructions?}")),
    };
    let date = required_text(p, "date").map_err(|_| invalid("pickup.date", "is required as YYYY-MM-DD"))?;
    let day = chrono::NaiveDate::parse_from_str(&date, "%Y-%m-%d")
        .map_err(|_| invalid("pickup.date", "must be a date as YYYY-MM-DD"))?;
    if today.get(..10).and_then(|t| chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d").ok()).is_some_and(|t| day < t) {
        return Err(invalid("pickup.date", "must not be in the past"));
    }
    let hour = |field: &str| match p.get(field).and_then(Value::as_u64) {
        Some(h) if h <= 23 => Ok(h as u8),
        _ => Err(invalid(&format!("pickup.{field}"), "must be an hour from 0 to 23")),
    };
    let (time_from, time_to) = (hour("timeFrom")?, hour("timeTo")?);
    if time_from >= time_to {
        return Err(invalid("pickup.timeTo", "must be after timeFrom"));
    }
    let instructions = text(p, "instructions")
        .map_err(|_| invalid("pickup.instructions", &format!("must be a string of at most {MAX_TEXT} characters")))?;
    Ok(Some(Pickup { date: day.format("%Y-%m-%d").to_string(), time_from, time_to, instructions }))
}

/// The pickup as the shipment shows it.
pub fn pickup_json(pickup: &Pickup) -> Value {
    json!({ "date": pickup.date, "timeFrom": pickup.time_from, "timeTo": pickup.time_to, "instructions": pickup.instructions })
}

/// `destination`: an object when sent.
pub fn destination(body: &Map<String, Value>) -> Result<Option<Map<String, Value>>, Error> {
    match body.get("destination") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(d)) => Ok(Some(d.clone())),
        Some(_) => Err(invalid("destination", "must be an object")),
    }
}

/// A link to another record (`dealId`...): an id when sent.
pub fn link(body: &Map<String, Value>, field: &str) -> Result<Option<String>, Error> {
    match text(body, field)? {
        Some(id) if !crm_sdk::is_id(&id) => Err(invalid(field, "is not a valid id")),
        other => Ok(other),
    }
}
