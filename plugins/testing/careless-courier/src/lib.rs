//! A provider with the mistake `crm-host plugin test` must catch: whatever
//! goes wrong at its carrier (a refusal, a 5xx, a timeout, a broken
//! connection) it answers `rejected`, which tells the host that no label
//! exists and a retry is safe, when the carrier may well have made one, so
//! a label could be bought twice. Tests only.

mod bindings {
    wit_bindgen::generate!({ path: "../../../wit", world: "provider-component" });
}

use bindings::crm::plugin::http::{self, HttpRequest};
use bindings::crm::plugin::settings;
use bindings::crm::plugin::shipping_types::{
    Failure, Label, LabelRequest, ProviderError, Quote, QuoteRequest, Refund, Tracking, TrackingUpdate,
};
use bindings::exports::crm::plugin::provider::{Guest, ProviderInfo};

struct Careless;

/// The integration's base URL, else the carrier's own.
fn base() -> String {
    settings::current()
        .map(|s| s.base_url)
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "https://api.careless.test".into())
}

/// Sends `body` to `path`; any failure at all is `rejected` (the mistake).
fn post(path: &str, body: String) -> Result<Vec<u8>, ProviderError> {
    let request = HttpRequest {
        method: "POST".into(),
        url: format!("{}{path}", base()),
        headers: Vec::new(),
        body: body.into_bytes(),
    };
    let refused = |why: String| ProviderError::Rejected(Failure { code: "CARRIER_ERROR".into(), message: why });
    match http::send(&request) {
        Ok(response) if response.status < 300 => Ok(response.body),
        Ok(response) => Err(refused(format!("the carrier answered {}", response.status))),
        Err(e) => Err(refused(format!("{e:?}"))),
    }
}

impl Guest for Careless {
    fn describe() -> ProviderInfo {
        ProviderInfo {
            name: "careless-courier".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            hosts: vec!["api.careless.test".into()],
            needs_api_key: false,
        }
    }

    fn carriers() -> Result<Vec<String>, ProviderError> {
        Ok(vec!["careless".into()])
    }

    fn rates(_request: QuoteRequest) -> Result<Quote, ProviderError> {
        Ok(Quote { rates: Vec::new(), failed: Vec::new() })
    }

    fn generate(request: LabelRequest) -> Result<Label, ProviderError> {
        post("/labels", format!(r#"{{"reference":"{}"}}"#, request.reference))?;
        Ok(Label {
            tracking_number: format!("CC{}", request.reference),
            track_url: None,
            label_url: None,
            price: 10_000.0,
            currency: "COP".into(),
            provider_shipment_id: None,
        })
    }

    fn track(_tracking_numbers: Vec<String>) -> Result<Vec<Tracking>, ProviderError> {
        Ok(Vec::new())
    }

    fn cancel(_carrier: String, tracking_number: String) -> Result<Refund, ProviderError> {
        post("/cancel", format!(r#"{{"trackingNumber":"{tracking_number}"}}"#))?;
        Ok(Refund { amount: 0.0, currency: "COP".into(), returned: false })
    }

    fn state_abbreviation(_state_code: String) -> Option<String> {
        None
    }

    fn parse_webhook(_headers: Vec<(String, String)>, _body: Vec<u8>) -> Result<Vec<TrackingUpdate>, Failure> {
        Err(Failure { code: "NO_WEBHOOK".into(), message: "This carrier sends no webhooks".into() })
    }
}

bindings::export!(Careless with_types_in bindings);
