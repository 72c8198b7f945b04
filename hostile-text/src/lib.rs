//! Hostile text for property tests: the proptest strategies every parser of
//! client text is tested with, in both workspaces (a dev-dependency only;
//! nothing that ships links it). Issue 66 was one byte-indexed slice that
//! an accented last character made trap; examples are written in ASCII, so
//! these strategies mix the ASCII shapes a parser expects (digits, `-`,
//! `.`, `@`, `;` and `,`, quotes) with the characters that break code which
//! counts bytes: letters of two bytes (`é`, `ñ`), combining marks, bidi
//! controls, zero-width characters and the byte-order mark, NUL, other
//! scripts' digits (Arabic-Indic, Devanagari, fullwidth), emoji and the last
//! code points, and runs thousands of characters long.
//!
//! - [`char()`]: one such character, or any at all;
//! - [`text`]: a text of them, now and then a very long run;
//! - [`around`]: a text a parser expects with such characters put in
//!   anywhere (the end included, where issue 66's was);
//! - [`config`]: the case count every property test runs (256, or
//!   `PROPTEST_CASES`), small enough for CI's budget.

use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::Config;

/// Characters chosen to break code that indexes text by bytes or assumes
/// one character a byte, a digit `0-9`, or a letter ASCII.
pub const HOSTILE: &[char] = &[
    'é',
    'ñ',
    'Ñ',
    'Ó',
    'ü',
    'ß',
    'İ',
    '\u{212A}', // letters of two or three bytes, case folds that grow
    '\u{301}',
    '\u{303}',
    '\u{34F}', // combining marks (an accent of its own)
    '\u{202E}',
    '\u{202D}',
    '\u{2066}',
    '\u{2069}',
    '\u{200F}', // bidi controls
    '\u{200B}',
    '\u{200D}',
    '\u{2060}',
    '\u{FEFF}',
    '\u{AD}', // zero-width, the byte-order mark, a soft hyphen
    '\0',
    '\u{7F}',
    '\u{85}',
    '\u{2028}',
    '\r',
    '\n',
    '\t', // controls and line breaks
    '٠',
    '٣',
    '٩',
    '۵',
    '०',
    '९',
    '０',
    '５',
    '９',
    '𝟗', // other scripts' digits
    '€',
    '\u{FFFD}',
    '\u{1F600}',
    '\u{1F1E8}',
    '\u{1F1F4}',
    '\u{10FFFF}',
    '\u{D7FF}',
    '\u{E000}', // up to four bytes
];

/// The ASCII a parser expects: digits, separators, the shapes of emails,
/// numbers, dates, CSV and query strings.
pub const SHAPES: &[char] = &[
    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '-', '.', ',', ';', '@', ' ', '"', '\'', '+', '(', ')', '/', ':',
    '=', '&', '%', '_', 'T', 'Z', 'a', 'e', 'o', 'n', 'A', 'S', 'x', 'c', 'm',
];

/// One character: mostly a shape or a hostile one, sometimes any at all.
pub fn char() -> impl Strategy<Value = char> {
    prop_oneof![5 => select(SHAPES), 4 => select(HOSTILE), 1 => any::<char>()]
}

/// A text of up to `most` [`char`](fn@char)s, or now and then one of them repeated
/// thousands of times, or a mix of them thousands of characters long.
pub fn text(most: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        16 => proptest::collection::vec(char(), 0..=most).prop_map(String::from_iter),
        1 => (char(), 1_000..5_000usize).prop_map(|(c, n)| std::iter::repeat_n(c, n).collect()),
        // A short mix repeated: as hostile as thousands drawn one by one, and
        // far cheaper to draw.
        1 => (proptest::collection::vec(char(), 1..64), 1_000..5_000usize)
            .prop_map(|(mix, n)| mix.iter().cycle().take(n).collect()),
    ]
}

/// `shape`'s texts with up to four [`char`](fn@char)s put in at any character
/// position, or at the end.
pub fn around(shape: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    (shape, proptest::collection::vec((any::<Index>(), char()), 0..=4)).prop_map(|(text, put)| {
        let mut chars: Vec<char> = text.chars().collect();
        for (at, c) in put {
            chars.insert(at.index(chars.len() + 1), c);
        }
        chars.into_iter().collect()
    })
}

/// The cases each property test runs: 256 (a few seconds a crate), or
/// `PROPTEST_CASES` for a longer look.
pub fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256);
    Config { cases, ..Config::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest! {
        #![proptest_config(config())]

        /// What [`around`] gives holds the shape's characters in order, and at most four more.
        #[test]
        fn around_keeps_the_shape_in_order((shape, text) in "[0-9]{0,12}".prop_flat_map(|s| (Just(s.clone()), around(Just(s))))) {
            let mut rest = text.chars();
            prop_assert!(shape.chars().all(|c| rest.any(|r| r == c)), "{shape:?} in {text:?}");
            prop_assert!(text.chars().count() <= shape.chars().count() + 4);
        }
    }

    #[test]
    fn hostile_characters_are_not_printable_ascii() {
        assert!(HOSTILE.iter().all(|c| !c.is_ascii_graphic() && *c != ' '));
        assert!(SHAPES.iter().all(|c| c.is_ascii_graphic() || *c == ' '));
    }
}
