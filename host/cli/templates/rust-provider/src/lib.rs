//! `__NAME__`: a shipping provider for the CRM, built against
//! `crm:plugin@__WIT_VERSION__` (`wit/plugin.wit`, the contract's published
//! text). It starts as a courier with flat rates and no external API; make
//! it call your carrier through the `http` import (declare the carrier's
//! hosts in `describe`: the host refuses any other).
//!
//! The host calls each function in a fresh instance with a deadline. Answer
//! `rejected` only when nothing happened at the carrier (retrying is then
//! safe); when you cannot tell (a timeout, a 5xx after sending), answer
//! `unknown` so that the host never creates a second label.

mod bindings {
    wit_bindgen::generate!({ path: "wit", world: "provider-component" });
}

use bindings::crm::plugin::runtime;
use bindings::crm::plugin::shipping_types::{
    Failure, Label, LabelRequest, ProviderError, Quote, QuoteRequest, Rate, Refund, Status, Tracking, TrackingEvent,
    TrackingUpdate,
};
use bindings::exports::crm::plugin::provider::{Guest, ProviderInfo};

const CARRIER: &str = "__NAME__";
/// Price per service: a base and a price per started kilogram, in COP.
const SERVICES: &[(&str, &str, f64, f64)] =
    &[("same_day", "Same day", 9_000.0, 1_500.0), ("next_day", "Next day", 6_000.0, 1_000.0)];
/// Tracking numbers are this prefix and the shipment's reference.
const PREFIX: &str = "TRK";

struct Provider;

/// A service's price for packages weighing `weight` kg in all: every
/// started kilogram is charged whole, one at least.
fn price(weight: f64, base: f64, per_kg: f64) -> f64 {
    base + per_kg * weight.ceil().max(1.0)
}

fn rejected(code: &str, message: &str) -> ProviderError {
    ProviderError::Rejected(Failure { code: code.into(), message: message.into() })
}

impl Guest for Provider {
    fn describe() -> ProviderInfo {
        ProviderInfo {
            name: "__NAME__".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            hosts: Vec::new(),
            needs_api_key: false,
        }
    }

    fn carriers() -> Result<Vec<String>, ProviderError> {
        Ok(vec![CARRIER.into()])
    }

    fn rates(request: QuoteRequest) -> Result<Quote, ProviderError> {
        let weight: f64 = request.packages.iter().map(|p| p.weight).sum();
        let rates = SERVICES
            .iter()
            .map(|(service, description, base, per_kg)| Rate {
                carrier: CARRIER.into(),
                service: (*service).into(),
                service_description: (*description).into(),
                price: price(weight, *base, *per_kg),
                currency: "COP".into(),
                delivery_estimate: Some((*description).into()),
            })
            .collect();
        Ok(Quote { rates, failed: Vec::new() })
    }

    fn generate(request: LabelRequest) -> Result<Label, ProviderError> {
        if request.carrier != CARRIER {
            return Err(rejected("UNKNOWN_CARRIER", "This provider's carrier is __NAME__"));
        }
        let Some((_, _, base, per_kg)) = SERVICES.iter().find(|(s, ..)| *s == request.service) else {
            return Err(rejected("UNKNOWN_SERVICE", "The services are same_day and next_day"));
        };
        let weight: f64 = request.packages.iter().map(|p| p.weight).sum();
        runtime::log(runtime::Level::Info, &format!("label for {}", request.reference));
        Ok(Label {
            tracking_number: format!("{PREFIX}{}", request.reference),
            track_url: None,
            label_url: None,
            price: price(weight, *base, *per_kg),
            currency: "COP".into(),
            provider_shipment_id: Some(request.reference),
        })
    }

    fn track(tracking_numbers: Vec<String>) -> Result<Vec<Tracking>, ProviderError> {
        Ok(tracking_numbers
            .into_iter()
            .filter(|n| n.starts_with(PREFIX))
            .map(|n| Tracking {
                tracking_number: n,
                status: Status::Created,
                events: vec![TrackingEvent {
                    status: Status::Created,
                    description: "Label created".into(),
                    location: None,
                    occurred_at: runtime::now(),
                }],
            })
            .collect())
    }

    fn cancel(_carrier: String, tracking_number: String) -> Result<Refund, ProviderError> {
        if !tracking_number.starts_with(PREFIX) {
            return Err(rejected("NOT_FOUND", "Unknown tracking number"));
        }
        Ok(Refund { amount: 0.0, currency: "COP".into(), returned: false })
    }

    fn state_abbreviation(state_code: String) -> Option<String> {
        Some(state_code)
    }

    fn parse_webhook(_headers: Vec<(String, String)>, _body: Vec<u8>) -> Result<Vec<TrackingUpdate>, Failure> {
        Err(Failure { code: "NO_WEBHOOK".into(), message: "This carrier sends no webhooks".into() })
    }
}

bindings::export!(Provider with_types_in bindings);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_started_kilogram_is_charged_whole_and_one_at_least() {
        assert_eq!(price(0.2, 6_000.0, 1_000.0), 7_000.0);
        assert_eq!(price(2.0, 6_000.0, 1_000.0), 8_000.0);
        assert_eq!(price(2.1, 6_000.0, 1_000.0), 9_000.0);
    }
}
