//! Tracking: `POST /ship/generaltrack/` with several numbers at once. Unknown
//! numbers are simply absent from the answer.

use serde_json::{Value, json};

use crate::bindings::crm::plugin::shipping_types::{ProviderError, Tracking, TrackingEvent};
use crate::client::{Client, transport};
use crate::status::from_envia;
use crate::wire::{self, items, text};

pub fn track(client: &Client, numbers: &[String]) -> Result<Vec<Tracking>, ProviderError> {
    if numbers.is_empty() {
        return Ok(Vec::new());
    }
    let response = client.post("/ship/generaltrack/", &json!({ "trackingNumbers": numbers })).map_err(transport)?;
    let data = wire::read(&response)?;
    Ok(items(&data).into_iter().filter_map(tracking).collect())
}

fn tracking(item: &Value) -> Option<Tracking> {
    let tracking_number = text(&item["trackingNumber"])?;
    let status_name = text(&item["status"]).unwrap_or_default();
    let status = from_envia(&status_name);
    let events = match &item["eventHistory"] {
        Value::Array(list) => list
            .iter()
            .map(|e| {
                let name = text(&e["status"]);
                TrackingEvent {
                    status: name.as_deref().map_or(status, from_envia),
                    description: text(&e["description"]).or(name).unwrap_or_else(|| status_name.clone()),
                    location: text(&e["location"]),
                    occurred_at: text(&e["timestamp"]).or_else(|| text(&e["date"])).unwrap_or_default(),
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    Some(Tracking { tracking_number, status, events })
}
