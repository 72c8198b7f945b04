//! One label: `POST /ship/generate/`. Called once per attempt; a timeout, a
//! network failure, a 5xx or an unreadable success is an unknown outcome
//! (Envia may have made and charged the label).

use serde_json::{Value, json};

use crate::bindings::crm::plugin::shipping_types::{Label, LabelRequest, ProviderError};
use crate::client::{Client, transport};
use crate::wire::{self, items, num, rejected, text, unknown};

pub fn label(client: &Client, request: &LabelRequest) -> Result<Label, ProviderError> {
    if request.pickup.is_some() && !picks_up_on_generate(client, &request.carrier)? {
        return Err(rejected("PICKUP_NOT_SUPPORTED", "This carrier does not take a pickup with the label"));
    }
    let mut body = json!({
        "origin": wire::address(&request.origin),
        "destination": wire::address(&request.destination),
        "packages": wire::packages(&request.packages, request.cash_on_delivery, request.insurance),
        "shipment": {
            "type": 1,
            "carrier": request.carrier,
            "service": request.service,
            "orderReference": request.reference,
        },
        "settings": { "printFormat": "PDF", "printSize": "STOCK_4X6", "currency": "COP" },
    });
    if let Some(pickup) = &request.pickup
        && let Some(shipment) = body.get_mut("shipment").and_then(Value::as_object_mut)
    {
        shipment.insert("pickup".into(), wire::pickup(pickup, &request.packages));
    }
    let response = client.post("/ship/generate/", &body).map_err(transport)?;
    let data = wire::read(&response)?;
    let made = items(&data).into_iter().next();
    // A 200 without a tracking number: Envia may still have made the label.
    let Some(made) = made.filter(|m| text(&m["trackingNumber"]).is_some()) else {
        return Err(unknown("PROVIDER_BAD_ANSWER", "Envia's answer has no tracking number"));
    };
    Ok(Label {
        tracking_number: text(&made["trackingNumber"]).unwrap_or_default(),
        track_url: text(&made["trackUrl"]),
        label_url: text(&made["label"]),
        price: num(&made["totalPrice"]).unwrap_or(0.0),
        currency: text(&made["currency"]).unwrap_or_else(|| "COP".into()),
        provider_shipment_id: text(&made["shipmentId"]),
    })
}

/// Whether `carrier` lists `pickup_on_generate` among its actions (Queries
/// API). Nothing has been made yet, so any failure here is a rejection.
fn picks_up_on_generate(client: &Client, carrier: &str) -> Result<bool, ProviderError> {
    if carrier.is_empty() || !carrier.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Ok(false);
    }
    let actions =
        client.query(&format!("/carrier-action/{carrier}")).map_err(transport).and_then(|r| wire::read(&r)).map_err(
            |e| match e {
                ProviderError::Rejected(f) | ProviderError::UnknownOutcome(f) => ProviderError::Rejected(f),
            },
        )?;
    Ok(items(&actions).into_iter().any(|a| text(&a["action_name"]).as_deref() == Some("pickup_on_generate")))
}
