//! Strict location, shared by contacts and companies: a `cityCode`, or a
//! `city` (with `state` as a hint) that the catalog resolves without ambiguity.
//! The catalog decides; this file only maps its answer onto stored fields and
//! the city error body.

use crm_sdk::catalog::{self, CityInput, Resolution, UnresolvedStatus};
use crm_sdk::http::Error;
use serde_json::{Value, json};

/// The location keys of a request body, as sent (`Some("")` is "sent empty").
#[derive(Debug, Clone, Default)]
pub struct LocationInput {
    pub city: Option<String>,
    pub city_code: Option<String>,
    pub state: Option<String>,
    pub country: Option<String>,
}

/// The stored location fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Location {
    pub city: Option<String>,
    pub city_code: Option<String>,
    pub state: Option<String>,
    pub state_code: Option<String>,
    pub country: Option<String>,
}

fn non_empty(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// A location the catalog could not confirm, kept as sent (lenient imports):
/// the city and state texts, no codes. Returns it with the warning that
/// says so, made from the refusal `error` strict mode would answer.
pub fn unconfirmed(input: &LocationInput, error: &Error) -> Option<(Location, Value)> {
    let code = error.body.get("code").and_then(Value::as_str)?;
    if code != "CITY_UNRESOLVED" && code != "INVALID_CITY_CODE" {
        return None;
    }
    let location = Location {
        city: non_empty(&input.city).map(str::to_string),
        city_code: None,
        state: non_empty(&input.state).map(str::to_string),
        state_code: None,
        country: non_empty(&input.country).map(str::to_string),
    };
    let field = |k: &str| error.body.get(k).cloned().unwrap_or(Value::Null);
    let warning = json!({
        "code": "CITY_UNCONFIRMED",
        "message": "The city was kept as text without a code: the catalog could not confirm it",
        "input": field("input"),
        "status": field("status"),
        "candidates": field("candidates"),
    });
    Some((location, warning))
}

/// What a body does to the stored location: `None` leaves it untouched.
///
/// `clear_on_empty_city`: an empty-string `city` clears city, code and state
/// (`PUT`); otherwise an empty `city` counts as absent.
pub fn resolve(input: &LocationInput, clear_on_empty_city: bool) -> Result<Option<Location>, Error> {
    let country = non_empty(&input.country).map(str::to_string);
    if clear_on_empty_city
        && input.city.as_deref().is_some_and(|c| c.trim().is_empty())
        && non_empty(&input.city_code).is_none()
    {
        return Ok(Some(Location { country, ..Location::default() }));
    }
    if non_empty(&input.city).is_none() && non_empty(&input.city_code).is_none() {
        // Nothing to resolve; a lone `state` is only a hint.
        return Ok(None);
    }
    let resolution = catalog::resolve(&CityInput {
        city_code: non_empty(&input.city_code).map(str::to_string),
        city: non_empty(&input.city).map(str::to_string),
        state: non_empty(&input.state).map(str::to_string),
        country: country.clone(),
    });
    located(input, country, resolution)
}

/// What the catalog's `resolution` of `input` stores, or the city error body.
fn located(input: &LocationInput, country: Option<String>, resolution: Resolution) -> Result<Option<Location>, Error> {
    match resolution {
        Resolution::Resolved(m) => Ok(Some(Location {
            city: Some(m.short_name),
            city_code: Some(m.code),
            state: Some(m.state_name),
            state_code: Some(m.state_code),
            // Resolved means Colombia, however it was written (`CO`, `col`...):
            // stored by its name, as the city is by the catalog's.
            country: Some("Colombia".into()),
        })),
        Resolution::Foreign(city) => Ok(Some(Location {
            city,
            city_code: None,
            state: non_empty(&input.state).map(str::to_string),
            state_code: None,
            country,
        })),
        Resolution::Absent => Ok(None),
        Resolution::Unresolved(u) => {
            let (status, code, http, message) = match u.status {
                UnresolvedStatus::InvalidCode => {
                    ("invalid_code", "INVALID_CITY_CODE", 400, "cityCode is not a municipality code of the catalog")
                }
                // One candidate: the city exists, but not in the state sent.
                UnresolvedStatus::Ambiguous if u.candidates.len() == 1 => (
                    "ambiguous",
                    "CITY_UNRESOLVED",
                    422,
                    "The city is not in the state sent: resend with a cityCode from candidates",
                ),
                UnresolvedStatus::Ambiguous => (
                    "ambiguous",
                    "CITY_UNRESOLVED",
                    422,
                    "The city matches several municipalities: resend with a cityCode from candidates",
                ),
                UnresolvedStatus::Fuzzy => (
                    "fuzzy",
                    "CITY_UNRESOLVED",
                    422,
                    "The city is not in the catalog as written: resend with a cityCode from candidates",
                ),
                UnresolvedStatus::None => ("none", "CITY_UNRESOLVED", 422, "The city is not in the catalog"),
            };
            let input_text =
                if status == "invalid_code" { non_empty(&input.city_code) } else { non_empty(&input.city) };
            let candidates: Vec<Value> = u
                .candidates
                .iter()
                .map(|m| json!({ "code": m.code, "shortName": m.short_name, "stateName": m.state_name, "stateCode": m.state_code }))
                .collect();
            Err(Error::new(http, code, message)
                .with("error", code)
                .with("input", input_text.unwrap_or_default())
                .with("status", status)
                .with("candidates", candidates))
        }
    }
}

/// Property tests on hostile text ([`crm_hostile_text`]): whatever a body
/// sends and the catalog answers, a location is stored or refused with a
/// 4xx and a code, and what strict mode refuses a lenient import keeps.
#[cfg(test)]
mod properties {
    use super::*;
    use crm_hostile_text::{around, config, text};
    use crm_sdk::catalog::{Municipality, Unresolved};
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::sample::select;

    fn sent() -> impl Strategy<Value = Option<String>> {
        let shapes =
            select(vec!["Medellín", "05001", "Bogotá D.C.", "Antioquia", "CO", "Perú", "", " "]).prop_map(String::from);
        proptest::option::of(prop_oneof![2 => shapes.clone(), 2 => around(shapes), 1 => text(40)])
    }

    fn input() -> impl Strategy<Value = LocationInput> {
        (sent(), sent(), sent(), sent()).prop_map(|(city, city_code, state, country)| LocationInput {
            city,
            city_code,
            state,
            country,
        })
    }

    fn municipality() -> impl Strategy<Value = Municipality> {
        (text(8), text(20), text(20)).prop_map(|(code, name, state_name)| Municipality {
            code,
            short_name: name.clone(),
            name,
            state_code: "05".into(),
            state_name,
            state_iso2: "ANT".into(),
            dane8: "05001000".into(),
        })
    }

    fn resolution() -> impl Strategy<Value = Resolution> {
        let status = select(vec![
            UnresolvedStatus::Ambiguous,
            UnresolvedStatus::Fuzzy,
            UnresolvedStatus::None,
            UnresolvedStatus::InvalidCode,
        ]);
        prop_oneof![
            municipality().prop_map(Resolution::Resolved),
            proptest::option::of(text(30)).prop_map(Resolution::Foreign),
            (status, vec(municipality(), 0..4))
                .prop_map(|(status, candidates)| Resolution::Unresolved(Unresolved { status, candidates })),
            Just(Resolution::Absent),
        ]
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn a_location_is_stored_or_refused_with_a_code(input in input(), resolution in resolution()) {
            let country = non_empty(&input.country).map(str::to_string);
            let resolved = match &resolution {
                Resolution::Resolved(m) => Some(m.code.clone()),
                _ => None,
            };
            match located(&input, country, resolution) {
                Ok(location) => {
                    let code = location.and_then(|l| l.city_code);
                    prop_assert_eq!(code, resolved);
                }
                Err(e) => {
                    let code = e.body.get("code").and_then(Value::as_str);
                    prop_assert!(matches!((e.status, code), (400, Some("INVALID_CITY_CODE")) | (422, Some("CITY_UNRESOLVED"))), "{e:?}");
                    let kept = unconfirmed(&input, &e);
                    prop_assert!(kept.is_some_and(|(l, w)| l.city_code.is_none() && w["code"] == "CITY_UNCONFIRMED"));
                }
            }
        }

        /// Without a city or a code nothing is asked of the catalog (whose
        /// import a native test cannot call).
        #[test]
        fn a_body_without_a_city_asks_the_catalog_nothing(input in input(), clear in any::<bool>()) {
            let blank = |s: &Option<String>| s.as_deref().is_none_or(|s| s.trim().is_empty());
            if blank(&input.city) && blank(&input.city_code) {
                let location = resolve(&input, clear);
                let nothing_resolved = matches!(location, Ok(None) | Ok(Some(Location { city: None, city_code: None, .. })));
                prop_assert!(nothing_resolved, "{:?}", location);
            }
        }
    }
}
