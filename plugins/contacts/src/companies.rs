//! Companies: a name, the same strict location as contacts, the same
//! identity document rule (a NIT's check digit above all), custom properties.

use std::collections::BTreeMap;

use crm_first_party::contact_body::{MAX_CUSTOM_KEYS, MAX_CUSTOM_VALUE, is_property_name};
use crm_sdk::http::{self, Error, json_response};
use crm_sdk::types::{Request, Response};
use crm_sdk::{kv, runtime};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::input::trimmed;
use crate::location::{self, Location, LocationInput};
use crate::{identity, search};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Company {
    pub id: String,
    pub name: String,
    pub city: Option<String>,
    pub city_code: Option<String>,
    pub state: Option<String>,
    pub state_code: Option<String>,
    pub country: Option<String>,
    /// DIAN document type code, as a contact's.
    pub id_type: Option<String>,
    pub id_number: Option<String>,
    pub custom: BTreeMap<String, Value>,
    pub created_at: String,
    pub updated_at: String,
}

pub fn key(id: &str) -> String {
    format!("company/{id}")
}

impl Company {
    fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("id".into(), json!(self.id));
        out.insert("name".into(), json!(self.name));
        out.insert("city".into(), json!(self.city.clone().unwrap_or_default()));
        out.insert("cityCode".into(), json!(self.city_code.clone().unwrap_or_default()));
        out.insert("state".into(), json!(self.state.clone().unwrap_or_default()));
        out.insert("stateCode".into(), json!(self.state_code.clone().unwrap_or_default()));
        out.insert("country".into(), json!(self.country));
        for (key, value) in [("idType", &self.id_type), ("idNumber", &self.id_number)] {
            if let Some(value) = value {
                out.insert(key.into(), json!(value));
            }
        }
        for (k, v) in &self.custom {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
        // A company saved before these were typed keeps them as custom properties.
        for key in ["idType", "idNumber"] {
            out.entry(key).or_insert(Value::Null);
        }
        out.insert("createdAt".into(), json!(self.created_at));
        out.insert("updatedAt".into(), json!(self.updated_at));
        Value::Object(out)
    }

    fn set_location(&mut self, l: Location) {
        self.city = l.city;
        self.city_code = l.city_code;
        self.state = l.state;
        self.state_code = l.state_code;
        self.country = l.country;
    }
}

/// The company a contact names, with the spec's two error texts.
pub fn existing_for_contact(id: &str) -> Result<Company, Error> {
    if !crm_sdk::is_id(id) {
        return Err(Error::text(400, "Invalid companyId"));
    }
    kv::get(&key(id))?.ok_or_else(|| Error::text(400, "Company not found or does not belong to this organization"))
}

const SERVER_OWNED: &[&str] = &["_id", "id", "organizationId", "stateCode", "createdAt", "updatedAt"];
const LOCATION: &[&str] = &["city", "cityCode", "state", "country"];
const IDENTITY: &[&str] = &["idType", "idNumber"];

fn text_field(body: &Map<String, Value>, field: &str) -> Result<Option<String>, Error> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.chars().count() <= 500 => Ok(Some(s.clone())),
        Some(_) => Err(Error::validation(
            format!("{field} must be a string of at most 500 characters"),
            json!({ "field": field }),
        )),
    }
}

/// Applies a body to a company (location first, so nothing changes on a city error).
fn apply(company: &mut Company, body: &Map<String, Value>, clear_on_empty_city: bool) -> Result<(), Error> {
    let input = LocationInput {
        city: text_field(body, "city")?,
        city_code: text_field(body, "cityCode")?,
        state: text_field(body, "state")?,
        country: text_field(body, "country")?,
    };
    let location = location::resolve(&input, clear_on_empty_city)?;
    let id_number = match body.get("idNumber") {
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => text_field(body, "idNumber")?,
    };
    let (id_type, id_number) = identity::checked(
        trimmed(text_field(body, "idType")?).as_deref(),
        trimmed(id_number).as_deref(),
        company.id_type.as_deref(),
    )?;
    if let Some(name) = text_field(body, "name")? {
        let name = name.trim().to_string();
        if name.is_empty() {
            return Err(Error::validation("name must not be empty", json!({ "field": "name" })));
        }
        company.name = name;
    }
    let is_custom =
        |k: &str| k != "name" && !SERVER_OWNED.contains(&k) && !LOCATION.contains(&k) && !IDENTITY.contains(&k);
    if body.keys().filter(|k| is_custom(k)).count() > MAX_CUSTOM_KEYS {
        return Err(Error::validation(format!("At most {MAX_CUSTOM_KEYS} custom properties per request"), json!({})));
    }
    for (k, v) in body {
        if !is_custom(k) {
            continue;
        }
        match v {
            _ if !is_property_name(k) => {
                return Err(Error::validation(
                    format!("{k:?} is not a property name: 1 to 64 letters, digits, _, . or -"),
                    json!({ "field": k }),
                ));
            }
            Value::Null => {
                company.custom.remove(k);
            }
            Value::String(text) if text.chars().count() > MAX_CUSTOM_VALUE => {
                return Err(Error::validation(
                    format!("{k} is longer than {MAX_CUSTOM_VALUE} characters"),
                    json!({ "field": k }),
                ));
            }
            Value::String(_) | Value::Number(_) | Value::Bool(_) => {
                company.custom.insert(k.clone(), v.clone());
            }
            _ => {
                return Err(Error::validation(
                    format!("{k} must be a string, number or boolean"),
                    json!({ "field": k }),
                ));
            }
        }
    }
    if company.custom.len() > 100 {
        return Err(Error::validation("At most 100 custom properties", json!({})));
    }
    if let Some(l) = location {
        company.set_location(l);
    }
    if id_type.is_some() {
        company.id_type = id_type;
        company.custom.remove("idType");
    }
    if id_number.is_some() {
        company.id_number = id_number;
        company.custom.remove("idNumber");
    }
    Ok(())
}

/// `POST /companies`.
pub fn create(req: &Request) -> Result<Response, Error> {
    let body = http::json_object(req)?;
    let now = runtime::now();
    let mut company = Company { id: runtime::new_id(), created_at: now.clone(), updated_at: now, ..Company::default() };
    apply(&mut company, &body, false)?;
    if company.name.is_empty() {
        return Err(Error::validation("name is required", json!({ "field": "name" })));
    }
    kv::put(&key(&company.id), &company)?;
    Ok(json_response(201, &json!({ "success": true, "message": "Company created", "data": company.to_json() })))
}

/// `PUT /companies/{id}`.
pub fn update(req: &Request, id: &str) -> Result<Response, Error> {
    let mut company = find(id)?;
    let body = http::json_object(req)?;
    apply(&mut company, &body, true)?;
    company.updated_at = runtime::now();
    kv::put(&key(&company.id), &company)?;
    Ok(json_response(200, &json!({ "success": true, "message": "Company updated", "data": company.to_json() })))
}

/// `GET /companies/{id}`.
pub fn get(id: &str) -> Result<Response, Error> {
    Ok(json_response(200, &json!({ "success": true, "data": find(id)?.to_json() })))
}

fn find(id: &str) -> Result<Company, Error> {
    let found = if crm_sdk::is_id(id) { kv::get::<Company>(&key(id))? } else { None };
    found.ok_or_else(|| Error::not_found("Company"))
}

/// `GET /companies`: newest first; `search` matches the name, without case
/// or accents and with its initialisms joined (as contacts' search does).
pub fn list(req: &Request) -> Result<Response, Error> {
    let paging = http::Paging::from_query(req, 100, 1000)?;
    let term = http::query_first(req, "search").map(search::needle).filter(|s| !s.is_empty());
    let Some(term) = term else {
        // Ids sort by creation: the page is read from the end, the host counts.
        let total = crm_sdk::store::count_found(b"company/", b"")? as usize;
        let page: Vec<Company> = kv::page_reverse_records("company/", paging.offset(), paging.limit)?;
        return Ok(paging.response(&page.iter().map(Company::to_json).collect::<Vec<_>>(), total));
    };
    // A search reads every company, newest first, keeping only the page; it
    // decodes only those whose stored bytes may hold the term.
    let holds_term = search::raw_filter(&term);
    let (skip, mut total, mut data) = (paging.offset(), 0u64, Vec::new());
    kv::walk_reverse("company/", |_, v| {
        if !holds_term.may_match(v) {
            return;
        }
        let Ok(c) = serde_json::from_slice::<Company>(v) else { return };
        if search::holds(&c.name, &term) {
            if total >= skip && data.len() < paging.limit {
                data.push(c.to_json());
            }
            total += 1;
        }
    })?;
    Ok(paging.response(&data, total as usize))
}
