//! Carriers (Queries API) and quotes: Envia quotes one carrier per call, so
//! every carrier is asked at once through `send-all`, and a carrier that
//! fails lands in `failed` without failing the quote.

use serde_json::{Value, json};

use crate::bindings::crm::plugin::shipping_types::{CarrierFailure, ProviderError, Quote, QuoteRequest, Rate};
use crate::client::{Client, transport};
use crate::wire::{self, items, num, text};

/// Most carriers quoted at once.
const MAX_CARRIERS: usize = 20;

/// Carrier codes for Colombia, as `shipment.carrier` expects them.
pub fn carriers(client: &Client) -> Result<Vec<String>, ProviderError> {
    let response = client.query("/carrier?country_code=CO").map_err(transport)?;
    let data = wire::read(&response)?;
    let mut names: Vec<String> = items(&data)
        .into_iter()
        .filter(|c| c.get("active").is_none_or(|a| a != &json!(0) && a != &json!(false)))
        .filter_map(|c| c.get("name").or(c.get("carrier_name")).and_then(text))
        .collect();
    names.dedup();
    names.truncate(MAX_CARRIERS);
    Ok(names)
}

pub fn quote(client: &Client, request: &QuoteRequest) -> Result<Quote, ProviderError> {
    let carriers = carriers(client)?;
    let bodies: Vec<Value> = carriers
        .iter()
        .map(|carrier| {
            json!({
                "origin": wire::address(&request.origin),
                "destination": wire::address(&request.destination),
                "packages": wire::packages(&request.packages, None, None),
                "shipment": { "type": 1, "carrier": carrier },
                "settings": { "currency": "COP" },
            })
        })
        .collect();
    let mut quote = Quote { rates: Vec::new(), failed: Vec::new() };
    for (carrier, answer) in carriers.iter().zip(client.post_all("/ship/rate/", &bodies)) {
        let failed = |code: String, message: String| CarrierFailure { carrier: carrier.clone(), code, message };
        match answer.map_err(transport).and_then(|r| wire::read(&r)) {
            Err(ProviderError::Rejected(f) | ProviderError::UnknownOutcome(f)) => {
                quote.failed.push(failed(f.code, f.message))
            }
            Ok(data) => {
                let rates: Vec<Rate> = items(&data).into_iter().filter_map(|item| rate(carrier, item)).collect();
                if rates.is_empty() {
                    quote.failed.push(failed("NO_RATES".into(), "The carrier returned no rate for this route".into()));
                }
                quote.rates.extend(rates);
            }
        }
    }
    Ok(quote)
}

fn rate(carrier: &str, item: &Value) -> Option<Rate> {
    let service = text(&item["service"])?;
    let price = num(&item["totalPrice"]).or_else(|| num(&item["basePrice"]))?;
    Some(Rate {
        carrier: text(&item["carrier"]).unwrap_or_else(|| carrier.to_string()),
        service_description: text(&item["serviceDescription"]).unwrap_or_else(|| service.clone()),
        service,
        price,
        currency: text(&item["currency"]).unwrap_or_else(|| "COP".into()),
        delivery_estimate: text(&item["deliveryEstimate"]),
    })
}
