//! Following a label: `POST /shipments/{id}/track` and `/cancel`.

use crm_sdk::http::{Error, json_response};
use crm_sdk::runtime;
use crm_sdk::types::Response;
use serde_json::json;

use crate::bindings::crm::plugin::shipping;
use crate::record::{self, CANCELLED, CREATED, Event, Refund};
use crate::tracking;
use crate::{answer, lock};

pub fn track(id: &str) -> Result<Response, Error> {
    let shipment = record::load(id)?.ok_or_else(answer::shipment_not_found)?;
    let Some(number) = shipment.tracking_number.clone() else {
        return Err(Error::new(409, "SHIPMENT_NOT_TRACKABLE", "The shipment has no label to track")
            .with("status", shipment.status.as_str()));
    };
    let found = shipping::track(&shipment.provider, std::slice::from_ref(&number))
        .map_err(|e| answer::provider_failed("TRACKING_FAILED", "track the shipment", e))?;
    let tracked = found.into_iter().find(|t| t.tracking_number == number);
    let updated = lock::locked(id, || {
        // Read again under the lock: a cancel or an update may have landed.
        let mut shipment = record::load(id)?.ok_or_else(answer::shipment_not_found)?;
        let previous = shipment.status.clone();
        if let Some(t) = &tracked
            && tracking::apply(&mut shipment, t.status, &t.events, &runtime::now())
        {
            record::save(&shipment, Some(&previous))?;
        }
        Ok(shipment)
    })?;
    let shipment = updated.ok_or_else(|| answer::in_progress(Some(id)))?;
    Ok(json_response(200, &json!({ "success": true, "data": shipment.json() })))
}

pub fn cancel(id: &str) -> Result<Response, Error> {
    let shipment = record::load(id)?.ok_or_else(answer::shipment_not_found)?;
    if shipment.status != CREATED {
        return Err(not_cancelable(&shipment.status));
    }
    // The lock is held through the provider call: the provider never sees two
    // cancels, and no tracking update is written over the cancellation.
    lock::locked(id, || cancel_locked(id))?.ok_or_else(|| answer::in_progress(Some(id)))
}

fn not_cancelable(status: &str) -> Error {
    Error::new(409, "SHIPMENT_NOT_CANCELABLE", "Only a shipment in status created can be cancelled")
        .with("status", status)
}

fn cancel_locked(id: &str) -> Result<Response, Error> {
    // Read again under the lock: another cancel may have finished.
    let mut shipment = record::load(id)?.ok_or_else(answer::shipment_not_found)?;
    if shipment.status != CREATED {
        return Err(not_cancelable(&shipment.status));
    }
    let number = shipment.tracking_number.clone().unwrap_or_default();
    let refund = shipping::cancel(&shipment.provider, &shipment.carrier, &number)
        .map_err(|e| answer::provider_failed("ENVIA_CANCEL_FAILED", "cancel the shipment", e))?;
    let now = runtime::now();
    shipment.status = CANCELLED.into();
    shipment.refund = Some(Refund { amount: refund.amount, currency: refund.currency, returned: refund.returned });
    shipment.events.push(Event {
        status: CANCELLED.into(),
        description: if refund.returned { "Shipment cancelled; balance refunded" } else { "Shipment cancelled" }.into(),
        location: None,
        occurred_at: now.clone(),
    });
    shipment.updated_at = now;
    record::save(&shipment, Some(CREATED))?;
    Ok(json_response(200, &json!({ "success": true, "data": shipment.json() })))
}
