//! The sender's address, configured by the app (`PUT
//! /admin/orgs/{org}/shipping/origin`) and never sent through the API.

use crm_sdk::catalog;
use crm_sdk::http::{Error, json_object, json_response};
use crm_sdk::kv;
use crm_sdk::types::{Request, Response};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::answer;
use crate::bindings::crm::plugin::shipping_types::Address;
use crate::input::{invalid, required_text, text};

const KEY: &str = "origin";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    name: String,
    company: Option<String>,
    email: Option<String>,
    phone: String,
    street: String,
    number: Option<String>,
    district: Option<String>,
    city_code: String,
    postal_code: Option<String>,
    id_number: Option<String>,
}

pub fn put(req: &Request) -> Result<Response, Error> {
    let body = json_object(req)?;
    let city_code = required_text(&body, "cityCode")?;
    if catalog::lookup(&city_code).is_none() {
        return Err(invalid("cityCode", "is not a municipality code of the catalog"));
    }
    let origin = Origin {
        name: required_text(&body, "name")?,
        company: text(&body, "company")?,
        email: text(&body, "email")?,
        phone: required_text(&body, "phone")?,
        street: required_text(&body, "street")?,
        number: text(&body, "number")?,
        district: text(&body, "district")?,
        city_code,
        postal_code: text(&body, "postalCode")?,
        id_number: text(&body, "idNumber")?,
    };
    kv::put(KEY, &origin)?;
    Ok(json_response(200, &json!({ "success": true, "data": origin })))
}

/// The origin as a provider address; `ORIGIN_NOT_CONFIGURED` when missing.
pub fn load() -> Result<Address, Error> {
    let origin: Origin = kv::get(KEY)?.ok_or_else(answer::origin_not_configured)?;
    let city = catalog::lookup(&origin.city_code).ok_or_else(answer::origin_not_configured)?;
    Ok(Address {
        name: origin.name,
        company: origin.company,
        email: origin.email,
        phone: Some(origin.phone),
        street: origin.street,
        number: origin.number,
        district: origin.district,
        city_code: city.code,
        dane8: city.dane8,
        city_name: city.name,
        state_code: city.state_code,
        state_name: city.state_name,
        country: "CO".into(),
        postal_code: origin.postal_code,
        id_number: origin.id_number,
    })
}
