//! The destination: the contact's address and city unless `destination` is
//! sent, with the city resolved by the catalog's one rule. Only Colombia is
//! served; an unresolved city is 422 `INVALID_CITY` with candidates the
//! client picks from (the service never picks one).

use crm_sdk::catalog::{self, CityInput, Municipality, Resolution, UnresolvedStatus};
use crm_sdk::http::Error;
use serde_json::{Map, Value, json};

use crate::bindings::crm::plugin::shipping;
use crate::bindings::crm::plugin::shipping_types::Address;
use crate::input::{invalid, text};

pub struct Destination {
    pub address: Address,
    /// As the shipment shows it.
    pub json: Value,
}

/// Builds the destination from the contact (flattened JSON) and the optional
/// override. `provider` names whose state abbreviations candidates carry.
pub fn resolve(
    contact: &Map<String, Value>,
    over: Option<&Map<String, Value>>,
    provider: &str,
) -> Result<Destination, Error> {
    let empty = Map::new();
    let over = over.unwrap_or(&empty);
    let from_contact = |key: &str| contact.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
    let field = |key: &str| -> Result<Option<String>, Error> {
        text(over, key).map_err(|_| invalid(&format!("destination.{key}"), "must be a short string"))
    };

    let (city_code, city, state) = (field("cityCode")?, field("city")?, field("state")?);
    let country = field("country")?.or_else(|| from_contact("country").map(str::to_string));
    // The contact's code, unless the override names a city.
    let input = if city_code.is_some() || city.is_some() {
        CityInput { city_code, city, state, country }
    } else if let Some(code) = from_contact("cityCode") {
        CityInput { city_code: Some(code.to_string()), city: None, state: None, country }
    } else {
        CityInput {
            city_code: None,
            city: from_contact("city").map(str::to_string),
            state: from_contact("state").map(str::to_string),
            country,
        }
    };
    let city = match catalog::resolve(&input) {
        Resolution::Resolved(m) => m,
        Resolution::Foreign(_) => return Err(invalid_city("unsupported_country", &input, Vec::new(), provider)),
        Resolution::Absent => return Err(invalid_city("none", &input, Vec::new(), provider)),
        Resolution::Unresolved(u) => {
            let (reason, candidates) = match u.status {
                UnresolvedStatus::Ambiguous => ("ambiguous", u.candidates),
                UnresolvedStatus::Fuzzy => ("fuzzy", u.candidates),
                UnresolvedStatus::None => ("none", u.candidates),
                UnresolvedStatus::InvalidCode => ("none", Vec::new()),
            };
            return Err(invalid_city(reason, &input, candidates, provider));
        }
    };

    let contact_name = from_contact("fullName").or_else(|| from_contact("company")).or_else(|| from_contact("email"));
    let address = Address {
        name: field("name")?.or_else(|| contact_name.map(str::to_string)).unwrap_or_else(|| "Destinatario".into()),
        company: field("company")?.or_else(|| from_contact("company").map(str::to_string)),
        email: field("email")?.or_else(|| from_contact("email").map(str::to_string)),
        phone: field("phone")?.or_else(|| from_contact("mobile").or_else(|| from_contact("phone")).map(str::to_string)),
        street: field("street")?
            .or(field("address")?)
            .or_else(|| from_contact("address").map(str::to_string))
            .unwrap_or_default(),
        number: field("number")?,
        district: field("district")?,
        city_code: city.code.clone(),
        dane8: city.dane8.clone(),
        city_name: city.name.clone(),
        state_code: city.state_code.clone(),
        state_name: city.state_name.clone(),
        country: "CO".into(),
        postal_code: field("postalCode")?,
        id_number: field("idNumber")?.or_else(|| from_contact("idNumber").map(str::to_string)),
    };
    let json = json!({
        "name": address.name,
        "company": address.company,
        "email": address.email,
        "phone": address.phone,
        "street": address.street,
        "district": address.district,
        "city": city.short_name,
        "cityCode": address.city_code,
        "state": address.state_name,
        "stateCode": address.state_code,
        "country": "CO",
        "postalCode": address.postal_code,
        "idNumber": address.id_number,
    });
    Ok(Destination { address, json })
}

fn invalid_city(reason: &str, input: &CityInput, candidates: Vec<Municipality>, provider: &str) -> Error {
    let mut shown = Map::new();
    for (key, value) in
        [("cityCode", &input.city_code), ("city", &input.city), ("state", &input.state), ("country", &input.country)]
    {
        if let Some(v) = value {
            shown.insert(key.into(), Value::String(v.clone()));
        }
    }
    let codes: Vec<String> = candidates.iter().map(|m| m.state_code.clone()).collect();
    let abbreviations = if codes.is_empty() { Vec::new() } else { shipping::state_abbreviations(provider, &codes) };
    let candidates: Vec<Value> = candidates
        .iter()
        .zip(abbreviations.into_iter().chain(std::iter::repeat(None)))
        .map(|(m, iso)| {
            json!({
                "code": m.code,
                "dane8": m.dane8,
                "name": m.name,
                "stateCode": m.state_code,
                "stateName": m.state_name,
                "stateIso": iso,
            })
        })
        .collect();
    let message = match reason {
        "unsupported_country" => "Only destinations in Colombia are served".to_string(),
        "none" if shown.is_empty() => "The destination has no city: send destination.cityCode".to_string(),
        _ => "The destination city is not unambiguous: resend a candidate code as destination.cityCode".to_string(),
    };
    Error::new(422, "INVALID_CITY", message)
        .with("error", "INVALID_CITY")
        .with("reason", reason)
        .with("input", Value::Object(shown))
        .with("candidates", candidates)
}
