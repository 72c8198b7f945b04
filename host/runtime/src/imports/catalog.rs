//! The `catalog` import: the one city rule (`crm-catalog`), for every
//! module, over a memo of the instance's own (it touches nothing else).

use crm_catalog::{CityInput, Resolution, Status, catalog};

use crate::bindings::platform::crm::plugin::catalog as wit_catalog;
use crate::runtime::{CityKey, CityMemo};

fn to_wit(m: &crm_catalog::Municipality) -> wit_catalog::Municipality {
    wit_catalog::Municipality {
        code: m.code.clone(),
        name: m.name.clone(),
        short_name: m.short_name.clone(),
        state_code: m.state_code.clone(),
        state_name: m.state_name.clone(),
        state_iso2: m.state_iso2.clone(),
        dane8: m.dane8.clone(),
    }
}

/// The resolutions one instance remembers: an import of 10,000 rows names
/// the same few hundred cities again and again.
const MEMO_ENTRIES: usize = 1024;

impl wit_catalog::Host for CityMemo {
    async fn resolve(&mut self, input: wit_catalog::CityInput) -> wit_catalog::Resolution {
        // Matching a city name costs CPU in proportion to the input (bounded by
        // the catalog): run it on the blocking pool, off the threads serving
        // I/O. A code alone is a lookup.
        if input.city_code.as_deref().is_some_and(|c| !c.trim().is_empty()) || input.city.is_none() {
            return resolve(&input);
        }
        let key: CityKey = [input.city_code.clone(), input.city.clone(), input.state.clone(), input.country.clone()];
        if let Some(known) = self.0.get(&key) {
            return known.clone();
        }
        let none = wit_catalog::Resolution::Unresolved(wit_catalog::Unresolved {
            status: wit_catalog::UnresolvedStatus::None,
            candidates: Vec::new(),
        });
        let resolution = tokio::task::spawn_blocking(move || resolve(&input)).await.unwrap_or(none);
        if self.0.len() < MEMO_ENTRIES {
            self.0.insert(key, resolution.clone());
        }
        resolution
    }

    async fn lookup(&mut self, code: String) -> Option<wit_catalog::Municipality> {
        catalog().municipality(&code).map(to_wit)
    }
}

fn resolve(input: &wit_catalog::CityInput) -> wit_catalog::Resolution {
    let resolution = catalog().resolve(CityInput {
        city_code: input.city_code.as_deref(),
        city: input.city.as_deref(),
        state: input.state.as_deref(),
        country: input.country.as_deref(),
    });
    match resolution {
        Resolution::Resolved(m) => wit_catalog::Resolution::Resolved(to_wit(m)),
        Resolution::Foreign { city } => wit_catalog::Resolution::Foreign(city),
        Resolution::Absent => wit_catalog::Resolution::Absent,
        Resolution::Unresolved { status, candidates } => wit_catalog::Resolution::Unresolved(wit_catalog::Unresolved {
            status: match status {
                Status::Ambiguous => wit_catalog::UnresolvedStatus::Ambiguous,
                Status::Fuzzy => wit_catalog::UnresolvedStatus::Fuzzy,
                Status::None => wit_catalog::UnresolvedStatus::None,
                Status::InvalidCode => wit_catalog::UnresolvedStatus::InvalidCode,
            },
            candidates: candidates.into_iter().map(to_wit).collect(),
        }),
    }
}
