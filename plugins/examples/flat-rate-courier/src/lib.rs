//! A partner's shipping provider, written from `wit/plugin.wit` alone (no
//! SDK, no host code): "Mensajería Local", a courier with flat rates that
//! needs no external API, so it imports `http` but never calls it.
//!
//! Build: `cargo build --release --target wasm32-wasip2 -p flat-rate-courier`,
//! then copy `flat_rate_courier.wasm` into the host's `--plugins-dir` and
//! enable it for an organization with
//! `PUT /admin/orgs/{org}/integrations/flat-rate-courier` (body `{}`). The
//! tests load it from `--plugins-dir` this way (`tests/it/partner_provider.rs`).

mod bindings {
    wit_bindgen::generate!({ path: "../../../wit", world: "provider-component" });
}

use bindings::crm::plugin::runtime;
use bindings::crm::plugin::shipping_types::{
    Failure, Label, LabelRequest, ProviderError, Quote, QuoteRequest, Rate, Refund, Status, Tracking, TrackingEvent,
    TrackingUpdate,
};
use bindings::exports::crm::plugin::provider::{Guest, ProviderInfo};

const CARRIER: &str = "mensajero-local";
/// Price per service: a base and a price per started kilogram, in COP.
const SERVICES: &[(&str, &str, f64, f64)] = &[
    ("same_day", "Entrega el mismo día", 9_000.0, 1_500.0),
    ("next_day", "Entrega al día siguiente", 6_000.0, 1_000.0),
];
/// Tracking numbers are this prefix and the shipment's reference.
const PREFIX: &str = "MLC";

struct FlatRateCourier;

fn price(request_weight: f64, base: f64, per_kg: f64) -> f64 {
    base + per_kg * request_weight.ceil().max(1.0)
}

fn rejected(code: &str, message: &str) -> ProviderError {
    ProviderError::Rejected(Failure { code: code.into(), message: message.into() })
}

impl Guest for FlatRateCourier {
    fn describe() -> ProviderInfo {
        ProviderInfo {
            name: "flat-rate-courier".into(),
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
        let Some((_, _, base, per_kg)) = SERVICES.iter().find(|(s, ..)| *s == request.service) else {
            return Err(rejected("UNKNOWN_SERVICE", "This courier offers same_day and next_day"));
        };
        if request.carrier != CARRIER {
            return Err(rejected("UNKNOWN_CARRIER", "This courier is mensajero-local"));
        }
        // The messenger always collects at the origin, so a pickup asked for
        // with the label is honoured by the label itself; only its window is logged.
        if let Some(pickup) = &request.pickup {
            runtime::log(
                runtime::Level::Info,
                &format!("pickup on {} from {}:00 to {}:00", pickup.date, pickup.time_from, pickup.time_to),
            );
        }
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
        // The courier reports by phone; the label is all the system knows.
        Ok(tracking_numbers
            .into_iter()
            .filter(|n| n.starts_with(PREFIX))
            .map(|n| Tracking {
                tracking_number: n,
                status: Status::Created,
                events: vec![TrackingEvent {
                    status: Status::Created,
                    description: "Esperando recogida".into(),
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
        // Nothing was charged in advance, so nothing is refunded.
        Ok(Refund { amount: 0.0, currency: "COP".into(), returned: false })
    }

    fn state_abbreviation(state_code: String) -> Option<String> {
        Some(state_code)
    }

    fn parse_webhook(_headers: Vec<(String, String)>, _body: Vec<u8>) -> Result<Vec<TrackingUpdate>, Failure> {
        Err(Failure { code: "NO_WEBHOOK".into(), message: "This courier sends no webhooks".into() })
    }
}

bindings::export!(FlatRateCourier with_types_in bindings);
