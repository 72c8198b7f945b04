//! One label: `POST /ship/generate/`. Called once per attempt; a timeout, a
//! network failure, a 5xx or an unreadable success is an unknown outcome
//! (Envia may have made and charged the label).

use serde_json::json;

use crate::bindings::crm::plugin::shipping_types::{Label, LabelRequest, ProviderError};
use crate::client::{Client, transport};
use crate::wire::{self, items, num, text, unknown};

pub fn label(client: &Client, request: &LabelRequest) -> Result<Label, ProviderError> {
    let body = json!({
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
