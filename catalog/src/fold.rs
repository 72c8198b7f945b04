//! Folding: the one way text is compared in the catalog.
//!
//! `fold` makes a comparison key: Unicode NFD, combining marks dropped (so `á` → `a`
//! and `ñ` → `n`), lower case, `.` and `'` dropped (`D.C.` → `dc`), every other
//! character that is not a letter or digit turned into a space, runs of spaces
//! collapsed and trimmed. `written_out` then reads the abbreviations people
//! write in place names (`Pto. Asís`, `Sta Marta`, `Nte. de Santander`).

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// The comparison key of `text` (see the module docs).
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.nfd() {
        if is_combining_mark(c) || c == '.' || c == '\'' || c == '’' {
            continue;
        }
        if c.is_alphanumeric() {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.extend(c.to_lowercase());
        } else {
            pending_space = true;
        }
    }
    out
}

/// Abbreviations of words of place names, as whole folded words: no name of
/// the catalog holds one (a unit test checks).
pub(crate) const ABBREVIATIONS: &[(&str, &str)] =
    &[("pto", "puerto"), ("sta", "santa"), ("sto", "santo"), ("stgo", "santiago"), ("sn", "san"), ("nte", "norte")];

/// Folded text (from a client) with its [`ABBREVIATIONS`] written out.
pub fn written_out(folded: String) -> String {
    let long = |w: &str| ABBREVIATIONS.iter().find(|(short, _)| *short == w).map(|(_, long)| *long);
    if !folded.split(' ').any(|w| long(w).is_some()) {
        return folded;
    }
    folded.split(' ').map(|w| long(w).unwrap_or(w)).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::{fold, written_out};

    #[test]
    fn abbreviations_are_written_out_as_whole_words() {
        assert_eq!(written_out(fold("Pto. Asís")), "puerto asis");
        assert_eq!(written_out(fold("Sta Rosa de Cabal")), "santa rosa de cabal");
        assert_eq!(written_out(fold("Nte. de Santander")), "norte de santander");
        assert_eq!(written_out(fold("Stamaria")), "stamaria", "inside a word");
        assert_eq!(written_out(String::new()), "");
    }

    #[test]
    fn drops_case_and_accents() {
        assert_eq!(fold("San José de Cúcuta"), "san jose de cucuta");
        assert_eq!(fold("MEDELLÍN"), "medellin");
        assert_eq!(fold("Nariño"), "narino");
    }

    #[test]
    fn treats_punctuation_as_space_and_drops_dots() {
        assert_eq!(fold("Bogotá, D.C."), "bogota dc");
        assert_eq!(fold("  Santa   Fe de Antioquia "), "santa fe de antioquia");
        assert_eq!(fold("Mirití - Paraná"), "miriti parana");
        assert_eq!(fold("Miriti-Parana"), "miriti parana");
    }

    #[test]
    fn decomposed_and_composed_input_fold_alike() {
        assert_eq!(fold("Bogota\u{301}"), fold("Bogotá"));
    }
}
