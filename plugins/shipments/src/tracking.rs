//! The one rule that applies a provider's tracking to a shipment, whether it
//! came from `POST /shipments/{id}/track`, the webhook or the scheduler.

use crate::bindings::crm::plugin::shipping_types::{Status, TrackingEvent};
use crate::record::{CANCELLED, Event, Shipment, status_name};

/// Most events a shipment keeps (the newest): a provider that reports
/// without end must not grow a record without end.
pub const MAX_EVENTS: usize = 100;

/// Applies the provider's current `status` and its `events`; answers whether
/// anything changed. A shipment without a label takes nothing, and one we
/// cancelled stays cancelled.
pub fn apply(shipment: &mut Shipment, status: Status, events: &[TrackingEvent], now: &str) -> bool {
    if !shipment.has_label() {
        return false;
    }
    let mut changed = false;
    for e in events.iter().skip(events.len().saturating_sub(MAX_EVENTS)) {
        let event = Event {
            status: status_name(e.status).into(),
            description: e.description.clone(),
            location: e.location.clone(),
            occurred_at: e.occurred_at.clone(),
        };
        if !shipment.events.contains(&event) {
            shipment.events.push(event);
            changed = true;
        }
    }
    let excess = shipment.events.len().saturating_sub(MAX_EVENTS);
    shipment.events.drain(..excess);
    let status = status_name(status);
    if shipment.status != CANCELLED && shipment.status != status {
        shipment.status = status.into();
        changed = true;
    }
    if changed {
        shipment.updated_at = now.to_string();
    }
    changed
}
