//! City resolution: turning `{cityCode?, city?, state?, country?}` into a municipality.
//!
//! The rules, in order:
//! 1. A `country` that is not Colombia leaves the city as free text ([`Resolution::Foreign`]).
//! 2. A `cityCode` is the source of truth: it must be a code of the catalog, else
//!    `invalid_code` with no candidates. `city` and `state` are then ignored.
//! 3. A `city` is folded and compared with every official and short name. One match
//!    (within the `state` hint's state, when the hint names one) resolves it; several
//!    are `ambiguous`. A name that exists only outside the hinted state is `ambiguous`
//!    too, with those municipalities as candidates: city and state disagree.
//! 4. No exact match: a city typed with its state or country (`Medellín,
//!    Antioquia`) resolves when exactly one municipality reads so
//!    (`named_with_state`).
//! 5. Otherwise names within a small edit distance, or containing the input as
//!    whole words (or held by it), are `fuzzy` candidates, nearest first;
//!    nothing near is `none`.
//!
//! It never picks a best candidate: anything but one exact match is unresolved.
//!
//! Work is bounded by the input: a city longer than [`MAX_CITY_CHARS`] (no
//! municipality's name comes near it) resolves as `none` without the fuzzy
//! pass, whose cost grows with the product of the two lengths.

use std::collections::HashSet;

use crate::bag::Bag;
use crate::data::{Catalog, Municipality, State};
use crate::fold::{fold, written_out};

/// Most candidates returned with an unresolved city.
pub const MAX_CANDIDATES: usize = 10;

/// Longest city text that is compared with the catalog's names (the longest
/// name has 27 characters).
pub const MAX_CITY_CHARS: usize = 100;

/// Words in the longest name of the catalog (Villa de San Diego de Ubaté).
const MOST_NAME_WORDS: usize = 6;

/// What a client sent about a location.
#[derive(Debug, Clone, Copy, Default)]
pub struct CityInput<'a> {
    pub city_code: Option<&'a str>,
    pub city: Option<&'a str>,
    pub state: Option<&'a str>,
    pub country: Option<&'a str>,
}

/// Why a city did not resolve; the API's `status` / `reason` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ambiguous,
    Fuzzy,
    None,
    InvalidCode,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ambiguous => "ambiguous",
            Status::Fuzzy => "fuzzy",
            Status::None => "none",
            Status::InvalidCode => "invalid_code",
        }
    }
}

/// The outcome of resolving a [`CityInput`].
#[derive(Debug, Clone)]
pub enum Resolution<'c> {
    /// Exactly one municipality.
    Resolved(&'c Municipality),
    /// Outside Colombia: `city` is kept as free text, with no code.
    Foreign { city: Option<String> },
    /// Not resolvable; the client must resend a `cityCode` chosen from `candidates`.
    Unresolved { status: Status, candidates: Vec<&'c Municipality> },
    /// Neither `cityCode` nor `city` was given (a lone `state` is only a hint).
    Absent,
}

/// `true` for an absent or empty country, or Colombia written as `Colombia`, `CO`
/// or `COL` in any case, with or without accents.
pub fn is_colombia(country: Option<&str>) -> bool {
    match country.map(fold) {
        None => true,
        Some(c) => matches!(c.as_str(), "" | "colombia" | "co" | "col" | "republica de colombia"),
    }
}

impl Catalog {
    /// Resolves a location as described in the module docs.
    pub fn resolve(&self, input: CityInput<'_>) -> Resolution<'_> {
        if !is_colombia(input.country) {
            return Resolution::Foreign { city: non_empty(input.city).map(str::to_string) };
        }
        if let Some(code) = non_empty(input.city_code) {
            return match self.municipality(code) {
                Some(m) => Resolution::Resolved(m),
                None => unresolved(Status::InvalidCode, Vec::new()),
            };
        }
        let Some(city) = non_empty(input.city) else {
            return Resolution::Absent;
        };
        if city.chars().nth(MAX_CITY_CHARS).is_some() {
            return unresolved(Status::None, Vec::new());
        }
        let hint = non_empty(input.state).and_then(|s| self.state_by_hint(s));
        let in_hint = |m: &&Municipality| hint.is_none_or(|s| s.covers(m));
        let folded = written_out(fold(city));

        let exact = self.named(&folded);
        if !exact.is_empty() {
            let hinted: Vec<&Municipality> = exact.iter().copied().filter(in_hint).collect();
            return match hinted.as_slice() {
                [one] => Resolution::Resolved(one),
                [] => unresolved(Status::Ambiguous, exact),
                _ => unresolved(Status::Ambiguous, hinted),
            };
        }
        if let Some(m) = self.named_with_state(&folded, hint) {
            return Resolution::Resolved(m);
        }

        let near = self.near_names(&folded);
        let hinted: Vec<&Municipality> = near.iter().copied().filter(in_hint).collect();
        let candidates = if hinted.is_empty() { near } else { hinted };
        if candidates.is_empty() { unresolved(Status::None, candidates) } else { unresolved(Status::Fuzzy, candidates) }
    }

    /// The municipalities whose folded official or short name is `folded`.
    fn named(&self, folded: &str) -> Vec<&Municipality> {
        self.by_folded_name
            .get(folded)
            .map(|ids| ids.iter().filter_map(|&i| self.municipalities.get(i)).collect())
            .unwrap_or_default()
    }

    /// A city written with its state, its country or both in one field
    /// (`Medellín, Antioquia`, `Bogotá D.C. - Colombia`, `Cali Valle`): the
    /// one municipality named by the words before a split whose words after
    /// it name a state that covers it (and `Colombia`, or only `Colombia`),
    /// also inside the `state` hint when one was sent. `None` unless exactly
    /// one municipality reads so.
    fn named_with_state(&self, folded: &str, hint: Option<&State>) -> Option<&Municipality> {
        let words: Vec<&str> = folded.split(' ').collect();
        let mut found: Option<&Municipality> = None;
        for (named, mut rest) in (1..words.len()).filter_map(|split| words.split_at_checked(split)) {
            if let [before @ .., "colombia"] = rest {
                rest = before;
            }
            rest = without_designation(rest);
            let state = match rest {
                [] => None,
                _ => match self.state_by_folded_hint(&rest.join(" ")) {
                    Some(state) => Some(state),
                    None => continue,
                },
            };
            let named = self.named(&named.join(" "));
            let mut within =
                named.into_iter().filter(|m| state.is_none_or(|s| s.covers(m)) && hint.is_none_or(|s| s.covers(m)));
            match (within.next(), within.next(), found) {
                (Some(m), None, None) => found = Some(m),
                (Some(m), None, Some(f)) if f.code == m.code => {}
                (None, _, _) => {}
                _ => return None,
            }
        }
        found
    }

    /// The municipalities (indexes) whose name of four characters or more
    /// `folded` holds as whole words: each run of up to [`MOST_NAME_WORDS`]
    /// of its words looked up, not every name searched for.
    fn held_names(&self, folded: &str) -> HashSet<usize> {
        let words: Vec<&str> = folded.split(' ').collect();
        let mut held = HashSet::new();
        for size in 1..=MOST_NAME_WORDS {
            for run in words.windows(size) {
                let run = run.join(" ");
                if run.chars().count() >= 4 {
                    held.extend(self.by_folded_name.get(&run).into_iter().flatten().copied());
                }
            }
        }
        held
    }

    /// Municipalities whose name is near `folded`, nearest first.
    fn near_names(&self, folded: &str) -> Vec<&Municipality> {
        let len = folded.chars().count();
        let max_distance = match len {
            0..=3 => 0,
            4..=5 => 1,
            6..=9 => 2,
            _ => 3,
        };
        let letters = Bag::of(folded);
        // Only an input of four characters or more is compared as whole words.
        let held = if len >= 4 { self.held_names(folded) } else { HashSet::new() };
        let mut scored: Vec<(usize, &Municipality)> = self
            .municipalities
            .iter()
            .zip(&self.name_bags)
            .enumerate()
            .filter_map(|(i, (m, bags))| {
                let distance = [&m.folded_name, &m.folded_short]
                    .into_iter()
                    .zip(bags)
                    .map(|(name, bag)| {
                        if len >= 4 && (held.contains(&i) || contains_words(name, folded)) {
                            0
                        } else if bag.chars.abs_diff(len) > max_distance || letters.distance(bag) > max_distance {
                            // Lower bounds of the edit distance already too far:
                            // no need to compute it (most names end here).
                            max_distance + 1
                        } else {
                            strsim::damerau_levenshtein(folded, name)
                        }
                    })
                    .min()?;
                (distance <= max_distance && (len >= 4 || distance == 0)).then_some((distance, m))
            })
            .collect();
        scored.sort_by(|(da, a), (db, b)| {
            (da, !a.capital, &a.folded_short, &a.code).cmp(&(db, !b.capital, &b.folded_short, &b.code))
        });
        scored.into_iter().map(|(_, m)| m).collect()
    }
}

/// A district's designation after its name, as official papers write it
/// (`Barranquilla D.E.I.P.`, `Cartagena D.T. y C.`, `Bogotá D.C.`), folded.
const DESIGNATIONS: &[&str] =
    &["dc", "d c", "dt", "d t", "de", "d e", "dtch", "deip", "dt y c", "dtyc", "distrito capital", "distrito especial"];

/// `words` without a [`DESIGNATIONS`] entry at their start.
fn without_designation<'w>(words: &'w [&'w str]) -> &'w [&'w str] {
    (1..=words.len().min(3))
        .rev()
        .filter_map(|n| words.split_at_checked(n))
        .find_map(|(designation, rest)| DESIGNATIONS.contains(&designation.join(" ").as_str()).then_some(rest))
        .unwrap_or(words)
}

/// `Some` trimmed text, or `None` when absent or blank.
fn non_empty(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

fn unresolved(status: Status, mut candidates: Vec<&Municipality>) -> Resolution<'_> {
    candidates.truncate(MAX_CANDIDATES);
    Resolution::Unresolved { status, candidates }
}

/// `words` stands in `name` as whole words (`"indias"` in `"cartagena de indias"`).
fn contains_words(name: &str, words: &str) -> bool {
    name.match_indices(words).any(|(at, _)| {
        // `at` and its match's end are character boundaries of `name`.
        let (Some(before), Some(after)) = (name.get(..at), name.get(at + words.len()..)) else { return false };
        before.chars().next_back().is_none_or(|c| c == ' ') && after.chars().next().is_none_or(|c| c == ' ')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::catalog;

    /// A name and a typed city one of which holds the other as whole words:
    /// `Cartagena` in `Cartagena de Indias`, `Bogotá` in `Chapinero Bogotá`;
    /// names shorter than four characters are not looked for in the input.
    fn contains_either(name: &str, input: &str) -> bool {
        contains_words(name, input) || (name.chars().count() >= 4 && contains_words(input, name))
    }

    #[test]
    fn no_name_has_more_words_than_the_runs_looked_up() {
        let most = catalog().municipalities.iter().map(|m| m.folded_name.split(' ').count()).max();
        assert_eq!(most, Some(MOST_NAME_WORDS));
    }

    /// What `near_names` answered before its lower bounds: every name measured.
    fn near_names_measuring_all(folded: &str) -> Vec<String> {
        let c = catalog();
        let len = folded.chars().count();
        let max = match len {
            0..=3 => 0,
            4..=5 => 1,
            6..=9 => 2,
            _ => 3,
        };
        let mut scored: Vec<(usize, &Municipality)> = c
            .municipalities
            .iter()
            .filter_map(|m| {
                let d = [&m.folded_name, &m.folded_short]
                    .into_iter()
                    .map(|n| {
                        if len >= 4 && contains_either(n, folded) { 0 } else { strsim::damerau_levenshtein(folded, n) }
                    })
                    .min()?;
                (d <= max && (len >= 4 || d == 0)).then_some((d, m))
            })
            .collect();
        scored.sort_by(|(da, a), (db, b)| {
            (da, !a.capital, &a.folded_short, &a.code).cmp(&(db, !b.capital, &b.folded_short, &b.code))
        });
        scored.into_iter().map(|(_, m)| m.code.clone()).collect()
    }

    #[test]
    fn the_lower_bounds_never_drop_a_near_name() {
        let c = catalog();
        for m in c.municipalities.iter().step_by(20) {
            let name: Vec<char> = m.folded_short.chars().collect();
            let n = name.len();
            let mut typos = vec![
                name[1..].iter().collect::<String>(),
                format!("{}x", m.folded_short),
                format!("barrio {} centro", m.folded_short),
            ];
            if n > 3 {
                let mut swapped = name.clone();
                swapped.swap(1, 2);
                typos.push(swapped.iter().collect());
                let mut replaced = name.clone();
                replaced[n / 2] = 'q';
                typos.push(replaced.iter().collect());
            }
            for typo in typos {
                let fast: Vec<String> = c.near_names(&typo).iter().map(|m| m.code.clone()).collect();
                assert_eq!(fast, near_names_measuring_all(&typo), "{typo:?}");
            }
        }
    }

    fn city(city: &str, state: Option<&str>) -> Resolution<'static> {
        catalog().resolve(CityInput { city: Some(city), state, ..Default::default() })
    }

    fn status_and_codes(r: Resolution<'_>) -> (Status, Vec<String>) {
        match r {
            Resolution::Unresolved { status, candidates } => {
                (status, candidates.iter().map(|m| m.code.clone()).collect())
            }
            other => panic!("expected unresolved, got {other:?}"),
        }
    }

    fn resolved_code(r: Resolution<'_>) -> String {
        match r {
            Resolution::Resolved(m) => m.code.clone(),
            other => panic!("expected resolved, got {other:?}"),
        }
    }

    #[test]
    fn a_city_past_the_bound_is_none_without_the_fuzzy_pass() {
        let long = "bogota ".repeat(10_000);
        let started = std::time::Instant::now();
        assert_eq!(status_and_codes(city(&long, None)), (Status::None, vec![]));
        assert!(started.elapsed() < std::time::Duration::from_millis(50), "took {:?}", started.elapsed());
        let at_bound = "x".repeat(MAX_CITY_CHARS);
        assert_eq!(status_and_codes(city(&at_bound, None)).0, Status::None);
    }

    #[test]
    fn a_code_resolves_and_wins_over_the_city() {
        let r = catalog().resolve(CityInput { city_code: Some("05001"), city: Some("Cali"), ..Default::default() });
        assert_eq!(resolved_code(r), "05001");
    }

    #[test]
    fn an_unknown_code_is_invalid_code_without_candidates() {
        for code in ["99999", "5001", "abcde"] {
            let r = catalog().resolve(CityInput { city_code: Some(code), ..Default::default() });
            assert_eq!(status_and_codes(r), (Status::InvalidCode, vec![]));
        }
    }

    #[test]
    fn unique_names_resolve_in_any_case_or_accent() {
        assert_eq!(resolved_code(city("medellin", None)), "05001");
        assert_eq!(resolved_code(city("MEDELLÍN", None)), "05001");
        assert_eq!(resolved_code(city("Bogotá, D.C.", None)), "11001");
        assert_eq!(resolved_code(city("Bogota", None)), "11001");
        assert_eq!(resolved_code(city("Cartagena", None)), "13001");
        assert_eq!(resolved_code(city("Cartagena de Indias", None)), "13001");
    }

    #[test]
    fn shared_names_are_ambiguous_until_a_state_hint_picks_one() {
        let (status, codes) = status_and_codes(city("Villanueva", None));
        assert_eq!(status, Status::Ambiguous);
        assert_eq!(codes.len(), 4);
        for hint in ["Casanare", "85", "CAS", "casanare"] {
            assert_eq!(resolved_code(city("Villanueva", Some(hint))), "85440", "{hint}");
        }
    }

    #[test]
    fn a_state_hint_that_disagrees_is_ambiguous_with_the_real_places() {
        let (status, codes) = status_and_codes(city("Medellín", Some("Cundinamarca")));
        assert_eq!((status, codes), (Status::Ambiguous, vec!["05001".to_string()]));
    }

    #[test]
    fn cundinamarca_as_bogota_s_state_resolves_it() {
        for hint in ["Cundinamarca", "25", "CUN", "Bogotá D.C."] {
            assert_eq!(resolved_code(city("Bogotá", Some(hint))), "11001", "{hint}");
        }
        let (status, codes) = status_and_codes(city("Bogotá", Some("Antioquia")));
        assert_eq!((status, codes), (Status::Ambiguous, vec!["11001".to_string()]));
    }

    #[test]
    fn a_city_written_with_its_state_or_country_resolves() {
        for (typed, code) in [
            ("Medellín, Antioquia", "05001"),
            ("Medellin - Antioquia", "05001"),
            ("Cali (Valle)", "76001"),
            ("Cali, Valle del Cauca, Colombia", "76001"),
            ("Bogotá D.C., Colombia", "11001"),
            ("Bogotá, Cundinamarca", "11001"),
            ("BOGOTA COLOMBIA", "11001"),
            ("Villanueva, Casanare", "85440"),
            ("San Andrés, San Andrés y Providencia", "88001"),
            ("Manizales Caldas", "17001"),
            ("Barranquilla D.E.I.P.", "08001"),
            ("Cartagena D.T. y C., Bolívar", "13001"),
            ("Santa Marta D.T.C.H.", "47001"),
            ("Buenaventura D.E., Valle del Cauca, Colombia", "76109"),
            ("San Juan de Pasto", "52001"),
            ("Santafé de Bogotá", "11001"),
            ("Mompós", "13468"),
        ] {
            assert_eq!(resolved_code(city(typed, None)), code, "{typed}");
        }
        // The state field and the one in the city must both hold it.
        assert_eq!(resolved_code(city("Villanueva, Casanare", Some("85"))), "85440");
        assert_eq!(status_and_codes(city("Villanueva, Casanare", Some("Antioquia"))).0, Status::Fuzzy);
    }

    #[test]
    fn abbreviations_and_the_names_people_shorten_resolve() {
        for (typed, state, code) in [
            ("Pto. Asís", None, "86568"),
            ("Pto Boyacá", None, "15572"),
            ("Sta Marta", None, "47001"),
            ("Sta. Marta, Magdalena", None, "47001"),
            ("Carmen de Viboral", None, "05148"),
            ("El Carmen de Viboral", None, "05148"),
            ("Carmen de Bolívar", None, "13244"),
            ("B/quilla", None, "08001"),
            ("Bmanga", None, "68001"),
            ("Ctg", None, "13001"),
            ("Villavo", None, "50001"),
            ("Zipa", None, "25899"),
            ("Faca", Some("Cundinamarca"), "25269"),
            ("B/ventura", None, "76109"),
            ("Don Matías", None, "05237"),
            ("Cúcuta", Some("Nte. de Santander"), "54001"),
        ] {
            assert_eq!(resolved_code(city(typed, state)), code, "{typed}");
        }
        // A word alone after its article stays as unresolved as before.
        assert!(matches!(city("Carmen", None), Resolution::Unresolved { .. }));
    }

    #[test]
    fn a_state_that_does_not_hold_the_city_or_still_leaves_a_choice_does_not_resolve_it() {
        // Medellín is in Antioquia: never resolved from another state.
        let (status, codes) = status_and_codes(city("Medellín, Cundinamarca", None));
        assert_eq!(status, Status::Fuzzy);
        assert_eq!(codes[0], "05001");
        // Four Villanuevas; Colombia alone picks none.
        let (status, codes) = status_and_codes(city("Villanueva, Colombia", None));
        assert_eq!(status, Status::Fuzzy);
        assert!(codes.len() >= 4, "{codes:?}");
    }

    #[test]
    fn a_city_inside_longer_text_is_a_candidate_not_an_answer() {
        let (status, codes) = status_and_codes(city("Chapinero, Bogotá", None));
        assert_eq!(status, Status::Fuzzy);
        assert_eq!(codes[0], "11001");
        assert_eq!(status_and_codes(city("Calle Une 5", None)).0, Status::None);
    }

    #[test]
    fn misspellings_are_fuzzy_with_the_intended_city_first() {
        for (typo, code) in [("Medelin", "05001"), ("Barranquila", "08001"), ("Bogta", "11001")] {
            let (status, codes) = status_and_codes(city(typo, None));
            assert_eq!(status, Status::Fuzzy, "{typo}");
            assert_eq!(codes[0], code, "{typo}");
        }
    }

    #[test]
    fn unrelated_words_are_none() {
        for word in ["Springfield", "xyzzy", "qq"] {
            assert_eq!(status_and_codes(city(word, None)), (Status::None, vec![]), "{word}");
        }
    }

    #[test]
    fn foreign_countries_keep_the_city_as_text() {
        let r = catalog().resolve(CityInput { city: Some("Quito"), country: Some("Ecuador"), ..Default::default() });
        assert!(matches!(r, Resolution::Foreign { city: Some(c) } if c == "Quito"));
    }

    #[test]
    fn colombia_has_many_spellings() {
        for c in [None, Some(""), Some("Colombia"), Some("COLOMBIA"), Some("co"), Some("COL"), Some("Colómbia")] {
            assert!(is_colombia(c), "{c:?}");
        }
        for c in [Some("Ecuador"), Some("US"), Some("Venezuela")] {
            assert!(!is_colombia(c), "{c:?}");
        }
    }

    #[test]
    fn nothing_to_resolve_without_city_or_code() {
        let r = catalog().resolve(CityInput { state: Some("Antioquia"), ..Default::default() });
        assert!(matches!(r, Resolution::Absent));
    }
}
