//! Reading a contact body: both spellings of names, digits-only mobiles, which
//! keys are the server's (ignored), and custom properties (kept, bounded).
//!
//! Text is stored in Unicode NFC, so one name or email typed with composed or
//! decomposed accents is one value; an email with an invisible or control
//! character (a zero-width space, a byte-order mark) is refused rather than
//! stored as a look-alike of another. Every size a client controls is
//! bounded here (the limits table of `docs/integrators.md` lists them); the size of a
//! whole contact is bounded in `record.rs`.

use std::collections::BTreeMap;

use crm_first_party::contact_body::{KNOWN, MAX_CUSTOM_KEYS, MAX_CUSTOM_VALUE, SERVER_OWNED, is_property_name};
use crm_first_party::raw_text::without_case_or_accents;
use crm_sdk::http::Error;
use serde_json::{Map, Value, json};
use unicode_normalization::UnicodeNormalization;

use crate::location::LocationInput;

/// Longest text field, in characters.
pub const MAX_TEXT: usize = 500;
/// Most tags, and the longest tag in characters.
pub const MAX_TAGS: usize = 50;
pub const MAX_TAG: usize = 100;

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

/// Text as stored and compared: Unicode NFC.
pub fn nfc(text: &str) -> String {
    text.nfc().collect()
}

/// Characters that show nothing (zero-width spaces and joiners, direction
/// marks, the byte-order mark, soft hyphens, variation selectors...) or are
/// controls: two emails differing only by them would look the same.
fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(c as u32,
            0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
            | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
            | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0x1D173..=0x1D17A | 0xE0000..=0xE0FFF)
}

/// A string field: absent or null → `None`; not a string → 400.
fn text(body: &Map<String, Value>, field: &str) -> Result<Option<String>, Error> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.chars().count() <= MAX_TEXT => Ok(Some(nfc(s))),
        Some(Value::String(_)) => Err(invalid(field, &format!("is longer than {MAX_TEXT} characters"))),
        Some(Value::Number(n)) if field == "mobile" || field == "whatsapp_phone" || field == "idNumber" => {
            Ok(Some(n.to_string()))
        }
        Some(_) => Err(invalid(field, "must be a string")),
    }
}

/// The first of `fields` (one value's spellings) that is sent; every one sent
/// is checked, so a bad second spelling is a 400 rather than ignored.
fn first_of(body: &Map<String, Value>, fields: &[&str]) -> Result<Option<String>, Error> {
    let mut first = None;
    for f in fields {
        if let Some(v) = text(body, f)? {
            first.get_or_insert(v);
        }
    }
    Ok(first)
}

/// `Some(trimmed)` unless blank.
pub fn trimmed(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// What people write inside a phone number besides its digits: a mobile
/// may hold these, and search drops them inside any number.
pub const NUMBER_SEPARATORS: [char; 7] = [' ', '-', '.', '(', ')', '+', '/'];

/// Whether `text` is written as a phone number: digits and
/// [`NUMBER_SEPARATORS`], nothing else (a letter is never dropped).
pub fn written_as_number(text: &str) -> bool {
    text.chars().all(|c| c.is_ascii_digit() || NUMBER_SEPARATORS.contains(&c))
}

pub fn digits(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

pub fn parse(body: &Map<String, Value>) -> Result<ContactInput, Error> {
    // In this order, so that a body with several faults is told of the same one.
    let (email, mobile, tags, custom) = (email(body)?, mobile(body)?, tags(body)?, custom(body)?);
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

/// The email, trimmed: one `@` between a local part and a domain, no
/// space, nothing invisible, at most 254 bytes.
fn email(body: &Map<String, Value>) -> Result<Option<String>, Error> {
    let email = trimmed(text(body, "email")?);
    if let Some(e) = &email {
        if e.chars().any(is_invisible) {
            return Err(invalid("email", "has an invisible or control character"));
        }
        let shaped = e.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && !domain.is_empty() && !domain.contains('@') && !e.contains(char::is_whitespace)
        });
        if !shaped || e.len() > 254 {
            return Err(invalid("email", "is not an email address"));
        }
    }
    Ok(email)
}

/// The mobile (or `whatsapp_phone`) as its 7 to 15 digits.
fn mobile(body: &Map<String, Value>) -> Result<Option<String>, Error> {
    let Some(raw) = trimmed(first_of(body, &["mobile", "whatsapp_phone"])?) else { return Ok(None) };
    // A letter is not dropped: `300-ABC-1234` would be a wrong number.
    if !written_as_number(&raw) {
        return Err(invalid("mobile", "must be a phone number: digits, written with spaces or - . ( ) / +"));
    }
    let d = digits(&raw);
    if d.len() < 7 || d.len() > 15 {
        return Err(invalid("mobile", "must have 7 to 15 digits"));
    }
    Ok(Some(d))
}

/// The tags, each once: a blank one or a repeat adds nothing, and `VIP`,
/// `vip` and `Promoción`, `promocion` are repeats (the first spelling is kept).
fn tags(body: &Map<String, Value>) -> Result<Option<Vec<String>>, Error> {
    let items = match body.get("tags") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) if items.len() <= MAX_TAGS => items,
        Some(_) => return Err(invalid("tags", &format!("must be an array of at most {MAX_TAGS} strings"))),
    };
    let mut tags: Vec<String> = Vec::with_capacity(items.len());
    let mut folded_tags = std::collections::HashSet::new();
    for item in items {
        let tag = match item.as_str().map(|s| nfc(s.trim())) {
            Some(tag) if tag.chars().count() <= MAX_TAG => tag,
            Some(_) => return Err(invalid("tags", &format!("must be strings of at most {MAX_TAG} characters"))),
            None => return Err(invalid("tags", "must be strings")),
        };
        if !tag.is_empty() && folded_tags.insert(without_case_or_accents(&tag)) {
            tags.push(tag);
        }
    }
    Ok(Some(tags))
}

/// Every key that is no contact field nor the server's: a custom property,
/// by its name's rule, with a bounded scalar value.
fn custom(body: &Map<String, Value>) -> Result<BTreeMap<String, Value>, Error> {
    let mut custom = BTreeMap::new();
    for (key, value) in body {
        if KNOWN.contains(&key.as_str()) || SERVER_OWNED.contains(&key.as_str()) {
            continue;
        }
        if !is_property_name(key) {
            return Err(invalid(key, "is not a property name (letters, digits, _ . -, at most 64)"));
        }
        let value = match value {
            Value::String(s) if s.chars().count() <= MAX_CUSTOM_VALUE => Value::String(nfc(s)),
            Value::Number(_) | Value::Bool(_) | Value::Null => value.clone(),
            Value::String(_) => return Err(invalid(key, &format!("is longer than {MAX_CUSTOM_VALUE} characters"))),
            _ => return Err(invalid(key, "must be a string, number or boolean")),
        };
        custom.insert(key.clone(), value);
    }
    if custom.len() > MAX_CUSTOM_KEYS {
        return Err(Error::validation(format!("At most {MAX_CUSTOM_KEYS} custom properties per request"), json!({})));
    }
    Ok(custom)
}

/// Property tests on hostile text ([`crm_hostile_text`]): any body is read
/// into what the rules below promise, or refused with a 400 and a code.
#[cfg(test)]
mod properties {
    use super::*;
    use crm_hostile_text::{around, config, text};
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::sample::select;

    /// Texts as a body's fields hold them: emails, mobiles and names as
    /// people write them, with hostile characters in, or anything (past
    /// [`MAX_TEXT`] too).
    fn string() -> impl Strategy<Value = String> {
        let shapes = select(vec![
            "ana@example.com",
            "ana.gómez@acme.com.co",
            "a@b",
            "@acme.co",
            "ana@@acme.co",
            "300 123 4567",
            "+57 (300) 123-4567",
            "3001234567",
            "57-300-123-4567",
            "123456",
            "María José",
            "Gómez Núñez",
            "VIP",
            "900123456-8",
        ])
        .prop_map(String::from);
        prop_oneof![3 => shapes.clone(), 4 => around(shapes), 3 => text(60), 1 => text(520)]
    }

    /// A tag: short, repeated in other cases and accents, or past [`MAX_TAG`].
    fn tag() -> impl Strategy<Value = String> {
        let shapes = select(vec!["VIP", "vip", "Promoción", "promocion", " ", "cliente nuevo"]).prop_map(String::from);
        prop_oneof![4 => shapes.clone(), 4 => around(shapes), 2 => text(12), 1 => "[a-zé]{101}".prop_map(String::from)]
    }

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            8 => string().prop_map(Value::String),
            1 => any::<i64>().prop_map(Value::from),
            1 => any::<f64>().prop_map(Value::from),
            1 => any::<bool>().prop_map(Value::Bool),
            1 => Just(Value::Null),
            2 => vec(tag(), 0..56).prop_map(|tags| Value::Array(tags.into_iter().map(Value::String).collect())),
            1 => Just(json!({ "nested": [1] })),
        ]
    }

    fn key() -> impl Strategy<Value = String> {
        let known: Vec<&str> = KNOWN.iter().chain(SERVER_OWNED).copied().chain(["whatsapp_phone", "tags"]).collect();
        let known = select(known).prop_map(String::from);
        prop_oneof![4 => known, 2 => "[A-Za-z0-9_.-]{1,12}".prop_map(String::from), 1 => text(12), 1 => "[a-z]{65}".prop_map(String::from)]
    }

    fn body() -> impl Strategy<Value = Map<String, Value>> {
        vec((key(), value()), 0..14).prop_map(|fields| fields.into_iter().collect())
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn a_body_is_read_as_the_rules_say_or_refused_with_a_code(body in body()) {
            let input = match parse(&body) {
                Err(e) => {
                    prop_assert_eq!(e.status, 400);
                    prop_assert_eq!(e.body.get("code").and_then(Value::as_str), Some("VALIDATION_ERROR"));
                    return Ok(());
                }
                Ok(input) => input,
            };
            if let Some(mobile) = &input.mobile {
                prop_assert!((7..=15).contains(&mobile.len()) && mobile.bytes().all(|b| b.is_ascii_digit()), "{mobile:?}");
            }
            if let Some(email) = &input.email {
                let (local, domain) = email.split_once('@').unwrap_or_default();
                prop_assert!(!local.is_empty() && !domain.is_empty() && !domain.contains('@'), "{email:?}");
                prop_assert!(email.len() <= 254 && !email.chars().any(|c| c.is_whitespace() || is_invisible(c)), "{email:?}");
                prop_assert_eq!(email, &nfc(email));
            }
            for text in [&input.phone, &input.first_name, &input.last_name, &input.company, &input.location.city] {
                prop_assert!(text.as_ref().is_none_or(|t| t.chars().count() <= MAX_TEXT && *t == nfc(t)));
            }
            if let Some(tags) = &input.tags {
                prop_assert!(tags.len() <= MAX_TAGS);
                let folded: std::collections::HashSet<String> = tags.iter().map(|t| without_case_or_accents(t)).collect();
                prop_assert_eq!(folded.len(), tags.len(), "repeats kept: {:?}", tags);
                prop_assert!(tags.iter().all(|t| !t.is_empty() && t.chars().count() <= MAX_TAG && *t == t.trim()));
            }
            prop_assert!(input.custom.len() <= MAX_CUSTOM_KEYS);
            for (key, value) in &input.custom {
                prop_assert!(is_property_name(key) && !KNOWN.contains(&key.as_str()), "{key:?}");
                prop_assert!(value.as_str().is_none_or(|s| s.chars().count() <= MAX_CUSTOM_VALUE));
                prop_assert!(!value.is_array() && !value.is_object());
            }
        }
    }
}
