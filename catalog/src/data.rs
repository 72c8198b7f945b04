//! The catalog records and their loading from the CSV files in `data/`.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::bag::Bag;
use crate::fold::{fold, written_out};

const MUNICIPALITIES_CSV: &str = include_str!("../data/municipalities.csv");
const STATES_CSV: &str = include_str!("../data/states.csv");

/// A municipality (or island, or non-municipalised area) of DIVIPOLA.
///
/// Serialises to the API's Municipality shape; the other fields stay internal.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Municipality {
    pub code: String,
    pub name: String,
    pub short_name: String,
    pub state_code: String,
    pub state_name: String,
    pub state_iso2: String,
    /// Populated-centre code: `code` + `000`. Shipping providers address cities with it.
    pub dane8: String,
    #[serde(skip)]
    pub capital: bool,
    #[serde(skip)]
    pub(crate) folded_name: String,
    #[serde(skip)]
    pub(crate) folded_short: String,
}

/// A department, or the capital district (code `11`).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    pub code: String,
    pub name: String,
    pub short_name: String,
    pub iso2: String,
}

/// The loaded catalog with its lookup indexes.
pub struct Catalog {
    pub municipalities: Vec<Municipality>,
    pub states: Vec<State>,
    /// Derived from the data files, so it changes only when the data does.
    pub version: String,
    by_code: HashMap<String, usize>,
    /// Folded official name and folded short name → municipality indexes.
    pub(crate) by_folded_name: HashMap<String, Vec<usize>>,
    /// The letters of each municipality's folded official and short name, for
    /// the fuzzy pass's lower bounds (same order as `municipalities`).
    pub(crate) name_bags: Vec<[Bag; 2]>,
    /// Folded official name, short name, ISO code and [`STATE_ALIASES`] → state index.
    by_state_name: HashMap<String, usize>,
}

/// The catalog, parsed on first use and shared for the life of the process.
pub fn catalog() -> &'static Catalog {
    static CATALOG: LazyLock<Catalog> = LazyLock::new(Catalog::load);
    &CATALOG
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct MunicipalityRow {
    code: String,
    name: String,
    short_name: String,
    state_code: String,
    state_name: String,
    state_iso2: String,
    capital: bool,
}

impl Catalog {
    fn load() -> Catalog {
        let states: Vec<State> = csv::Reader::from_reader(STATES_CSV.as_bytes())
            .deserialize()
            .collect::<Result<_, _>>()
            .expect("embedded states.csv is valid");
        let rows: Vec<MunicipalityRow> = csv::Reader::from_reader(MUNICIPALITIES_CSV.as_bytes())
            .deserialize()
            .collect::<Result<_, _>>()
            .expect("embedded municipalities.csv is valid");
        let municipalities: Vec<Municipality> = rows
            .into_iter()
            .map(|r| Municipality {
                dane8: format!("{}000", r.code),
                folded_name: fold(&r.name),
                folded_short: fold(&r.short_name),
                code: r.code,
                name: r.name,
                short_name: r.short_name,
                state_code: r.state_code,
                state_name: r.state_name,
                state_iso2: r.state_iso2,
                capital: r.capital,
            })
            .collect();

        let mut by_code = HashMap::new();
        let mut by_folded_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, m) in municipalities.iter().enumerate() {
            by_code.insert(m.code.clone(), i);
            by_folded_name.entry(m.folded_name.clone()).or_default().push(i);
            if m.folded_short != m.folded_name {
                by_folded_name.entry(m.folded_short.clone()).or_default().push(i);
            }
        }

        // Not where it is another's name; two that read alike are both kept (ambiguous).
        let without: Vec<(String, usize)> = without_article(&municipalities)
            .into_iter()
            .filter(|(name, _)| !by_folded_name.contains_key(name))
            .collect();
        for (name, i) in without {
            by_folded_name.entry(name).or_default().push(i);
        }
        for (alias, code) in MUNICIPALITY_ALIASES {
            let i = by_code.get(*code).copied().expect("an alias names a municipality of the catalog");
            by_folded_name.entry(alias.to_string()).or_default().push(i);
        }
        let name_bags = municipalities.iter().map(|m| [Bag::of(&m.folded_name), Bag::of(&m.folded_short)]).collect();
        let mut by_state_name: HashMap<String, usize> = HashMap::new();
        for (i, st) in states.iter().enumerate() {
            for name in [&st.name, &st.short_name, &st.iso2] {
                by_state_name.insert(fold(name), i);
            }
        }
        for (alias, code) in STATE_ALIASES {
            let i = states.iter().position(|st| st.code == *code).expect("an alias names a state of the catalog");
            by_state_name.insert(alias.to_string(), i);
        }

        let digest: [u8; 32] =
            Sha256::new().chain_update(MUNICIPALITIES_CSV).chain_update(STATES_CSV).finalize().into();
        let version = format!("divipola-{}", hex::encode(&digest[..6]));

        Catalog { municipalities, states, version, by_code, by_folded_name, name_bags, by_state_name }
    }

    /// The municipality with this 5-digit code.
    pub fn municipality(&self, code: &str) -> Option<&Municipality> {
        self.by_code.get(code).and_then(|&i| self.municipalities.get(i))
    }

    /// The state with this 2-digit code.
    pub fn state(&self, code: &str) -> Option<&State> {
        self.states.iter().find(|s| s.code == code)
    }

    /// A state named by a person: its official name, short name, one of the
    /// common names of [`STATE_ALIASES`], code (`5` or `05`) or ISO 3166-2
    /// code (with or without `CO-`), compared folded.
    pub fn state_by_hint(&self, hint: &str) -> Option<&State> {
        let hint = hint.trim();
        if let Some(code) = normalise_state_code(hint) {
            return self.state(&code);
        }
        self.state_by_folded_hint(&written_out(fold(hint)))
    }

    /// [`Catalog::state_by_hint`] of text already folded.
    pub(crate) fn state_by_folded_hint(&self, folded: &str) -> Option<&State> {
        let name = self.by_state_name.get(folded);
        // `CO-ANT` folds to `co ant`.
        let iso = || folded.strip_prefix("co ").and_then(|iso| self.by_state_name.get(iso));
        name.or_else(iso).and_then(|&i| self.states.get(i))
    }
}

/// Names in common use for a municipality that are neither its official
/// nor its short name in DIVIPOLA (folded): read as exact names. Besides
/// these, a name of more than one word after its article is one too
/// ([`without_article`]).
const MUNICIPALITY_ALIASES: &[(&str, &str)] = &[
    ("san juan de pasto", "52001"),
    ("santafe de bogota", "11001"),
    ("santa fe de bogota", "11001"),
    ("mompos", "13468"),
    ("el espinal", "73268"),
    ("fusa", "25290"),
    ("zipa", "25899"),
    ("faca", "25269"),
    ("don matias", "05237"),
    ("tolu viejo", "70823"),
    ("villavo", "50001"),
    // How the big cities are shortened in addresses and on shipping labels.
    ("bquilla", "08001"),
    ("b quilla", "08001"),
    ("bmanga", "68001"),
    ("b manga", "68001"),
    ("bga", "68001"),
    ("ctg", "13001"),
    ("ctgena", "13001"),
    ("bventura", "76109"),
    ("b ventura", "76109"),
];

/// The names of more than one word that follow an article (`El Carmen de
/// Viboral` → `carmen de viboral`, as many write it), with their
/// municipality. One word alone is left out: `carmen` or `paz` would name
/// one place where people mean several.
fn without_article(municipalities: &[Municipality]) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for (i, m) in municipalities.iter().enumerate() {
        for name in [&m.folded_name, &m.folded_short] {
            let rest = ["el ", "la ", "los ", "las "].iter().find_map(|article| name.strip_prefix(article));
            if let Some(rest) = rest.filter(|rest| rest.contains(' ')) {
                found.push((rest.to_string(), i));
            }
        }
    }
    found.dedup();
    found
}

/// Names people write for a state that are neither its official nor its
/// short name (folded): what Colombian web forms and shop platforms offer.
const STATE_ALIASES: &[(&str, &str)] = &[
    ("valle", "76"),
    ("guajira", "44"),
    ("norte santander", "54"),
    ("distrito capital", "11"),
    ("bogota distrito capital", "11"),
    ("bogota d c", "11"),
    ("san andres y providencia", "88"),
    ("san andres providencia y santa catalina", "88"),
    ("archipielago de san andres", "88"),
    ("san andres islas", "88"),
];

impl State {
    /// Whether a municipality lies in this state as a person means it: its
    /// own state, and for Cundinamarca also Bogotá. The capital district has
    /// been a state of its own since 1991, yet it is Cundinamarca's capital
    /// and "Bogotá, Cundinamarca" is how many people still write it.
    pub fn covers(&self, m: &Municipality) -> bool {
        m.state_code == self.code || (self.code == CUNDINAMARCA && m.code == BOGOTA)
    }
}

const CUNDINAMARCA: &str = "25";
const BOGOTA: &str = "11001";

/// `5` → `05`, `05` → `05`; anything that is not one or two ASCII digits → `None`.
pub fn normalise_state_code(text: &str) -> Option<String> {
    match text.as_bytes() {
        [d] if d.is_ascii_digit() => Some(format!("0{}", *d as char)),
        [a, b] if a.is_ascii_digit() && b.is_ascii_digit() => Some(text.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_the_spec() {
        let c = catalog();
        assert_eq!(c.municipalities.len(), 1122);
        assert_eq!(c.states.len(), 33);
    }

    #[test]
    fn dane8_is_code_plus_000() {
        let m = catalog().municipality("05001").unwrap();
        assert_eq!(m.dane8, "05001000");
        assert_eq!(m.short_name, "Medellín");
        assert!(m.capital);
    }

    #[test]
    fn state_hints_accept_names_codes_and_iso() {
        let c = catalog();
        for hint in ["Antioquia", "antioquia", "5", "05", "ANT", "CO-ANT"] {
            assert_eq!(c.state_by_hint(hint).map(|s| s.code.as_str()), Some("05"), "{hint}");
        }
        assert_eq!(c.state_by_hint("Bogotá").unwrap().code, "11");
        assert_eq!(c.state_by_hint("Bogota D.C.").unwrap().code, "11");
        assert_eq!(c.state_by_hint("San Andres").unwrap().code, "88");
        for (hint, code) in [
            ("Valle", "76"),
            ("San Andrés y Providencia", "88"),
            ("San Andrés, Providencia y Santa Catalina", "88"),
            ("Guajira", "44"),
            ("Norte Santander", "54"),
            ("Bogotá D. C.", "11"),
            ("Distrito Capital", "11"),
        ] {
            assert_eq!(c.state_by_hint(hint).map(|s| s.code.as_str()), Some(code), "{hint}");
        }
        assert!(c.state_by_hint("Texas").is_none());
        assert!(c.state_by_hint("98").is_none());
    }

    #[test]
    fn common_names_of_municipalities_are_names() {
        let c = catalog();
        for (alias, code) in MUNICIPALITY_ALIASES {
            assert_eq!(c.by_folded_name[*alias].len(), 1, "{alias}: no official name already");
            assert!(c.municipality(code).is_some(), "{alias}");
        }
        let named =
            |name: &str| c.by_folded_name[name].iter().map(|&i| c.municipalities[i].code.as_str()).collect::<Vec<_>>();
        assert_eq!(named("carmen de viboral"), ["05148"]);
        assert_eq!(named("carmen de bolivar"), ["13244"], "its article dropped, as an alias had it");
        assert!(!c.by_folded_name.contains_key("carmen"), "one word alone is not a name");
    }

    #[test]
    fn no_name_holds_an_abbreviation_as_a_word() {
        let c = catalog();
        let names = c.municipalities.iter().flat_map(|m| [&m.folded_name, &m.folded_short]);
        let states = c.states.iter().flat_map(|s| [fold(&s.name), fold(&s.short_name)]).collect::<Vec<_>>();
        for name in names.chain(states.iter()) {
            for (short, _) in crate::fold::ABBREVIATIONS {
                assert!(!name.split(' ').any(|w| w == *short), "{name} holds {short}");
            }
        }
    }

    #[test]
    fn cundinamarca_covers_bogota_and_no_state_covers_another_s_town() {
        let c = catalog();
        let bogota = c.municipality("11001").unwrap();
        assert!(c.state("25").unwrap().covers(bogota));
        assert!(c.state("11").unwrap().covers(bogota));
        assert!(!c.state("05").unwrap().covers(bogota));
        let soacha = c.municipality("25754").unwrap();
        assert!(c.state("25").unwrap().covers(soacha));
        assert!(!c.state("11").unwrap().covers(soacha));
    }

    #[test]
    fn version_derives_from_the_data() {
        let v = &catalog().version;
        assert!(v.starts_with("divipola-") && v.len() == "divipola-".len() + 12, "{v}");
    }

    /// The spec says 66 names are shared; that figure holds when names are compared
    /// without case but with accents (Chimá and Chima count as two names).
    #[test]
    fn sixty_six_names_are_shared() {
        let mut groups: HashMap<String, usize> = HashMap::new();
        for m in &catalog().municipalities {
            *groups.entry(m.name.to_lowercase()).or_default() += 1;
        }
        assert_eq!(groups.values().filter(|&&n| n > 1).count(), 66);
    }
}
