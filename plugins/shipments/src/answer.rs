//! The shipment error answers of the spec, in one place.

use crm_sdk::http::Error;

use crate::bindings::crm::plugin::shipping_types::ProviderError;
use crate::record::Failure;

pub fn not_configured() -> Error {
    Error::new(422, "ENVIA_NOT_CONFIGURED", "No shipping provider is configured: set the Envia API key in integrations")
}

pub fn origin_not_configured() -> Error {
    Error::new(422, "ORIGIN_NOT_CONFIGURED", "The origin address is not configured")
}

pub fn shipment_not_found() -> Error {
    Error::new(404, "SHIPMENT_NOT_FOUND", "The shipment does not exist in this organization")
}

pub fn contact_not_found() -> Error {
    Error::new(404, "CONTACT_NOT_FOUND", "The contact does not exist in this organization")
}

pub fn in_progress(shipment_id: Option<&str>) -> Error {
    let e = Error::new(409, "SHIPMENT_IN_PROGRESS", "Another request is working on this shipment; try again shortly");
    match shipment_id {
        Some(id) => e.with("shipmentId", id),
        None => e,
    }
}

pub fn needs_review(shipment_id: &str, failure: Option<&Failure>) -> Error {
    let e = Error::new(
        409,
        "SHIPMENT_NEEDS_REVIEW",
        "The provider's outcome is unknown: a label may exist and may have been charged. Review it with the provider before using a new idempotencyKey",
    )
    .with("shipmentId", shipment_id);
    match failure {
        Some(f) => e.with("error", f.shown()),
        None => e,
    }
}

pub fn key_reused() -> Error {
    Error::new(400, "IDEMPOTENCY_KEY_REUSED", "This idempotencyKey was already used with another contact")
}

/// A failed track or cancel: a rejection is the client's 422 under `code`;
/// an unknown outcome is the provider's fault, 502.
pub fn provider_failed(code: &str, what: &str, e: ProviderError) -> Error {
    match e {
        ProviderError::Rejected(f) => {
            Error::new(422, code, format!("The provider refused to {what}")).with("error", Failure::from(f).shown())
        }
        ProviderError::UnknownOutcome(f) => {
            Error::new(502, "PROVIDER_UNAVAILABLE", format!("The provider did not {what}: try again later"))
                .with("error", Failure::from(f).shown())
        }
    }
}
