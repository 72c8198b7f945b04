//! A body, checked: what an upsert's checks (`upsert.rs`) produced, and the
//! one place it is copied onto a contact, for a write and a dry run alike.

use serde_json::Value;

use crate::companies::Company;
use crate::input::ContactInput;
use crate::location::Location;
use crate::record::Contact;

/// What the checks produced, ready to apply.
#[derive(Clone)]
pub struct Checked {
    pub(crate) location: Option<Location>,
    pub(crate) id_type: Option<String>,
    pub(crate) id_number: Option<String>,
    pub(crate) company: Option<Company>,
    /// `CITY_UNCONFIRMED`, when a lenient upsert kept a city as text.
    pub(crate) warnings: Vec<Value>,
}

/// Copies the body's fields onto a contact.
pub fn apply(c: &mut Contact, input: &ContactInput, checked: Checked) {
    let set = |field: &mut Option<String>, value: &Option<String>| {
        if let Some(v) = value {
            *field = Some(v.clone()).filter(|v| !v.is_empty());
        }
    };
    set(&mut c.email, &input.email);
    set(&mut c.mobile, &input.mobile);
    set(&mut c.phone, &input.phone);
    set(&mut c.first_name, &input.first_name);
    set(&mut c.last_name, &input.last_name);
    set(&mut c.company, &input.company);
    if let Some(company) = checked.company {
        c.company_id = Some(company.id);
        if input.company.is_none() {
            c.company = Some(company.name);
        }
    }
    if let Some(l) = checked.location {
        c.city = l.city;
        c.city_code = l.city_code;
        c.state = l.state;
        c.state_code = l.state_code;
        if l.country.is_some() {
            c.country = l.country;
        }
    } else if let Some(country) = input.location.country.as_ref().filter(|s| !s.trim().is_empty()) {
        c.country = Some(country.trim().to_string());
    }
    if checked.id_type.is_some() {
        c.id_type = checked.id_type;
    }
    if checked.id_number.is_some() {
        c.id_number = checked.id_number;
    }
    set(&mut c.linked_conversation_id, &input.linked_conversation_id);
    if let Some(tags) = &input.tags {
        c.tags = tags.clone();
    }
    for (k, v) in &input.custom {
        if v.is_null() {
            c.custom.remove(k);
        } else {
            c.custom.insert(k.clone(), v.clone());
        }
    }
}
