//! The `tracking-sink` export: tracking that arrives without an API call.
//!
//! `apply`: a provider's webhook updates, de-duplicated by its event id
//! (`ev/<provider>/<id>`, claimed by compare-and-swap), matched by tracking
//! number within this organization only.
//!
//! `refresh`: the scheduler's round. Shipments not yet final are visited in
//! id order from a saved cursor, at most `max` per round, one `track` call
//! per provider.

use std::collections::BTreeMap;

use crm_sdk::{kv, runtime, store};

use crate::bindings::crm::plugin::shipping;
use crate::bindings::crm::plugin::shipping_types::TrackingUpdate;
use crate::bindings::exports::crm::plugin::tracking_sink::{Applied, Guest};
use crate::record::{self, ACTIVE, Shipment};
use crate::{Shipments, tracking};

const CURSOR: &str = "refresh/cursor";
/// Most shipments one round considers.
const MAX_ROUND: u32 = 500;

impl Guest for Shipments {
    fn apply(provider: String, updates: Vec<TrackingUpdate>) -> Applied {
        let mut applied = Applied { applied: 0, duplicates: 0, unknown: 0 };
        for update in updates {
            match apply_one(&provider, &update) {
                Ok(Outcome::Applied) => applied.applied += 1,
                Ok(Outcome::Duplicate) => applied.duplicates += 1,
                Ok(Outcome::Unknown) => applied.unknown += 1,
                Err(e) => runtime::log(runtime::Level::Error, &format!("webhook update not applied: {:?}", e.body)),
            }
        }
        applied
    }

    fn refresh(max: u32) -> u32 {
        match refresh(max.min(MAX_ROUND)) {
            Ok(asked) => asked,
            Err(e) => {
                runtime::log(runtime::Level::Error, &format!("tracking refresh failed: {:?}", e.body));
                0
            }
        }
    }
}

enum Outcome {
    Applied,
    Duplicate,
    Unknown,
}

fn apply_one(provider: &str, update: &TrackingUpdate) -> Result<Outcome, crm_sdk::http::Error> {
    let Some(id) = store::get(record::tracking_key(provider, &update.tracking_number).as_bytes())? else {
        return Ok(Outcome::Unknown);
    };
    let id = String::from_utf8_lossy(&id).into_owned();
    let Some(mut shipment) = record::load(&id)? else { return Ok(Outcome::Unknown) };
    let seen = format!("ev/{provider}/{}", update.event_id);
    if !store::compare_and_swap(seen.as_bytes(), None, Some(id.as_bytes()))? {
        return Ok(Outcome::Duplicate);
    }
    let previous = shipment.status.clone();
    if tracking::apply(&mut shipment, update.event.status, std::slice::from_ref(&update.event), &runtime::now())
        && let Err(e) = record::save(&shipment, Some(&previous))
    {
        // Not applied: let the provider's retry of this event through.
        store::delete(seen.as_bytes())?;
        return Err(e);
    }
    Ok(Outcome::Applied)
}

fn refresh(max: u32) -> Result<u32, crm_sdk::http::Error> {
    if max == 0 {
        return Ok(0);
    }
    let mut ids: Vec<String> = Vec::new();
    for status in ACTIVE {
        let prefix = format!("st/{status}/");
        ids.extend(
            store::find(prefix.as_bytes(), b"", 100_000)?
                .into_iter()
                .map(|k| String::from_utf8_lossy(&k[prefix.len()..]).into_owned()),
        );
    }
    ids.sort();
    let cursor: Option<String> = kv::get(CURSOR)?;
    let start = cursor.map_or(0, |c| ids.partition_point(|id| *id <= c));
    let picked: Vec<String> = ids.iter().cycle().skip(start).take((max as usize).min(ids.len())).cloned().collect();
    let Some(last) = picked.last() else { return Ok(0) };
    kv::put(CURSOR, last)?;

    let mut by_provider: BTreeMap<String, Vec<Shipment>> = BTreeMap::new();
    for id in &picked {
        if let Some(s) = record::load(id)?.filter(Shipment::has_label) {
            by_provider.entry(s.provider.clone()).or_default().push(s);
        }
    }
    let now = runtime::now();
    for (provider, shipments) in by_provider {
        let numbers: Vec<String> = shipments.iter().filter_map(|s| s.tracking_number.clone()).collect();
        let Ok(found) = shipping::track(&provider, &numbers) else { continue };
        for mut shipment in shipments {
            let previous = shipment.status.clone();
            let Some(t) = found.iter().find(|t| Some(&t.tracking_number) == shipment.tracking_number.as_ref()) else {
                continue;
            };
            if tracking::apply(&mut shipment, t.status, &t.events, &now) {
                record::save(&shipment, Some(&previous))?;
            }
        }
    }
    Ok(picked.len() as u32)
}
