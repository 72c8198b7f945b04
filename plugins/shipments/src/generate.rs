//! `POST /shipments`: one label per attempt, with the spec's idempotency rules.
//!
//! 1. Same key, the shipment has a label (or was cancelled): 200 `reused`,
//!    nothing called, the body ignored.
//! 2. Same key, the last attempt was rejected: the same draft is retried.
//! 3. Same key while an attempt runs: 409 `SHIPMENT_IN_PROGRESS`.
//! 4. Unknown outcome: 409 `SHIPMENT_NEEDS_REVIEW`, and that key keeps
//!    answering so without calling the provider again.
//! 5. Same key, another contact: 400 `IDEMPOTENCY_KEY_REUSED`.
//! 6. The provider is called once per attempt; nothing here retries.
//! 7. Without a key, a 30-second window per contact.
//!
//! Checks that need no claim (body, configuration, contact, destination) run
//! first, so a request that fails them leaves its key unused.

use crm_sdk::http::{Error, json_object, json_response};
use crm_sdk::runtime;
use crm_sdk::types::{Request, Response};
use serde_json::{Map, Value, json};

use crate::bindings::crm::plugin::shipping_types::{Address, Label, LabelRequest, Parcel, Pickup, ProviderError};
use crate::bindings::crm::plugin::{contacts, shipping};
use crate::claims::{self, KeyClaim};
use crate::record::{self, CREATED, DRAFT, Event, Failure, NEEDS_REVIEW, Shipment};
use crate::{answer, destination, input, origin};

/// What the body asks for, once checked.
struct Order {
    contact_id: String,
    key: Option<String>,
    provider: Option<String>,
    carrier: String,
    service: String,
    packages: Vec<Parcel>,
    destination: Option<Map<String, Value>>,
    cash_on_delivery: Option<f64>,
    insurance: Option<f64>,
    pickup: Option<Pickup>,
    deal_id: Option<String>,
    quotation_id: Option<String>,
    invoice_id: Option<String>,
}

impl Order {
    fn parse(body: &Map<String, Value>, contact_id: String, key: Option<String>) -> Result<Order, Error> {
        Ok(Order {
            contact_id,
            key,
            provider: input::text(body, "provider")?,
            carrier: input::required_text(body, "carrier")?,
            service: input::required_text(body, "service")?,
            packages: input::packages(body)?,
            destination: input::destination(body)?,
            cash_on_delivery: input::amount(body, "cod")?,
            insurance: input::amount(body, "insurance")?,
            pickup: input::pickup(body, &runtime::now())?,
            deal_id: input::link(body, "dealId")?,
            quotation_id: input::link(body, "quotationId")?,
            invoice_id: input::link(body, "invoiceId")?,
        })
    }
}

pub fn generate(req: &Request) -> Result<Response, Error> {
    let body = json_object(req)?;
    let contact_id = input::contact_id(&body)?;
    let key = input::idempotency_key(&body)?;
    let existing = match &key {
        Some(k) => claims::read(k)?,
        None => None,
    };
    if let Some((claim, _)) = &existing {
        if claim.contact_id != contact_id {
            return Err(answer::key_reused());
        }
        if let Some(reused) = replay(key.as_deref().unwrap_or_default(), claim)? {
            return Ok(reused);
        }
    }

    let order = Order::parse(&body, contact_id, key)?;
    let providers = shipping::providers();
    if providers.is_empty() {
        return Err(answer::not_configured());
    }
    let origin = origin::load()?;
    let contact = load_contact(&order.contact_id)?;
    let provider = choose_provider(&providers, order.provider.as_deref(), &order.carrier)?;
    let destination = destination::resolve(&contact, order.destination.as_ref(), &provider)?;

    let (id, draft) = match &order.key {
        Some(key) => match claim_key(key, &order.contact_id, existing)? {
            Claimed::Attempt(id, draft) => (id, draft.map(|d| *d)),
            Claimed::Reused(answer) => return Ok(answer),
        },
        None if claims::open_window(&order.contact_id)? => (runtime::new_id(), None),
        None => return Err(answer::in_progress(None)),
    };
    let previous_status = draft.as_ref().map(|d: &Shipment| d.status.clone());
    let mut shipment = drafted(draft, &id, &order, &provider, destination.json);
    // The draft exists before the provider is called: nothing is lost if the
    // host stops mid-call (a stale claim then reads as an unknown outcome).
    record::save(&shipment, previous_status.as_deref())?;

    let key = order.key.clone();
    let contact_id = order.contact_id.clone();
    let outcome = shipping::generate(&provider, &label_request(order, origin, destination.address, &id));
    let result = settle(&mut shipment, outcome);
    record::save(&shipment, Some(DRAFT))?;
    if let Some(key) = &key {
        claims::finish(key, &claims::pending(&id, &contact_id))?;
    }
    result
}

/// The shipment this attempt is: its draft again (a retry), or a new one,
/// with what the order asks for now.
fn drafted(draft: Option<Shipment>, id: &str, order: &Order, provider: &str, destination: Value) -> Shipment {
    let now = runtime::now();
    let mut shipment = draft.unwrap_or_else(|| Shipment {
        id: id.to_string(),
        contact_id: order.contact_id.clone(),
        provider: String::new(),
        carrier: String::new(),
        service: String::new(),
        status: DRAFT.into(),
        tracking_number: None,
        track_url: None,
        label_url: None,
        price: None,
        currency: None,
        packages: Value::Null,
        destination: Value::Null,
        pickup: None,
        idempotency_key: order.key.clone(),
        deal_id: None,
        quotation_id: None,
        invoice_id: None,
        events: Vec::new(),
        refund: None,
        error: None,
        created_at: now.clone(),
        updated_at: now.clone(),
    });
    shipment.provider = provider.to_string();
    shipment.carrier = order.carrier.clone();
    shipment.service = order.service.clone();
    shipment.packages = input::packages_json(&order.packages);
    shipment.destination = destination;
    shipment.pickup = order.pickup.as_ref().map(input::pickup_json);
    shipment.deal_id = order.deal_id.clone();
    shipment.quotation_id = order.quotation_id.clone();
    shipment.invoice_id = order.invoice_id.clone();
    shipment.updated_at = now;
    shipment
}

/// What the provider is asked for.
fn label_request(order: Order, origin: Address, destination: Address, id: &str) -> LabelRequest {
    LabelRequest {
        origin,
        destination,
        packages: order.packages,
        carrier: order.carrier,
        service: order.service,
        reference: id.to_string(),
        cash_on_delivery: order.cash_on_delivery,
        insurance: order.insurance,
        pickup: order.pickup,
    }
}

/// The provider's answer written on the shipment, and what the request answers.
fn settle(shipment: &mut Shipment, outcome: Result<Label, ProviderError>) -> Result<Response, Error> {
    let now = runtime::now();
    shipment.updated_at = now.clone();
    match outcome {
        Ok(label) => {
            shipment.status = CREATED.into();
            shipment.tracking_number = Some(label.tracking_number);
            shipment.track_url = label.track_url;
            shipment.label_url = label.label_url;
            shipment.price = Some(label.price);
            shipment.currency = Some(label.currency);
            shipment.error = None;
            shipment.events.push(Event {
                status: CREATED.into(),
                description: "Label generated".into(),
                location: None,
                occurred_at: now,
            });
            Ok(json_response(201, &json!({ "success": true, "data": shipment.json() })))
        }
        Err(ProviderError::Rejected(f)) => {
            let failure = Failure::from(f);
            let e = Error::new(422, "ENVIA_GENERATE_FAILED", "The provider rejected the label; no label was made")
                .with("shipmentId", shipment.id.as_str())
                .with("error", failure.shown());
            shipment.error = Some(failure);
            Err(e)
        }
        Err(ProviderError::UnknownOutcome(f)) => {
            let failure = Failure::from(f);
            let e = answer::needs_review(&shipment.id, Some(&failure));
            shipment.status = NEEDS_REVIEW.into();
            shipment.events.push(Event {
                status: NEEDS_REVIEW.into(),
                description: format!("Outcome unknown: {}", failure.message),
                location: None,
                occurred_at: now,
            });
            shipment.error = Some(failure);
            Err(e)
        }
    }
}

/// What an existing claim answers without a new attempt: `Ok(Some)` the
/// reused shipment, `Err` a 409, `Ok(None)` a retry of its draft.
fn replay(key: &str, claim: &KeyClaim) -> Result<Option<Response>, Error> {
    let id = claim.shipment_id.as_str();
    if claim.is_running() {
        return Err(answer::in_progress(Some(id)));
    }
    let shipment = record::load(id)?;
    if claim.is_stale() {
        // The attempt died while the provider may have been working.
        let failure = Failure::ours("ATTEMPT_INTERRUPTED", "The attempt was interrupted");
        if let Some(mut s) = shipment.filter(|s| s.status == DRAFT) {
            s.status = NEEDS_REVIEW.into();
            s.error = Some(failure.clone());
            s.updated_at = runtime::now();
            record::save(&s, Some(DRAFT))?;
        }
        claims::finish(key, claim)?;
        return Err(answer::needs_review(id, Some(&failure)));
    }
    match shipment {
        None => Ok(None),
        Some(s) if s.status == DRAFT => Ok(None),
        Some(s) if s.status == NEEDS_REVIEW => Err(answer::needs_review(id, s.error.as_ref())),
        Some(s) => Ok(Some(json_response(200, &json!({ "success": true, "reused": true, "data": s.json() })))),
    }
}

enum Claimed {
    /// This request runs the attempt for shipment `id` (its draft when retried).
    Attempt(String, Option<Box<Shipment>>),
    /// Another request finished first with a label.
    Reused(Response),
}

/// Claims `key` for one attempt: a new shipment, or the retry of its draft.
/// Losing the race to a running request is 409 `SHIPMENT_IN_PROGRESS`.
fn claim_key(key: &str, contact_id: &str, existing: Option<(KeyClaim, Vec<u8>)>) -> Result<Claimed, Error> {
    let (id, expected) = match &existing {
        None => (runtime::new_id(), None),
        Some((claim, bytes)) => (claim.shipment_id.clone(), Some(bytes.as_slice())),
    };
    if claims::swap(key, expected, &claims::pending(&id, contact_id))? {
        let draft =
            if existing.is_some() { record::load(&id)?.filter(|s| s.status == DRAFT).map(Box::new) } else { None };
        return Ok(Claimed::Attempt(id, draft));
    }
    // Another request changed the claim first: answer from its state.
    let Some((claim, _)) = claims::read(key)? else { return Err(answer::in_progress(None)) };
    if claim.contact_id != contact_id {
        return Err(answer::key_reused());
    }
    match replay(key, &claim)? {
        Some(reused) => Ok(Claimed::Reused(reused)),
        None => Err(answer::in_progress(Some(&claim.shipment_id))),
    }
}

/// The contact, in its flattened form, through the contacts module.
pub fn load_contact(id: &str) -> Result<Map<String, Value>, Error> {
    let json = contacts::get(id).ok_or_else(answer::contact_not_found)?;
    serde_json::from_str(&json).map_err(|e| Error::internal(format!("contacts answered {e}")))
}

/// The provider of the label: the one named, the only one configured, or the
/// one offering the carrier.
fn choose_provider(providers: &[String], named: Option<&str>, carrier: &str) -> Result<String, Error> {
    if let Some(name) = named {
        return if providers.iter().any(|p| p == name) {
            Ok(name.to_string())
        } else {
            Err(input::invalid("provider", "is not a configured provider"))
        };
    }
    if let [only] = providers {
        return Ok(only.clone());
    }
    providers
        .iter()
        .find(|p| shipping::carriers(p).is_ok_and(|list| list.iter().any(|c| c == carrier)))
        .cloned()
        .ok_or_else(|| input::invalid("carrier", "is not offered by any configured provider"))
}
