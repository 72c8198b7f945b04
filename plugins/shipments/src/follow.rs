//! Following a label: `POST /shipments/{id}/track` and `/cancel`.

use crm_sdk::http::{Error, json_response};
use crm_sdk::kv;
use crm_sdk::runtime;
use crm_sdk::types::Response;
use serde_json::json;

use crate::answer;
use crate::bindings::crm::plugin::shipping;
use crate::record::{self, CANCELLED, CREATED, Event, Refund};
use crate::tracking;

pub fn track(id: &str) -> Result<Response, Error> {
    let mut shipment = record::load(id)?.ok_or_else(answer::shipment_not_found)?;
    let Some(number) = shipment.tracking_number.clone() else {
        return Err(Error::new(409, "SHIPMENT_NOT_TRACKABLE", "The shipment has no label to track")
            .with("status", shipment.status.as_str()));
    };
    let found = shipping::track(&shipment.provider, std::slice::from_ref(&number))
        .map_err(|e| answer::provider_failed("TRACKING_FAILED", "track the shipment", e))?;
    let previous = shipment.status.clone();
    if let Some(t) = found.into_iter().find(|t| t.tracking_number == number)
        && tracking::apply(&mut shipment, t.status, &t.events, &runtime::now())
    {
        record::save(&shipment, Some(&previous))?;
    }
    Ok(json_response(200, &json!({ "success": true, "data": shipment.json() })))
}

pub fn cancel(id: &str) -> Result<Response, Error> {
    let not_cancelable = |status: &str| {
        Error::new(409, "SHIPMENT_NOT_CANCELABLE", "Only a shipment in status created can be cancelled")
            .with("status", status)
    };
    let shipment = record::load(id)?.ok_or_else(answer::shipment_not_found)?;
    if shipment.status != CREATED {
        return Err(not_cancelable(&shipment.status));
    }
    // One cancel at a time per shipment: the provider must not see two.
    let busy = format!("busy/{id}");
    let me = runtime::new_id();
    if kv::claim(&busy, &me)?.is_some() {
        return Err(answer::in_progress(Some(id)));
    }
    let result = cancel_claimed(id, not_cancelable);
    kv::release(&busy, &me)?;
    result
}

fn cancel_claimed(id: &str, not_cancelable: impl Fn(&str) -> Error) -> Result<Response, Error> {
    // Read again under the claim: another cancel may have finished.
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
