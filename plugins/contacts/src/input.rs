//! Reading a contact body: both spellings of names, digits-only mobiles, which
//! keys are the server's (ignored), and custom properties (kept, bounded).

use std::collections::BTreeMap;

use crm_sdk::http::Error;
use serde_json::{Map, Value, json};

use crate::location::LocationInput;

/// Keys the server owns: a client's value is ignored.
const SERVER_OWNED: &[&str] = &[
    "_id",
    "id",
    "organizationId",
    "stateCode",
    "leadScore",
    "createdAt",
    "updatedAt",
    "fullName",
    "properties",
    "attribution",
];

/// Keys read into typed fields.
const KNOWN: &[&str] = &[
    "email",
    "mobile",
    "whatsapp_phone",
    "phone",
    "first_name",
    "firstName",
    "last_name",
    "lastName",
    "company",
    "companyId",
    "city",
    "cityCode",
    "state",
    "country",
    "idType",
    "idNumber",
    "linkedConversationId",
    "tags",
];

const MAX_TEXT: usize = 500;
const MAX_CUSTOM_KEYS: usize = 50;
const MAX_CUSTOM_VALUE: usize = 2000;
const MAX_TAGS: usize = 50;

/// A parsed body. `None` is "not sent"; for location keys an empty string is kept.
#[derive(Debug, Default)]
pub struct ContactInput {
    pub email: Option<String>,
    pub mobile: Option<String>,
    pub phone: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub company: Option<String>,
    pub company_id: Option<String>,
    pub location: LocationInput,
    pub id_type: Option<String>,
    pub id_number: Option<String>,
    pub linked_conversation_id: Option<String>,
    pub tags: Option<Vec<String>>,
    /// `Value::Null` removes a custom property.
    pub custom: BTreeMap<String, Value>,
}

fn invalid(field: &str, why: &str) -> Error {
    Error::validation(format!("{field} {why}"), json!({ "field": field }))
}

/// A string field: absent or null → `None`; not a string → 400.
fn text(body: &Map<String, Value>, field: &str) -> Result<Option<String>, Error> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.chars().count() <= MAX_TEXT => Ok(Some(s.clone())),
        Some(Value::String(_)) => Err(invalid(field, &format!("is longer than {MAX_TEXT} characters"))),
        Some(Value::Number(n)) if field == "mobile" || field == "whatsapp_phone" || field == "idNumber" => {
            Ok(Some(n.to_string()))
        }
        Some(_) => Err(invalid(field, "must be a string")),
    }
}

fn first_of(body: &Map<String, Value>, fields: &[&str]) -> Result<Option<String>, Error> {
    for f in fields {
        if let Some(v) = text(body, f)? {
            return Ok(Some(v));
        }
    }
    Ok(None)
}

/// `Some(trimmed)` unless blank.
fn trimmed(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

pub fn digits(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

pub fn parse(body: &Map<String, Value>) -> Result<ContactInput, Error> {
    let email = trimmed(text(body, "email")?);
    if let Some(e) = &email
        && (!e.contains('@') || e.contains(char::is_whitespace) || e.len() > 254)
    {
        return Err(invalid("email", "is not an email address"));
    }
    let mobile = match trimmed(first_of(body, &["mobile", "whatsapp_phone"])?) {
        None => None,
        Some(raw) => {
            let d = digits(&raw);
            if d.len() < 7 || d.len() > 15 {
                return Err(invalid("mobile", "must have 7 to 15 digits"));
            }
            Some(d)
        }
    };
    let tags = match body.get("tags") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) if items.len() <= MAX_TAGS => Some(
            items
                .iter()
                .map(|t| t.as_str().map(|s| s.trim().to_string()).ok_or_else(|| invalid("tags", "must be strings")))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err(invalid("tags", &format!("must be an array of at most {MAX_TAGS} strings"))),
    };
    let mut custom = BTreeMap::new();
    for (key, value) in body {
        if KNOWN.contains(&key.as_str()) || SERVER_OWNED.contains(&key.as_str()) {
            continue;
        }
        if key.is_empty() || key.len() > 64 || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b)) {
            return Err(invalid(key, "is not a property name (letters, digits, _ . -, at most 64)"));
        }
        let value = match value {
            Value::String(s) if s.chars().count() <= MAX_CUSTOM_VALUE => value.clone(),
            Value::Number(_) | Value::Bool(_) | Value::Null => value.clone(),
            Value::String(_) => return Err(invalid(key, &format!("is longer than {MAX_CUSTOM_VALUE} characters"))),
            _ => return Err(invalid(key, "must be a string, number or boolean")),
        };
        custom.insert(key.clone(), value);
    }
    if custom.len() > MAX_CUSTOM_KEYS {
        return Err(Error::validation(format!("At most {MAX_CUSTOM_KEYS} custom properties per request"), json!({})));
    }
    Ok(ContactInput {
        email,
        mobile,
        phone: trimmed(text(body, "phone")?),
        first_name: first_of(body, &["firstName", "first_name"])?.map(|s| s.trim().to_string()),
        last_name: first_of(body, &["lastName", "last_name"])?.map(|s| s.trim().to_string()),
        company: text(body, "company")?.map(|s| s.trim().to_string()),
        company_id: trimmed(text(body, "companyId")?),
        location: LocationInput {
            city: text(body, "city")?,
            city_code: text(body, "cityCode")?,
            state: text(body, "state")?,
            country: text(body, "country")?,
        },
        id_type: trimmed(text(body, "idType")?),
        id_number: trimmed(text(body, "idNumber")?),
        linked_conversation_id: trimmed(text(body, "linkedConversationId")?),
        tags,
        custom,
    })
}
