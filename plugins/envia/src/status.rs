//! Envia's tracking status names (an English display name, any case) onto
//! our statuses. Names not in Envia's catalog count as in transit: the
//! shipment moved, we do not know how.

use crate::bindings::crm::plugin::shipping_types::Status;

pub fn from_envia(name: &str) -> Status {
    let name = name.trim().to_ascii_lowercase().replace(['_', '-'], " ");
    match name.as_str() {
        "created" | "pending" | "n/a" | "out for pickup" | "1 pickup attempt" => Status::Created,
        "picked up" | "collected" => Status::PickedUp,
        "shipped" | "in transit" | "redirected" | "partially shipped" | "information" => Status::InTransit,
        "out for delivery" | "pickup at office" => Status::OutForDelivery,
        "delivered" | "partially delivered" => Status::Delivered,
        "canceled" | "cancelled" => Status::Cancelled,
        "returned" | "delivered at origin" | "return problem" => Status::Returned,
        "lost"
        | "damaged"
        | "address error"
        | "undeliverable"
        | "delayed"
        | "rejected"
        | "delivery attempt"
        | "1 delivery attempt"
        | "2 delivery attempts"
        | "3 delivery attempts"
        | "exception" => Status::Exception,
        _ => Status::InTransit,
    }
}
