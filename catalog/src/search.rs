//! The municipality search behind `GET /catalogs/municipalities`.
//!
//! `q` matches by prefix or inclusion on the folded official and short names.
//! Order: state capitals first, then prefix matches, then the rest; ties by short
//! name, then code, so the answer is stable.

use crate::data::{Catalog, Municipality, normalise_state_code};
use crate::fold::fold;

/// Largest `limit` a caller may ask for.
pub const MAX_LIMIT: usize = 1200;
/// `limit` when `q` is given and no limit is.
pub const DEFAULT_LIMIT_WITH_QUERY: usize = 20;

/// Why a search request is refused. Each maps to one API error code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchError {
    /// `state` is not one or two digits, or names no state.
    StateUnknown(String),
    /// `limit` is not an integer in `1..=1200`.
    LimitInvalid(String),
}

impl SearchError {
    pub fn code(&self) -> &'static str {
        match self {
            SearchError::StateUnknown(_) => "STATE_UNKNOWN",
            SearchError::LimitInvalid(_) => "LIMIT_INVALID",
        }
    }

    pub fn message(&self) -> String {
        match self {
            SearchError::StateUnknown(s) => format!("Unknown state code: {s:?}"),
            SearchError::LimitInvalid(s) => {
                format!("limit must be an integer from 1 to {MAX_LIMIT}, got {s:?}")
            }
        }
    }
}

/// A validated search: what the ETag is computed from and what runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// Folded `q`; `None` when absent or blank (as a blank contact `search`
    /// is none). A `q` with no letter or digit (`-`, an emoji) folds to
    /// `""`, which no name holds: it matches nothing, rather than every
    /// municipality.
    pub query: Option<String>,
    pub state_code: Option<String>,
    pub limit: Option<usize>,
}

impl Search {
    /// Validates the raw query parameters.
    pub fn parse(
        catalog: &Catalog,
        q: Option<&str>,
        state: Option<&str>,
        limit: Option<&str>,
    ) -> Result<Search, SearchError> {
        let state_code = match state {
            None => None,
            Some(raw) => match normalise_state_code(raw) {
                Some(code) if catalog.state(&code).is_some() => Some(code),
                _ => return Err(SearchError::StateUnknown(raw.to_string())),
            },
        };
        let limit = match limit {
            None => None,
            Some(raw) => match raw.parse::<usize>() {
                Ok(n) if (1..=MAX_LIMIT).contains(&n) => Some(n),
                _ => return Err(SearchError::LimitInvalid(raw.to_string())),
            },
        };
        let query = q.filter(|q| !q.trim().is_empty()).map(fold);
        Ok(Search { query, state_code, limit })
    }

    /// A canonical text of the filters, for cache keys: equal searches give
    /// equal keys, and no query is told apart from one that folds to `""`.
    pub fn canonical(&self) -> String {
        let query = self.query.as_deref().map(|q| format!("q={q}&")).unwrap_or_default();
        format!("{query}state={}&limit={}", self.state_code.as_deref().unwrap_or(""), self.effective_limit())
    }

    fn effective_limit(&self) -> usize {
        match (self.limit, &self.query) {
            (Some(n), _) => n,
            (None, Some(_)) => DEFAULT_LIMIT_WITH_QUERY,
            (None, None) => MAX_LIMIT,
        }
    }

    /// Runs the search.
    pub fn run<'c>(&self, catalog: &'c Catalog) -> Vec<&'c Municipality> {
        let in_state = |m: &&Municipality| self.state_code.as_deref().is_none_or(|s| m.state_code == s);
        let limit = self.effective_limit();
        let Some(query) = &self.query else {
            return catalog.municipalities.iter().filter(in_state).take(limit).collect();
        };
        if query.is_empty() {
            return Vec::new();
        }
        let mut hits: Vec<(u8, &Municipality)> = catalog
            .municipalities
            .iter()
            .filter(in_state)
            .filter_map(|m| {
                let prefix = m.folded_name.starts_with(query.as_str()) || m.folded_short.starts_with(query.as_str());
                let inside =
                    prefix || m.folded_name.contains(query.as_str()) || m.folded_short.contains(query.as_str());
                let rank = match (m.capital, prefix) {
                    _ if !inside => return None,
                    (true, _) => 0,
                    (false, true) => 1,
                    (false, false) => 2,
                };
                Some((rank, m))
            })
            .collect();
        hits.sort_by(|(ra, a), (rb, b)| (ra, &a.folded_short, &a.code).cmp(&(rb, &b.folded_short, &b.code)));
        hits.into_iter().take(limit).map(|(_, m)| m).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::catalog;

    fn codes(q: &str, state: Option<&str>, limit: Option<&str>) -> Vec<String> {
        let c = catalog();
        let s = Search::parse(c, Some(q), state, limit).unwrap();
        s.run(c).into_iter().map(|m| m.code.clone()).collect()
    }

    #[test]
    fn capitals_first_then_prefix_then_inclusion() {
        let c = catalog();
        let s = Search::parse(c, Some("san"), None, Some("1200")).unwrap();
        let hits = s.run(c);
        let first_non_capital = hits.iter().position(|m| !m.capital).unwrap();
        assert!(hits[..first_non_capital].iter().all(|m| m.capital));
        assert!(hits[first_non_capital..].iter().all(|m| !m.capital));
        let rest = &hits[first_non_capital..];
        let first_inside =
            rest.iter().position(|m| !m.folded_short.starts_with("san") && !m.folded_name.starts_with("san")).unwrap();
        assert!(rest[first_inside..].iter().all(|m| !m.folded_name.starts_with("san")));
    }

    #[test]
    fn accents_and_case_do_not_matter() {
        assert_eq!(codes("MEDELLIN", None, None), codes("medellín", None, None));
        assert_eq!(codes("medellín", None, None)[0], "05001");
        assert_eq!(codes("bogota", None, None)[0], "11001");
    }

    #[test]
    fn a_query_with_no_letter_or_digit_matches_nothing() {
        for q in ["-", "!!!", "😀", "´"] {
            assert_eq!(codes(q, None, None), Vec::<String>::new(), "{q:?}");
        }
        let c = catalog();
        let none = Search::parse(c, None, None, Some("1200")).unwrap();
        let nothing = Search::parse(c, Some("-"), None, Some("1200")).unwrap();
        assert_ne!(none.canonical(), nothing.canonical(), "their answers differ, so must their ETags");
        let blank = Search::parse(c, Some("  "), None, Some("1200")).unwrap();
        assert_eq!(blank.canonical(), none.canonical(), "a blank query is no query");
    }

    #[test]
    fn default_limit_with_query_is_20() {
        assert_eq!(codes("a", None, None).len(), 20);
        assert_eq!(codes("a", None, Some("3")).len(), 3);
    }

    #[test]
    fn state_filter_and_its_short_form() {
        let c = catalog();
        let s = Search::parse(c, None, Some("5"), None).unwrap();
        let all = s.run(c);
        assert_eq!(all.len(), 125);
        assert!(all.iter().all(|m| m.state_code == "05"));
    }

    #[test]
    fn bad_state_and_limit_are_refused() {
        let c = catalog();
        for state in ["98", "00", "123", "x", "", " 5"] {
            assert_eq!(Search::parse(c, None, Some(state), None).unwrap_err().code(), "STATE_UNKNOWN");
        }
        for limit in ["0", "1201", "-1", "abc", "2.5", "", " 5", "5 "] {
            assert_eq!(Search::parse(c, None, None, Some(limit)).unwrap_err().code(), "LIMIT_INVALID");
        }
    }

    #[test]
    fn canonical_form_ignores_spelling_of_equal_filters() {
        let c = catalog();
        let a = Search::parse(c, Some("Médellin"), Some("5"), None).unwrap();
        let b = Search::parse(c, Some("medellin"), Some("05"), Some("20")).unwrap();
        assert_eq!(a.canonical(), b.canonical());
    }
}
