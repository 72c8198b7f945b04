//! Tests on a record's stored JSON bytes, before it is decoded.
//!
//! A list that filters every record of a large organization spends most of
//! its time decoding records that do not match. A record whose JSON text lacks
//! every value a filter asks for cannot match it, so [`RawFilter::may_match`]
//! lets the caller decode only the records that may: a necessary test, never
//! a sufficient one. A record that passes is still decoded and tested in full.
//!
//! A text is only used as a needle when its presence in the stored bytes is
//! implied by a match ([`RawFilter::any_of`]):
//! - it holds no `"`, `\` or control character, the characters JSON writes
//!   escaped (every other character is written as itself, so a value that
//!   holds the text is written holding it);
//! - compared without case, it is ASCII, and it is looked for in the bytes
//!   in any ASCII case, unless they hold one of the two characters whose
//!   lowercase holds ASCII letters ([`FOLDS_TO_ASCII`]): then the test passes.

use memchr::memmem;

/// The UTF-8 of the characters whose lowercase (Rust's `to_lowercase`) holds
/// an ASCII character: `İ` (U+0130, to `i̇`) and the Kelvin sign (U+212A, to
/// `k`). A unit test checks every character.
const FOLDS_TO_ASCII: [&[u8]; 2] = ["\u{130}".as_bytes(), "\u{212A}".as_bytes()];

/// One filter: the record may match if its bytes hold any of the needles.
enum AnyOf {
    /// Compared as bytes.
    Exact(Vec<memmem::Finder<'static>>),
    /// Compared without case: the needles are lowercase ASCII.
    Folded(Vec<Vec<u8>>),
}

/// Every filter must find one of its needles.
#[derive(Default)]
pub struct RawFilter {
    tests: Vec<AnyOf>,
}

/// Whether the stored JSON of a value holding `text` holds it as is.
fn written_as_is(text: &str) -> bool {
    !text.chars().any(|c| c == '"' || c == '\\' || c.is_control())
}

/// Whether `hay` holds `needle` (lowercase ASCII) in any ASCII case, without
/// a lowercased copy of `hay`: each place its first letter appears in either
/// case is compared.
fn holds_folded(hay: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else { return true };
    memchr::memchr2_iter(first, first.to_ascii_uppercase(), hay)
        .any(|at| hay.get(at + 1..at + needle.len()).is_some_and(|next| next.eq_ignore_ascii_case(rest)))
}

impl RawFilter {
    /// Adds a filter that holds when the value holds one of `texts` (`folded`:
    /// compared without case, as `value.to_lowercase().contains(text)` with
    /// `text` already lowercase). A filter none of whose texts can be looked
    /// for in the bytes is left out: the full test decides it.
    pub fn any_of<'a>(&mut self, texts: impl IntoIterator<Item = &'a str>, folded: bool) {
        let texts: Vec<&str> = texts.into_iter().collect();
        let usable =
            |t: &&str| written_as_is(t) && (!folded || (t.is_ascii() && !t.bytes().any(|b| b.is_ascii_uppercase())));
        if texts.is_empty() || !texts.iter().all(usable) {
            return;
        }
        self.tests.push(match folded {
            true => AnyOf::Folded(texts.iter().map(|t| t.as_bytes().to_vec()).collect()),
            false => AnyOf::Exact(texts.iter().map(|t| memmem::Finder::new(t.as_bytes()).into_owned()).collect()),
        });
    }

    /// False only when a record with these stored bytes cannot match.
    pub fn may_match(&self, raw: &[u8]) -> bool {
        // Looked for once, and only if a folded filter asks.
        let mut folds_to_ascii = None;
        self.tests.iter().all(|test| match test {
            AnyOf::Exact(needles) => needles.iter().any(|n| n.find(raw).is_some()),
            AnyOf::Folded(needles) => {
                *folds_to_ascii.get_or_insert_with(|| FOLDS_TO_ASCII.iter().any(|c| memmem::find(raw, c).is_some()))
                    || needles.iter().any(|n| holds_folded(raw, n))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(texts: &[&str], folded: bool) -> RawFilter {
        let mut f = RawFilter::default();
        f.any_of(texts.iter().copied(), folded);
        f
    }

    fn json(value: &str) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({ "plan": value })).unwrap()
    }

    #[test]
    fn only_these_characters_lowercase_to_ascii() {
        let found: Vec<char> = (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|c| !c.is_ascii() && c.to_lowercase().any(|l| l.is_ascii()))
            .collect();
        let listed: Vec<char> =
            FOLDS_TO_ASCII.iter().map(|b| std::str::from_utf8(b).unwrap().chars().next().unwrap()).collect();
        assert_eq!(found, listed);
    }

    #[test]
    fn folded_needles_are_found_in_any_ascii_case() {
        assert!(holds_folded(b"a GoLd b", b"gold"));
        assert!(holds_folded(b"gggold", b"gold"), "after false starts");
        assert!(!holds_folded(b"a gol", b"gold"), "cut by the end");
        assert!(holds_folded(b"x-42", b"-42"));
        assert!(!holds_folded(b"x-42", b"_42"));
        assert!(holds_folded(b"", b""));
    }

    #[test]
    fn a_record_without_any_needle_cannot_match() {
        let f = filter(&["gold", "silver"], true);
        assert!(f.may_match(&json("Gold member")));
        assert!(f.may_match(&json("SILVER")));
        assert!(!f.may_match(&json("bronze")));
    }

    #[test]
    fn every_filter_must_find_a_needle() {
        let mut f = filter(&["gold"], true);
        f.any_of(["vip"], false);
        assert!(!f.may_match(&json("gold")));
        assert!(f.may_match(br#"{"plan":"gold","vip":true}"#));
    }

    #[test]
    fn exact_needles_keep_their_case_and_may_be_any_script() {
        let f = filter(&["Medellín"], false);
        assert!(f.may_match(&json("Medellín")));
        assert!(!filter(&["medellín"], false).may_match(&json("Medellín")));
    }

    #[test]
    fn texts_the_bytes_cannot_show_leave_the_filter_out() {
        // Escaped in JSON, or not ASCII when folded: the full test decides.
        for (text, folded) in [("a\"b", false), ("a\\b", false), ("a\nb", true), ("bogotá", true), ("Gold", true)] {
            assert!(filter(&["gold", text], folded).may_match(b"{}"), "{text:?}");
        }
        assert!(!filter(&["bogotá"], false).may_match(b"{}"));
    }

    #[test]
    fn characters_that_lowercase_to_ascii_pass_the_folded_test() {
        // "XİZ".to_lowercase() is "xi\u{307}z", which holds "xi"; the ASCII fold of its bytes does not.
        assert!("XİZ".to_lowercase().contains("xi"));
        assert!(filter(&["xi"], true).may_match(&json("XİZ")));
        assert!(!filter(&["xi"], true).may_match(&json("XZ")));
        assert!(filter(&["k"], true).may_match(&json("\u{212A}")));
        assert!(!filter(&["k"], true).may_match(&json("x")));
    }
}
