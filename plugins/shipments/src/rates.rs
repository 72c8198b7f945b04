//! `POST /shipments/rates`: every carrier of every configured provider,
//! cheapest first. A carrier (or a whole provider) that fails is listed in
//! `failed`; it never fails the quote. Writes nothing, charges nothing.

use crm_sdk::http::{Error, json_number, json_object, json_response};
use crm_sdk::types::{Request, Response};
use serde_json::{Value, json};

use crate::bindings::crm::plugin::shipping;
use crate::bindings::crm::plugin::shipping_types::{ProviderError, QuoteRequest};
use crate::generate::load_contact;
use crate::record::{self, Failure};
use crate::{answer, destination, input, origin};

pub fn quote(req: &Request) -> Result<Response, Error> {
    let body = json_object(req)?;
    let contact_id = input::contact_id(&body)?;
    let packages = input::packages(&body)?;
    let over = input::destination(&body)?;
    let providers = shipping::providers();
    let Some(first) = providers.first() else { return Err(answer::not_configured()) };
    let origin = origin::load()?;
    let contact = load_contact(&contact_id)?;
    let mut destination = destination::resolve(&contact, over.as_ref(), first)?;
    if destination.address.street.is_empty() {
        // Quoting needs a street; the city decides the price.
        destination.address.street = destination.address.city_name.clone();
    }
    let request = QuoteRequest { origin, destination: destination.address, packages };

    let mut rates: Vec<(f64, Value)> = Vec::new();
    let mut failed: Vec<Value> = Vec::new();
    for provider in &providers {
        match shipping::rates(provider, &request) {
            Ok(quote) => {
                rates.extend(quote.rates.into_iter().map(|r| {
                    let shown = json!({
                        "provider": provider,
                        "carrier": r.carrier,
                        "service": r.service,
                        "serviceDescription": r.service_description,
                        "price": json_number(r.price),
                        "currency": r.currency,
                        "deliveryEstimate": r.delivery_estimate,
                    });
                    (r.price, shown)
                }));
                failed.extend(quote.failed.into_iter().map(
                    |f| json!({ "carrier": f.carrier, "message": record::failure_message(&f.code), "code": f.code }),
                ));
            }
            Err(ProviderError::Rejected(f) | ProviderError::UnknownOutcome(f)) => {
                let failure = Failure::from(f);
                failed.push(json!({ "carrier": provider, "code": failure.code, "message": failure.message }));
            }
        }
    }
    rates.sort_by(|a, b| a.0.total_cmp(&b.0));
    let rates: Vec<Value> = rates.into_iter().map(|(_, r)| r).collect();
    Ok(json_response(200, &json!({ "success": true, "rates": rates, "failed": failed })))
}
