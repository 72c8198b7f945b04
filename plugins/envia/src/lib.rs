//! The Envia provider (envia.com), as the `provider-component` world: Envia's
//! Shipping API (rates, labels, tracking, cancel) and Queries API (carriers)
//! behind the `provider` interface. It reaches only the hosts it declares
//! (Envia's, production and sandbox) and the URLs the organization sets.
//!
//! Layout:
//! - [`client`]: the account's URLs and key, and requests to Envia;
//! - [`wire`]: Envia's JSON shapes: addresses, packages, numbers that arrive
//!   as strings, the `meta: "error"` envelope (also on HTTP 200), and what
//!   each failure means (`rejected` or `unknown-outcome`);
//! - [`states`]: DIVIPOLA departments to Envia's 2-letter codes;
//! - [`status`]: Envia's tracking status names to ours;
//! - one file per call: [`rates`], [`generate`], [`track`], [`cancel`],
//!   [`webhook`].
//!
//! Nothing here retries: a generate that may have reached Envia is reported
//! as an unknown outcome and the shipments module decides.

mod cancel;
mod client;
mod generate;
mod rates;
mod states;
mod status;
mod track;
mod webhook;
mod wire;

mod bindings {
    wit_bindgen::generate!({ path: "../../wit", world: "provider-component" });
}

use bindings::crm::plugin::shipping_types::{
    Failure, Label, LabelRequest, ProviderError, Quote, QuoteRequest, Refund, Tracking, TrackingUpdate,
};
use bindings::exports::crm::plugin::provider::{Guest, ProviderInfo};

struct Envia;

impl Guest for Envia {
    fn describe() -> ProviderInfo {
        ProviderInfo {
            name: "envia".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            hosts: client::ENVIA_HOSTS.iter().map(|h| h.to_string()).collect(),
            needs_api_key: true,
        }
    }

    fn carriers() -> Result<Vec<String>, ProviderError> {
        rates::carriers(&client::Client::configured()?)
    }

    fn rates(request: QuoteRequest) -> Result<Quote, ProviderError> {
        rates::quote(&client::Client::configured()?, &request)
    }

    fn generate(request: LabelRequest) -> Result<Label, ProviderError> {
        generate::label(&client::Client::configured()?, &request)
    }

    fn track(tracking_numbers: Vec<String>) -> Result<Vec<Tracking>, ProviderError> {
        track::track(&client::Client::configured()?, &tracking_numbers)
    }

    fn cancel(carrier: String, tracking_number: String) -> Result<Refund, ProviderError> {
        cancel::cancel(&client::Client::configured()?, &carrier, &tracking_number)
    }

    fn state_abbreviation(state_code: String) -> Option<String> {
        states::abbreviation(&state_code).map(str::to_string)
    }

    fn parse_webhook(headers: Vec<(String, String)>, body: Vec<u8>) -> Result<Vec<TrackingUpdate>, Failure> {
        webhook::parse(&headers, &body)
    }
}

bindings::export!(Envia with_types_in bindings);
