//! Envia's tracking webhook (`tracking.simple`): the latest status of one
//! shipment. The delivery id (`X-Webhook-Id`) de-duplicates retries; when it
//! is missing, the event's own fields stand in. The webhook URL is secret per
//! organization; Envia's signature header is not verified (Envia does not
//! populate it today and gives no key for it).

use serde_json::Value;

use crate::bindings::crm::plugin::shipping_types::{Failure, TrackingEvent, TrackingUpdate};
use crate::status::from_envia;
use crate::wire::{failure, text};

pub fn parse(headers: &[(String, String)], body: &[u8]) -> Result<Vec<TrackingUpdate>, Failure> {
    let header = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.trim().to_string());
    let payload: Value =
        serde_json::from_slice(body).map_err(|_| failure("INVALID_PAYLOAD", "The body is not JSON"))?;
    let kind = payload.get("type").and_then(text).or_else(|| header("x-webhook-event")).unwrap_or_default();
    if !kind.starts_with("tracking.") {
        return Err(failure("UNKNOWN_EVENT", "Only tracking events are accepted"));
    }
    let no_tracking_number = || failure("INVALID_PAYLOAD", "The event has no tracking number");
    let data = payload.get("data").ok_or_else(no_tracking_number)?;
    let tracking_number =
        text(&data["tracking_number"]).or_else(|| text(&data["trackingNumber"])).ok_or_else(no_tracking_number)?;
    let status_name = text(&data["status"]).ok_or_else(|| failure("INVALID_PAYLOAD", "The event has no status"))?;
    let occurred_at =
        payload.get("created_at").and_then(text).or_else(|| header("x-webhook-timestamp")).unwrap_or_default();
    let event_id = header("x-webhook-id")
        .filter(|id| !id.is_empty() && id.len() <= 200)
        .unwrap_or_else(|| format!("{tracking_number}|{status_name}|{occurred_at}"));
    Ok(vec![TrackingUpdate {
        event_id,
        tracking_number,
        event: TrackingEvent {
            status: from_envia(&status_name),
            description: text(&data["status_description"]).unwrap_or(status_name),
            location: text(&data["location"]),
            occurred_at,
        },
    }])
}
