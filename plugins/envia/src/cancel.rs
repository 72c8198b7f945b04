//! Cancel: `POST /ship/cancel/`. The refund is what Envia reports
//! (`refundedAmount`, `balanceReturned`); past its daily cap it cancels
//! without refunding.

use serde_json::{Value, json};

use crate::bindings::crm::plugin::shipping_types::{ProviderError, Refund};
use crate::client::{Client, transport};
use crate::wire::{self, items, num, text};

pub fn cancel(client: &Client, carrier: &str, tracking_number: &str) -> Result<Refund, ProviderError> {
    let body = json!({ "carrier": carrier, "trackingNumber": tracking_number });
    let response = client.post("/ship/cancel/", &body).map_err(transport)?;
    let data = wire::read(&response)?;
    let first = items(&data).into_iter().next();
    let field = |name: &str| first.and_then(|first| first.get(name));
    let amount = field("refundedAmount").and_then(num).or_else(|| field("refundAmount").and_then(num)).unwrap_or(0.0);
    let returned = match field("balanceReturned") {
        Some(Value::Bool(b)) => *b,
        other => other.and_then(num).is_some_and(|n| n != 0.0),
    };
    Ok(Refund {
        amount: if returned { amount } else { 0.0 },
        currency: field("refundCurrency").and_then(text).unwrap_or_else(|| "COP".into()),
        returned,
    })
}
