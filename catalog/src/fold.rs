//! Folding: the one way text is compared in the catalog.
//!
//! `fold` makes a comparison key: Unicode NFD, combining marks dropped (so `á` → `a`
//! and `ñ` → `n`), lower case, `.` and `'` dropped (`D.C.` → `dc`), every other
//! character that is not a letter or digit turned into a space, runs of spaces
//! collapsed and trimmed.

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

#[cfg(test)]
mod tests {
    use super::fold;

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
