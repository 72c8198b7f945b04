//! The contact record as stored, and the two forms the API shows it in.

use std::collections::BTreeMap;

use crm_sdk::http::Error;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// The contact id at the end of a key that points at a record: every list
/// index key (`index.rs`) and search posting (`search.rs`) ends with it.
pub fn id_of(key: &[u8]) -> String {
    let key = String::from_utf8_lossy(key);
    key.rsplit('/').next().unwrap_or_default().to_string()
}

/// A stored contact. Known fields are typed; other client keys are `custom`.
/// Stored without its empty fields (absent reads as empty), about 40% of
/// its bytes for a typical contact, where nulls were most of the record:
/// the record is the largest value a create writes, and every byte is
/// flushed and compacted again later. Records stored with their nulls read
/// the same.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Contact {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Digits only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mobile: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub company: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub company_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_number: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linked_conversation_id: Option<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub lead_score: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub custom: BTreeMap<String, Value>,
    pub created_at: String,
    pub updated_at: String,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// A contact's first touch (a calling module's `upsert-options.attribution`,
/// a JSON object), kept as the text it came as: it is only ever written out
/// again, so it is never parsed into a map nor serialised key by key.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Attribution(Box<RawValue>);

impl Attribution {
    /// `text` when it is a JSON object.
    pub fn from_json(text: &str) -> Option<Attribution> {
        let raw = serde_json::from_str::<Box<RawValue>>(text).ok()?;
        raw.get().starts_with('{').then_some(Attribution(raw))
    }
}

impl PartialEq for Attribution {
    fn eq(&self, other: &Attribution) -> bool {
        self.0.get() == other.0.get()
    }
}

/// The flattened contact. Custom keys never collide with these: the body
/// parser keeps known and server-owned keys out of `custom`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Flat<'a> {
    id: &'a str,
    first_name: &'a str,
    last_name: &'a str,
    full_name: String,
    company: &'a str,
    company_id: Option<&'a str>,
    email: &'a str,
    mobile: &'a str,
    phone: &'a str,
    city: &'a str,
    city_code: &'a str,
    state: &'a str,
    state_code: &'a str,
    country: Option<&'a str>,
    id_type: Option<&'a str>,
    id_number: Option<&'a str>,
    linked_conversation_id: Option<&'a str>,
    lead_score: i64,
    attribution: Option<&'a Attribution>,
    tags: &'a [String],
    #[serde(flatten)]
    custom: &'a BTreeMap<String, Value>,
    created_at: &'a str,
    updated_at: &'a str,
}

/// Most custom properties a stored contact may hold.
pub const MAX_CUSTOM_PROPERTIES: usize = 100;
/// Largest stored contact, in bytes of JSON, so that every list stays
/// readable: a page of 1,000 such contacts fits the component's memory cap
/// twice over (the page and the answer built from it).
pub const MAX_CONTACT_BYTES: usize = 16 << 10;

/// Refuses a contact that would pass the stored bounds, before anything is written.
pub fn check_bounds(c: &Contact) -> Result<(), Error> {
    if c.custom.len() > MAX_CUSTOM_PROPERTIES {
        return Err(Error::validation(
            format!("A contact holds at most {MAX_CUSTOM_PROPERTIES} custom properties"),
            json!({ "limit": "customProperties", "max": MAX_CUSTOM_PROPERTIES }),
        ));
    }
    let size = serde_json::to_vec(c).map_err(Error::internal)?.len();
    if size > MAX_CONTACT_BYTES {
        return Err(Error::validation(
            format!("A contact is at most {MAX_CONTACT_BYTES} bytes of JSON; this one would be {size}"),
            json!({ "limit": "contactBytes", "max": MAX_CONTACT_BYTES }),
        ));
    }
    Ok(())
}

pub fn key(id: &str) -> String {
    format!("c/{id}")
}

/// A contact as read, with the bytes it was read as: an update commits only
/// while the record still holds them, so two updates of one contact never
/// both apply their index and count changes to the same old version.
pub struct Stored {
    pub contact: Contact,
    pub raw: Vec<u8>,
}

impl Stored {
    /// A contact that is not in the store (a dry run's), as it would be written.
    pub fn unwritten(contact: Contact) -> Result<Stored, Error> {
        let raw = serde_json::to_vec(&contact).map_err(Error::internal)?;
        Ok(Stored { contact, raw })
    }
}

/// Contact `id` as stored now.
pub fn read(id: &str) -> Result<Option<Stored>, Error> {
    let key = key(id);
    let Some(raw) = crm_sdk::store::get(key.as_bytes())? else { return Ok(None) };
    let contact = crm_sdk::kv::decode(&key, &raw)?;
    Ok(Some(Stored { contact, raw }))
}

/// The name a property filter's key stands for: the body's other spellings
/// of a known field read as that field.
pub fn canonical(key: &str) -> &str {
    match key {
        "first_name" => "firstName",
        "last_name" => "lastName",
        "whatsapp_phone" => "mobile",
        other => other,
    }
}

impl Contact {
    pub fn full_name(&self) -> String {
        [self.first_name.as_deref(), self.last_name.as_deref()]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The typed text fields under their property names, in display order.
    fn known(&self) -> [(&'static str, &Option<String>); 15] {
        [
            ("firstName", &self.first_name),
            ("lastName", &self.last_name),
            ("email", &self.email),
            ("mobile", &self.mobile),
            ("phone", &self.phone),
            ("company", &self.company),
            ("companyId", &self.company_id),
            ("city", &self.city),
            ("cityCode", &self.city_code),
            ("state", &self.state),
            ("stateCode", &self.state_code),
            ("country", &self.country),
            ("idType", &self.id_type),
            ("idNumber", &self.id_number),
            ("linkedConversationId", &self.linked_conversation_id),
        ]
    }

    /// Named properties with a value, in a stable order: the known fields
    /// first, then the custom ones.
    pub fn properties(&self) -> Vec<(String, Value)> {
        let mut out: Vec<(String, Value)> = self
            .known()
            .into_iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| (k.to_string(), Value::String(v.clone()))))
            .collect();
        if !self.tags.is_empty() {
            out.push(("tags".into(), json!(self.tags)));
        }
        out.extend(self.custom.iter().map(|(k, v)| (k.clone(), v.clone())));
        out
    }

    /// A property's values as text, for filters (`cityCode`, `email`, a custom key...).
    pub fn property_text(&self, key: &str) -> Vec<String> {
        let canonical = canonical(key);
        let values: Vec<String> = if let Some((_, v)) = self.known().into_iter().find(|(k, _)| *k == canonical) {
            v.iter().cloned().collect()
        } else if canonical == "tags" {
            self.tags.clone()
        } else {
            match self.custom.get(canonical) {
                None | Some(Value::Null) => vec![],
                Some(Value::String(s)) => vec![s.clone()],
                Some(other) => vec![other.to_string()],
            }
        };
        values.into_iter().filter(|s| !s.is_empty()).collect()
    }

    /// The flattened form (lists, 201 answers, `GET /contacts/{id}`): a view
    /// that serialises straight from the record.
    pub fn flattened(&self) -> Flat<'_> {
        fn text(v: &Option<String>) -> &str {
            v.as_deref().unwrap_or("")
        }
        Flat {
            id: &self.id,
            first_name: text(&self.first_name),
            last_name: text(&self.last_name),
            full_name: self.full_name(),
            company: text(&self.company),
            company_id: self.company_id.as_deref(),
            email: text(&self.email),
            mobile: text(&self.mobile),
            phone: text(&self.phone),
            city: text(&self.city),
            city_code: text(&self.city_code),
            state: text(&self.state),
            state_code: text(&self.state_code),
            country: self.country.as_deref(),
            id_type: self.id_type.as_deref(),
            id_number: self.id_number.as_deref(),
            linked_conversation_id: self.linked_conversation_id.as_deref(),
            lead_score: self.lead_score,
            attribution: self.attribution.as_ref(),
            tags: &self.tags,
            custom: &self.custom,
            created_at: &self.created_at,
            updated_at: &self.updated_at,
        }
    }

    /// The unflattened form (the 200 answer of an upsert that updated).
    pub fn unflattened(&self, organization_id: &str) -> Value {
        let properties: Vec<Value> = self
            .properties()
            .into_iter()
            .map(|(key, value)| json!({ "key": key, "value": value, "isVisible": true }))
            .collect();
        json!({
            "_id": self.id,
            "organizationId": organization_id,
            "properties": properties,
            "leadScore": self.lead_score,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typical() -> Contact {
        Contact {
            id: "6751f0c2a1b2c3d4e5f60718".into(),
            first_name: Some("Ana".into()),
            email: Some("ana@x.co".into()),
            city: Some("Medellín".into()),
            city_code: Some("05001".into()),
            state: Some("Antioquia".into()),
            state_code: Some("05".into()),
            created_at: "2026-12-03T18:00:00.000Z".into(),
            updated_at: "2026-12-03T18:00:00.000Z".into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_record_is_stored_without_its_empty_fields_and_reads_back_whole() {
        let contact = typical();
        let stored = serde_json::to_string(&contact).unwrap();
        assert!(!stored.contains("null") && !stored.contains("[]") && !stored.contains("leadScore"), "{stored}");
        assert_eq!(serde_json::from_str::<Contact>(&stored).unwrap(), contact);
    }

    #[test]
    fn a_record_stored_with_its_nulls_reads_the_same() {
        let with_nulls = r#"{"id":"6751f0c2a1b2c3d4e5f60718","firstName":"Ana","lastName":null,"email":"ana@x.co","mobile":null,"phone":null,"company":null,"companyId":null,"city":"Medellín","cityCode":"05001","state":"Antioquia","stateCode":"05","country":null,"idType":null,"idNumber":null,"linkedConversationId":null,"leadScore":0,"attribution":null,"tags":[],"custom":{},"createdAt":"2026-12-03T18:00:00.000Z","updatedAt":"2026-12-03T18:00:00.000Z"}"#;
        assert_eq!(serde_json::from_str::<Contact>(with_nulls).unwrap(), typical());
    }
}
