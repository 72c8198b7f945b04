//! The `tracking-sink` export: tracking that arrives without an API call.
//!
//! `apply`: a provider's webhook updates, de-duplicated by its event id
//! (`ev/<provider>/<id>`, written in the batch that applies the event, under
//! the shipment's lock), matched by tracking number within this organization
//! only.
//!
//! `refresh`: the scheduler's round. Shipments not yet final are visited in
//! id order from a saved cursor, at most `max` per round, one `track` call
//! per provider; a round reads only the index keys it visits.

use std::collections::BTreeMap;

use crm_sdk::http::Error;
use crm_sdk::store::Op;
use crm_sdk::{kv, runtime, store};

use crate::bindings::crm::plugin::shipping;
use crate::bindings::crm::plugin::shipping_types::TrackingUpdate;
use crate::bindings::exports::crm::plugin::tracking_sink::{Applied, Guest};
use crate::record::{self, ACTIVE, Shipment};
use crate::{Shipments, lock, tracking};

const CURSOR: &str = "refresh/cursor";
/// Most shipments one round considers.
const MAX_ROUND: u32 = 500;
/// Most tracking numbers per `track` call (the host's limit).
const TRACK_BATCH: usize = 100;

impl Guest for Shipments {
    fn apply(provider: String, updates: Vec<TrackingUpdate>) -> Applied {
        let mut applied = Applied { applied: 0, duplicates: 0, unknown: 0, deferred: 0 };
        for update in updates {
            match apply_one(&provider, &update) {
                Ok(Outcome::Applied) => applied.applied += 1,
                Ok(Outcome::Duplicate) => applied.duplicates += 1,
                Ok(Outcome::Unknown) => applied.unknown += 1,
                Ok(Outcome::Deferred) => applied.deferred += 1,
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
    /// The shipment was locked by another writer; the scheduler's next
    /// refresh brings its tracking up to date instead.
    Deferred,
}

fn apply_one(provider: &str, update: &TrackingUpdate) -> Result<Outcome, Error> {
    let Some(id) = store::get(record::tracking_key(provider, &update.tracking_number).as_bytes())? else {
        return Ok(Outcome::Unknown);
    };
    let id = String::from_utf8_lossy(&id).into_owned();
    let seen = format!("ev/{provider}/{}", update.event_id).into_bytes();
    let outcome = lock::locked(&id, || {
        let Some(mut shipment) = record::load(&id)? else { return Ok(Outcome::Unknown) };
        if store::get(&seen)?.is_some() {
            return Ok(Outcome::Duplicate);
        }
        // The event is marked seen in the batch that applies it: both or neither.
        let previous = shipment.status.clone();
        let mut ops = vec![Op::Put((seen.clone(), id.clone().into_bytes()))];
        if tracking::apply(&mut shipment, update.event.status, std::slice::from_ref(&update.event), &runtime::now()) {
            ops.extend(record::save_ops(&shipment, Some(&previous))?);
        }
        store::batch(&ops)?;
        Ok(Outcome::Applied)
    })?;
    Ok(outcome.unwrap_or(Outcome::Deferred))
}

fn refresh(max: u32) -> Result<u32, Error> {
    if max == 0 {
        return Ok(0);
    }
    let cursor: Option<String> = kv::get(CURSOR)?;
    let picked = next_active(cursor.as_deref(), max as usize)?;
    let Some(last) = picked.last() else { return Ok(0) };
    kv::put(CURSOR, last)?;

    let mut by_provider: BTreeMap<String, Vec<Shipment>> = BTreeMap::new();
    for id in &picked {
        if let Some(s) = record::load(id)?.filter(Shipment::has_label) {
            by_provider.entry(s.provider.clone()).or_default().push(s);
        }
    }
    let batches = by_provider.iter().flat_map(|(provider, all)| all.chunks(TRACK_BATCH).map(move |s| (provider, s)));
    for (provider, shipments) in batches {
        let numbers: Vec<String> = shipments.iter().filter_map(|s| s.tracking_number.clone()).collect();
        let Ok(found) = shipping::track(provider, &numbers) else { continue };
        for t in &found {
            let Some(shipment) = shipments.iter().find(|s| s.tracking_number.as_ref() == Some(&t.tracking_number))
            else {
                continue;
            };
            // A shipment another writer holds is skipped: the next round sees it.
            lock::locked(&shipment.id, || {
                let Some(mut current) = record::load(&shipment.id)? else { return Ok(()) };
                let previous = current.status.clone();
                if tracking::apply(&mut current, t.status, &t.events, &runtime::now()) {
                    record::save(&current, Some(&previous))?;
                }
                Ok(())
            })?;
        }
    }
    Ok(picked.len() as u32)
}

/// Up to `max` ids of shipments not yet final: those after `cursor` in id
/// order, then from the first again (each once). Reads at most `max` index
/// keys of each active status, however many shipments are active.
fn next_active(cursor: Option<&str>, max: usize) -> Result<Vec<String>, Error> {
    let mut ids = active_after(cursor, max)?;
    if ids.len() < max && cursor.is_some() {
        for id in active_after(None, max - ids.len())? {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    Ok(ids)
}

/// The first `max` ids of shipments not yet final after `after` (from the
/// first without it), in id order: ids sort by creation across statuses.
fn active_after(after: Option<&str>, max: usize) -> Result<Vec<String>, Error> {
    let mut ids = Vec::new();
    for status in ACTIVE {
        let prefix = format!("st/{status}/");
        let start = after.map(|id| format!("{prefix}{id}\0").into_bytes());
        for (key, _) in store::scan(prefix.as_bytes(), start.as_deref(), max as u32)? {
            ids.push(String::from_utf8_lossy(key.strip_prefix(prefix.as_bytes()).unwrap_or(&key)).into_owned());
        }
    }
    ids.sort();
    ids.truncate(max);
    Ok(ids)
}
