//! The stored shipment (exactly its API shape) and its indexes, written
//! together in one batch.

use crm_sdk::http::Error;
use crm_sdk::store::{self, Op};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::bindings::crm::plugin::shipping_types::{self, Status};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shipment {
    pub id: String,
    pub contact_id: String,
    pub provider: String,
    pub carrier: String,
    pub service: String,
    pub status: String,
    pub tracking_number: Option<String>,
    pub track_url: Option<String>,
    pub label_url: Option<String>,
    #[serde(serialize_with = "amount")]
    pub price: Option<f64>,
    pub currency: Option<String>,
    pub packages: Value,
    pub destination: Value,
    /// The pickup asked for with the label (`{date, timeFrom, timeTo, instructions}`).
    #[serde(default)]
    pub pickup: Option<Value>,
    pub idempotency_key: Option<String>,
    pub deal_id: Option<String>,
    pub quotation_id: Option<String>,
    pub invoice_id: Option<String>,
    pub events: Vec<Event>,
    pub refund: Option<Refund>,
    /// The last provider failure, normalised (`{code, message}`); the
    /// provider's own words are kept beside the record (`pw/<id>`), for the
    /// app, never in it.
    pub error: Option<Failure>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub status: String,
    pub description: String,
    pub location: Option<String>,
    pub occurred_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Refund {
    #[serde(serialize_with = "amount")]
    pub amount: f64,
    pub currency: String,
    pub returned: bool,
}

/// A provider failure: the provider's code and our message for it, as
/// stored and shown. The provider's own words go to the log and, when the
/// shipment is saved, to `pw/<id>` for the app: never to a caller.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Failure {
    pub code: String,
    pub message: String,
    #[serde(skip)]
    pub provider_message: Option<String>,
}

impl Failure {
    /// A failure of our own making (no provider words).
    pub fn ours(code: &str, message: &str) -> Failure {
        Failure { code: code.into(), message: message.into(), provider_message: None }
    }

    /// `{code, message}`, as the API shows it.
    pub fn shown(&self) -> Value {
        serde_json::json!({ "code": self.code, "message": self.message })
    }
}

impl From<shipping_types::Failure> for Failure {
    fn from(f: shipping_types::Failure) -> Failure {
        crm_sdk::runtime::log(crm_sdk::runtime::Level::Warn, &format!("provider failure {}: {}", f.code, f.message));
        Failure { message: failure_message(&f.code).into(), code: f.code, provider_message: Some(f.message) }
    }
}

/// Amounts read back as sent: `12000`, not `12000.0`.
fn amount<S: serde::Serializer, A: Into<Option<f64>> + Copy>(value: &A, s: S) -> Result<S::Ok, S::Error> {
    match (*value).into() {
        Some(n) => crm_sdk::http::json_number(n).serialize(s),
        None => s.serialize_none(),
    }
}

pub const DRAFT: &str = "draft";
pub const CREATED: &str = "created";
pub const CANCELLED: &str = "cancelled";
pub const NEEDS_REVIEW: &str = "needs_review";

/// Every status a shipment can have.
pub const STATUSES: &[&str] = &[
    DRAFT,
    CREATED,
    "picked_up",
    "in_transit",
    "out_for_delivery",
    "delivered",
    CANCELLED,
    NEEDS_REVIEW,
    "exception",
    "returned",
];

/// Statuses the scheduler keeps refreshing: a label exists and the parcel
/// has not reached an end.
pub const ACTIVE: &[&str] = &["created", "picked_up", "in_transit", "out_for_delivery", "exception"];

/// Our name for a provider status.
pub fn status_name(status: Status) -> &'static str {
    match status {
        Status::Created => "created",
        Status::PickedUp => "picked_up",
        Status::InTransit => "in_transit",
        Status::OutForDelivery => "out_for_delivery",
        Status::Delivered => "delivered",
        Status::Cancelled => "cancelled",
        Status::Exception => "exception",
        Status::Returned => "returned",
    }
}

pub fn key(id: &str) -> String {
    format!("s/{id}")
}

pub fn tracking_key(provider: &str, tracking_number: &str) -> String {
    format!("tn/{provider}/{tracking_number}")
}

impl Shipment {
    pub fn has_label(&self) -> bool {
        self.tracking_number.is_some()
    }

    pub fn json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

pub fn load(id: &str) -> Result<Option<Shipment>, Error> {
    if !crm_sdk::is_id(id) {
        return Ok(None);
    }
    crm_sdk::kv::get(&key(id))
}

/// Writes `shipment` with its indexes; `previous_status` is the status its
/// index entry is under (none for a new shipment).
pub fn save(shipment: &Shipment, previous_status: Option<&str>) -> Result<(), Error> {
    Ok(store::batch(&save_ops(shipment, previous_status)?)?)
}

/// The writes of [`save`], for a caller that adds its own to the same batch.
pub fn save_ops(shipment: &Shipment, previous_status: Option<&str>) -> Result<Vec<Op>, Error> {
    let bytes = serde_json::to_vec(shipment).map_err(Error::internal)?;
    let id = &shipment.id;
    let mut ops = vec![
        Op::Put((key(id).into_bytes(), bytes)),
        Op::Put((format!("c/{}/{id}", shipment.contact_id).into_bytes(), Vec::new())),
    ];
    if let Some(old) = previous_status.filter(|old| *old != shipment.status) {
        ops.push(Op::Delete(format!("st/{old}/{id}").into_bytes()));
    }
    ops.push(Op::Put((format!("st/{}/{id}", shipment.status).into_bytes(), Vec::new())));
    if let Some(tn) = &shipment.tracking_number {
        ops.push(Op::Put((tracking_key(&shipment.provider, tn).into_bytes(), id.clone().into_bytes())));
    }
    if let Some(words) = shipment.error.as_ref().and_then(|e| e.provider_message.as_ref()) {
        ops.push(Op::Put((format!("pw/{id}").into_bytes(), words.clone().into_bytes())));
    }
    Ok(ops)
}

/// Our message for a provider's failure code: what a caller is shown
/// instead of the provider's own text (which stays in the log and on the
/// shipment for the app).
pub fn failure_message(code: &str) -> &'static str {
    match code {
        "INSUFFICIENT_BALANCE" => "The provider account has insufficient balance",
        "PROVIDER_AUTH_FAILED" => "The provider refused the configured API key",
        "PROVIDER_RATE_LIMITED" => "The provider is limiting requests: try again later",
        "NO_COVERAGE" => "The carrier does not serve this route",
        "PACKAGE_OUT_OF_LIMITS" => "The package is outside the carrier's size or weight limits",
        "MISSING_FIELDS" | "INVALID_PAYLOAD" => "The provider found required shipment data missing or invalid",
        "INVALID_ADDRESS" => "The provider refused an address",
        "INVALID_ID_NUMBER" => "The provider refused an identity document number",
        "NOT_CANCELABLE" => "The provider cannot cancel this shipment",
        "NOT_FOUND" => "The provider does not know this shipment",
        "ACTION_NOT_SUPPORTED" | "PICKUP_NOT_SUPPORTED" => "The carrier does not support this action",
        "UNKNOWN_CARRIER" | "UNKNOWN_SERVICE" => "The provider does not offer this carrier or service",
        "NO_RATES" => "The carrier returned no rate for this shipment",
        "PROVIDER_NOT_CONFIGURED" => "This provider is not configured for the organization",
        "PROVIDER_TIMEOUT" => "The provider did not answer in time",
        "PROVIDER_UNREACHABLE" | "PROVIDER_UNAVAILABLE" | "PROVIDER_FAILED" => "The provider could not be reached",
        "PROVIDER_BAD_ANSWER" => "The provider's answer could not be read",
        _ => "The provider refused the request",
    }
}
