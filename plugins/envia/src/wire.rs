//! Envia's JSON: what we send (addresses, packages) and how we read answers.
//!
//! Answers are read defensively, as Envia's own clients do: numbers may
//! arrive as strings, errors may arrive with HTTP 200 (`meta: "error"`), the
//! error may be an object or a plain string, and a 401 may not be JSON.

use serde_json::{Value, json};

use crate::bindings::crm::plugin::http::HttpResponse;
use crate::bindings::crm::plugin::shipping_types::{Address, Failure, Parcel, Pickup, ProviderError};
use crate::states;

pub fn failure(code: &str, message: &str) -> Failure {
    Failure { code: code.into(), message: message.into() }
}

pub fn rejected(code: &str, message: &str) -> ProviderError {
    ProviderError::Rejected(failure(code, message))
}

pub fn unknown(code: &str, message: &str) -> ProviderError {
    ProviderError::UnknownOutcome(failure(code, message))
}

/// A number sent as a number or as a string (`"250.00"`).
pub fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Text sent as a string or a number (ids, tracking numbers).
pub fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Envia's address: `city` is the 8-digit DANE code and `state` Envia's
/// 2-letter department code; for Colombia the whole street goes in `street`.
pub fn address(a: &Address) -> Value {
    json!({
        "name": a.name,
        "company": a.company.clone().unwrap_or_default(),
        "email": a.email.clone().unwrap_or_default(),
        "phone": a.phone.clone().unwrap_or_default(),
        "street": a.street,
        "number": a.number.clone().unwrap_or_default(),
        "district": a.district.clone().unwrap_or_default(),
        "city": a.dane8,
        "state": states::abbreviation(&a.state_code).unwrap_or_default(),
        "country": a.country,
        "postalCode": a.postal_code.clone().unwrap_or_default(),
        "identificationNumber": a.id_number.clone().unwrap_or_default(),
    })
}

/// Envia's `shipment.pickup`, asked at generation. Only carriers with the
/// `pickup_on_generate` action take it; `generate` checks that first.
pub fn pickup(pickup: &Pickup, packages: &[Parcel]) -> Value {
    json!({
        "date": pickup.date,
        "timeFrom": pickup.time_from,
        "timeTo": pickup.time_to,
        "totalPackages": packages.len(),
        "totalWeight": packages.iter().map(|p| p.weight).sum::<f64>(),
        "weightUnit": "KG",
        "instructions": pickup.instructions.clone().unwrap_or_default(),
    })
}

/// Envia's packages; cash on delivery and insurance ride on each package as
/// additional services.
pub fn packages(packages: &[Parcel], cash_on_delivery: Option<f64>, insurance: Option<f64>) -> Value {
    let list: Vec<Value> = packages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut services = Vec::new();
            if let Some(amount) = cash_on_delivery.filter(|_| i == 0) {
                services.push(json!({ "service": "cash_on_delivery", "data": { "amount": amount } }));
            }
            if let Some(amount) = insurance {
                services.push(json!({ "service": "insurance", "data": { "amount": amount } }));
            }
            json!({
                "type": "box",
                "content": p.content,
                "amount": 1,
                "declaredValue": p.declared_value,
                "insurance": 0,
                "weight": p.weight,
                "weightUnit": "KG",
                "lengthUnit": "CM",
                "dimensions": { "length": p.length, "width": p.width, "height": p.height },
                "additionalServices": services,
            })
        })
        .collect();
    Value::Array(list)
}

/// The `data` of a successful answer, or what the failure means:
/// 5xx and unreadable 2xx answers are unknown outcomes (Envia may have
/// acted); errors Envia states are rejections.
pub fn read(response: &HttpResponse) -> Result<Value, ProviderError> {
    let status = response.status;
    if status >= 500 {
        return Err(unknown("PROVIDER_UNAVAILABLE", &format!("Envia answered HTTP {status}")));
    }
    let body: Option<Value> = serde_json::from_slice(&response.body).ok();
    let Some(body) = body.filter(Value::is_object) else {
        return Err(match status {
            401 | 403 => rejected("PROVIDER_AUTH_FAILED", "Envia refused the API key"),
            429 => rejected("PROVIDER_RATE_LIMITED", "Envia asked to slow down"),
            200..=299 => unknown("PROVIDER_BAD_ANSWER", "Envia's answer could not be read"),
            _ => rejected("PROVIDER_REJECTED", &format!("Envia refused the request (HTTP {status})")),
        });
    };
    if body.get("meta").is_some_and(|meta| meta == "error") || status >= 400 {
        return Err(error(status, &body));
    }
    Ok(body.get("data").cloned().unwrap_or(Value::Null))
}

/// A stated error, normalised: our code, and Envia's message (not its body).
fn error(status: u16, body: &Value) -> ProviderError {
    let (envia_code, message) = match &body["error"] {
        Value::Object(e) => {
            (e.get("code").and_then(num).map(|c| c as i64), e.get("message").or(e.get("description")).and_then(text))
        }
        Value::String(s) => (None, Some(s.clone())),
        _ => (None, None),
    };
    let message = message.or_else(|| text(&body["message"])).unwrap_or_else(|| "Envia refused the request".into());
    let message: String = message.chars().take(300).collect();
    let lower = message.to_lowercase();
    let code = match (status, envia_code) {
        (401 | 403, _) => "PROVIDER_AUTH_FAILED",
        (402, _) => "INSUFFICIENT_BALANCE",
        (429, _) => "PROVIDER_RATE_LIMITED",
        _ if lower.contains("balance") || lower.contains("not enough money") => "INSUFFICIENT_BALANCE",
        (_, Some(1125 | 1126 | 1300 | 1140)) => "NO_COVERAGE",
        (_, Some(1105)) => "PACKAGE_OUT_OF_LIMITS",
        (_, Some(1129 | 1127)) => "MISSING_FIELDS",
        (_, Some(1149)) => "INVALID_ADDRESS",
        (_, Some(1220)) => "INVALID_ID_NUMBER",
        (_, Some(1115)) => "NOT_CANCELABLE",
        (_, Some(1101)) => "NOT_FOUND",
        (_, Some(1147 | 900)) => "ACTION_NOT_SUPPORTED",
        _ => "PROVIDER_REJECTED",
    };
    rejected(code, &message)
}

/// `data` as a list: Envia sends some answers as an array, some as one object.
pub fn items(data: &Value) -> Vec<&Value> {
    match data {
        Value::Array(list) => list.iter().collect(),
        Value::Object(_) => vec![data],
        _ => Vec::new(),
    }
}
