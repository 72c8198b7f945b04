//! The contact record as stored, and the two forms the API shows it in.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// A stored contact. Known fields are typed; other client keys are `custom`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Contact {
    pub id: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<String>,
    /// Digits only.
    pub mobile: Option<String>,
    pub phone: Option<String>,
    pub company: Option<String>,
    pub company_id: Option<String>,
    pub city: Option<String>,
    pub city_code: Option<String>,
    pub state: Option<String>,
    pub state_code: Option<String>,
    pub country: Option<String>,
    pub id_type: Option<String>,
    pub id_number: Option<String>,
    pub linked_conversation_id: Option<String>,
    pub lead_score: i64,
    pub attribution: Option<Value>,
    pub tags: Vec<String>,
    pub custom: BTreeMap<String, Value>,
    pub created_at: String,
    pub updated_at: String,
}

pub fn key(id: &str) -> String {
    format!("c/{id}")
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

    /// Named properties with a value, in a stable order: the known fields
    /// first, then the custom ones.
    pub fn properties(&self) -> Vec<(String, Value)> {
        let text = |k: &str, v: &Option<String>| v.as_ref().map(|v| (k.to_string(), Value::String(v.clone())));
        let mut out: Vec<(String, Value)> = [
            text("firstName", &self.first_name),
            text("lastName", &self.last_name),
            text("email", &self.email),
            text("mobile", &self.mobile),
            text("phone", &self.phone),
            text("company", &self.company),
            text("companyId", &self.company_id),
            text("city", &self.city),
            text("cityCode", &self.city_code),
            text("state", &self.state),
            text("stateCode", &self.state_code),
            text("country", &self.country),
            text("idType", &self.id_type),
            text("idNumber", &self.id_number),
            text("linkedConversationId", &self.linked_conversation_id),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !self.tags.is_empty() {
            out.push(("tags".into(), json!(self.tags)));
        }
        out.extend(self.custom.iter().map(|(k, v)| (k.clone(), v.clone())));
        out
    }

    /// A property's values as text, for filters (`cityCode`, `email`, a custom key...).
    pub fn property_text(&self, key: &str) -> Vec<String> {
        let canonical = match key {
            "first_name" => "firstName",
            "last_name" => "lastName",
            "whatsapp_phone" => "mobile",
            other => other,
        };
        self.properties()
            .into_iter()
            .filter(|(k, _)| k == canonical)
            .flat_map(|(_, v)| match v {
                Value::String(s) => vec![s],
                Value::Array(items) => items.into_iter().filter_map(|i| i.as_str().map(str::to_string)).collect(),
                Value::Null => vec![],
                other => vec![other.to_string()],
            })
            .filter(|s| !s.is_empty())
            .collect()
    }

    /// The flattened form (lists, 201 answers, `GET /contacts/{id}`).
    pub fn flattened(&self) -> Value {
        let mut out = Map::new();
        out.insert("id".into(), json!(self.id));
        out.insert("firstName".into(), json!(self.first_name.clone().unwrap_or_default()));
        out.insert("lastName".into(), json!(self.last_name.clone().unwrap_or_default()));
        out.insert("fullName".into(), json!(self.full_name()));
        out.insert("company".into(), json!(self.company.clone().unwrap_or_default()));
        out.insert("companyId".into(), json!(self.company_id));
        out.insert("email".into(), json!(self.email.clone().unwrap_or_default()));
        out.insert("mobile".into(), json!(self.mobile.clone().unwrap_or_default()));
        out.insert("phone".into(), json!(self.phone.clone().unwrap_or_default()));
        out.insert("city".into(), json!(self.city.clone().unwrap_or_default()));
        out.insert("cityCode".into(), json!(self.city_code.clone().unwrap_or_default()));
        out.insert("state".into(), json!(self.state.clone().unwrap_or_default()));
        out.insert("stateCode".into(), json!(self.state_code.clone().unwrap_or_default()));
        out.insert("country".into(), json!(self.country));
        out.insert("idType".into(), json!(self.id_type));
        out.insert("idNumber".into(), json!(self.id_number));
        out.insert("linkedConversationId".into(), json!(self.linked_conversation_id));
        out.insert("leadScore".into(), json!(self.lead_score));
        out.insert("attribution".into(), self.attribution.clone().unwrap_or(Value::Null));
        out.insert("tags".into(), json!(self.tags));
        for (k, v) in &self.custom {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
        out.insert("createdAt".into(), json!(self.created_at));
        out.insert("updatedAt".into(), json!(self.updated_at));
        Value::Object(out)
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
