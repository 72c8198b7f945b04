//! Property tests: city resolution and the municipality search on arbitrary
//! text (crm_hostile_text), the catalog's own names and codes among it with
//! hostile characters put in. Neither may panic (a panic here is a 500 from
//! the host, or a trap of the contacts component that asks it), and each
//! answers only municipalities of the catalog.

use crm_catalog::resolve::MAX_CANDIDATES;
use crm_catalog::search::Search;
use crm_catalog::{CityInput, Resolution, Status, catalog, fold, is_colombia};
use crm_hostile_text::{around, config, text};
use proptest::prelude::*;
use proptest::sample::select;

/// Texts a client sends for a city, a code, a state or a country: the
/// catalog's own (with hostile characters put in), or anything.
fn sent(known: Vec<String>) -> impl Strategy<Value = Option<String>> {
    let known = select(known).prop_map(String::from);
    proptest::option::of(prop_oneof![2 => known.clone(), 3 => around(known), 3 => text(40), 1 => text(120)])
}

fn city_names() -> Vec<String> {
    catalog().municipalities.iter().flat_map(|m| [m.name.clone(), m.short_name.clone()]).collect()
}

fn codes() -> Vec<String> {
    let codes = catalog().municipalities.iter().map(|m| m.code.clone());
    codes.chain(["1100", "110011", "00000", "٠٥٠٠١", "０５００１"].map(String::from)).collect()
}

fn states() -> Vec<String> {
    let states = catalog().states.iter().flat_map(|s| [s.name.clone(), s.code.clone(), format!("CO-{}", s.iso2)]);
    states.chain(["5", "Bogotá D.C.", "Valle", "Nte. de Santander"].map(String::from)).collect()
}

fn countries() -> Vec<String> {
    ["Colombia", "CO", "col", "COLOMBIA ", "República de Colombia", "Perú", "Venezuela", ""].map(String::from).to_vec()
}

fn blank(text: &Option<String>) -> bool {
    text.as_deref().is_none_or(|t| t.trim().is_empty())
}

/// A municipality answered is the catalog's own record of its code.
fn in_catalog(m: &crm_catalog::Municipality) -> bool {
    catalog().municipality(&m.code).is_some_and(|own| std::ptr::eq(own, m))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn resolve_answers_only_municipalities_of_the_catalog(
        city in sent(city_names()),
        city_code in sent(codes()),
        state in sent(states()),
        country in sent(countries()),
    ) {
        let input = CityInput {
            city_code: city_code.as_deref(),
            city: city.as_deref(),
            state: state.as_deref(),
            country: country.as_deref(),
        };
        match catalog().resolve(input) {
            Resolution::Resolved(m) => prop_assert!(in_catalog(m), "{input:?} resolved to {m:?}"),
            Resolution::Foreign { .. } => prop_assert!(!is_colombia(input.country)),
            Resolution::Absent => prop_assert!(is_colombia(input.country) && blank(&city) && blank(&city_code)),
            Resolution::Unresolved { status, candidates } => {
                prop_assert!(candidates.len() <= MAX_CANDIDATES);
                prop_assert!(candidates.iter().all(|m| in_catalog(m)), "{input:?}: {candidates:?}");
                if status == Status::InvalidCode {
                    prop_assert!(candidates.is_empty());
                }
            }
        }
        // A code of the catalog is the source of truth, whatever else is sent.
        if let Some(code) = city_code.as_deref().map(str::trim).filter(|c| catalog().municipality(c).is_some())
            && is_colombia(input.country)
        {
            let resolved = matches!(catalog().resolve(input), Resolution::Resolved(m) if m.code == code);
            prop_assert!(resolved, "{input:?}");
        }
    }

    #[test]
    fn search_refuses_by_code_or_answers_names_that_hold_the_query(
        q in sent(city_names()),
        state in sent(states()),
        limit in proptest::option::of(prop_oneof![(0..1300usize).prop_map(|n| n.to_string()), around(Just("20".to_string())), text(8)]),
    ) {
        match Search::parse(catalog(), q.as_deref(), state.as_deref(), limit.as_deref()) {
            Err(refused) => prop_assert!(["STATE_UNKNOWN", "LIMIT_INVALID"].contains(&refused.code())),
            Ok(search) => {
                let found = search.run(catalog());
                prop_assert!(found.len() <= search.limit.unwrap_or(crm_catalog::search::MAX_LIMIT));
                for m in found {
                    prop_assert!(in_catalog(m));
                    prop_assert!(search.state_code.as_ref().is_none_or(|s| *s == m.state_code));
                    if let Some(q) = &search.query {
                        prop_assert!(fold(&m.name).contains(q.as_str()) || fold(&m.short_name).contains(q.as_str()));
                    }
                }
            }
        }
    }

    /// Folding is a comparison key: folding it again changes nothing.
    #[test]
    fn a_folded_text_folds_to_itself(raw in text(200)) {
        let folded = fold(&raw);
        prop_assert_eq!(fold(&folded), folded.clone());
        prop_assert!(!folded.starts_with(' ') && !folded.ends_with(' ') && !folded.contains("  "));
    }

    #[test]
    fn a_state_is_found_by_any_hint_without_a_panic(hint in text(60)) {
        if let Some(state) = catalog().state_by_hint(&hint) {
            prop_assert!(catalog().state(&state.code).is_some_and(|own| std::ptr::eq(own, state)));
        }
    }
}
