//! Tests on a record's stored JSON bytes, before it is decoded, and the fold
//! that text compared without case and accents goes through.
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
//! - compared through [`fold`], it is ASCII once folded. It is looked for in
//!   the bytes in any ASCII case; where that fails and the bytes hold other
//!   characters, each of those may stand for one letter of the needle or for
//!   none ([`holds_with_wildcards`]): `gomez` may be in `Gómez`, whose `ó`
//!   folds to `o`, and in `Go\u{301}mez`, whose accent folds to nothing. A
//!   unit test checks that no character folds to more than one ASCII one.

use memchr::memmem;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Text as a comparison without case or accents sees it: lower case, and
/// Unicode NFD without its combining marks (`Gómez` → `gomez`, `Núñez` →
/// `nunez`; a composed and a decomposed accent are one).
pub fn fold(text: &str) -> String {
    text.to_lowercase().nfd().filter(|c| !is_combining_mark(*c)).collect()
}

/// One filter: the record may match if its bytes hold any of the needles.
enum AnyOf {
    /// Compared as bytes.
    Exact(Vec<memmem::Finder<'static>>),
    /// Compared through [`fold`]: the needles are folded ASCII.
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

/// Whether `hay` may hold `needle` (folded ASCII, not empty) once folded,
/// where [`holds_folded`] found no match of ASCII letters alone: each
/// character that is not ASCII may stand for one letter of the needle or for
/// none. Shift-and over the needle's first 64 letters (a fold holding the
/// needle holds them), one bit per letter matched so far; only the ends of a
/// long ASCII run are read, since a match reaching into its middle would be
/// ASCII alone.
fn holds_with_wildcards(hay: &[u8], needle: &[u8]) -> bool {
    if needle.is_empty() {
        return true;
    }
    let needle = &needle[..needle.len().min(64)];
    let mut letters = [0u64; 128];
    for (at, &c) in needle.iter().enumerate() {
        letters[usize::from(c)] |= 1 << at;
        letters[usize::from(c.to_ascii_uppercase())] |= 1 << at;
    }
    let (whole, reach) = (1u64 << (needle.len() - 1), needle.len() - 1);
    let mut matched = 0u64;
    let read_ascii = |bytes: &[u8], matched: &mut u64| {
        bytes.iter().any(|&b| {
            *matched = ((*matched << 1) | 1) & letters[usize::from(b)];
            *matched & whole != 0
        })
    };
    let mut at = 0;
    while at < hay.len() {
        if hay[at].is_ascii() {
            let run = &hay[at..at + ascii_run(&hay[at..])];
            at += run.len();
            if run.len() <= 2 * reach {
                if read_ascii(run, &mut matched) {
                    return true;
                }
                continue;
            }
            // Matches begun before the run end within its first `reach`
            // bytes; those that go on past it begin within its last.
            if read_ascii(&run[..reach], &mut matched) {
                return true;
            }
            matched = 0;
            if read_ascii(&run[run.len() - reach..], &mut matched) {
                return true;
            }
        } else {
            // A character's first byte: one letter or none. Its other bytes: none.
            if hay[at] >= 0xC0 {
                matched |= (matched << 1) | 1;
                if matched & whole != 0 {
                    return true;
                }
            }
            at += 1;
        }
    }
    false
}

/// How many bytes `bytes` starts with that are ASCII, eight at a time.
fn ascii_run(bytes: &[u8]) -> usize {
    let whole_words = bytes
        .chunks_exact(8)
        .take_while(|word| u64::from_le_bytes((*word).try_into().expect("eight bytes")) & 0x8080_8080_8080_8080 == 0)
        .count();
    let words = whole_words * 8;
    words + bytes[words..].iter().take_while(|b| b.is_ascii()).count()
}

impl RawFilter {
    /// Adds a filter that holds when the value holds one of `texts`, as bytes
    /// or (`folded`) as `fold(value).contains(text)` with `text` already
    /// folded. A filter none of whose texts can be looked for in the bytes is
    /// left out: the full test decides it.
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
        // Looked at once, and only if a folded filter asks.
        let mut all_ascii = None;
        self.tests.iter().all(|test| match test {
            AnyOf::Exact(needles) => needles.iter().any(|n| n.find(raw).is_some()),
            AnyOf::Folded(needles) => {
                needles.iter().any(|n| holds_folded(raw, n))
                    || (!*all_ascii.get_or_insert_with(|| raw.is_ascii())
                        && needles.iter().any(|n| holds_with_wildcards(raw, n)))
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
    fn fold_drops_case_and_accents() {
        assert_eq!(fold("Gómez NÚÑEZ"), "gomez nunez");
        assert_eq!(fold("Go\u{301}mez"), "gomez", "a decomposed accent");
        assert_eq!(fold("PREMİUM"), "premium");
        assert_eq!(fold("straße"), "straße", "a letter of its own, not an accent");
    }

    /// What [`holds_with_wildcards`] stands on: a character that is not ASCII
    /// folds to at most one ASCII character, and an ASCII one to its lowercase.
    #[test]
    fn no_character_folds_to_more_than_one_ascii_character() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let folded = fold(c.encode_utf8(&mut [0; 4]));
            if c.is_ascii() {
                assert_eq!(folded, c.to_ascii_lowercase().to_string(), "{c:?}");
            } else {
                assert!(folded.chars().filter(char::is_ascii).count() <= 1, "{c:?} folds to {folded:?}");
            }
        }
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
    fn other_characters_stand_for_one_letter_or_none() {
        let holds = |hay: &str, needle: &str| holds_with_wildcards(hay.as_bytes(), needle.as_bytes());
        assert!(holds("Sra. GÓMEZ", "gomez"));
        assert!(holds("go\u{301}mez", "gomez"), "an accent of its own");
        assert!(holds("Núñez", "nunez"), "two in a row");
        assert!(holds("ñ", "n"));
        assert!(!holds("Gómez", "gomes"));
        assert!(holds("Gómez", "gamez"), "any letter: the full test decides");
        assert!(!holds("Gómez", "gomezz"), "cut by the end");
        assert!(!holds("G ómez", "gomez"));
        // Runs longer than twice the needle are read only at their ends.
        let long = format!("{}Bogotá{}", "x".repeat(40), "y".repeat(40));
        assert!(holds(&long, "bogota"));
        assert!(holds(&format!("{}ó{}", "o".repeat(30), "mez".repeat(10)), "oomez"));
        assert!(!holds(&format!("{}é{}", "b".repeat(30), "c".repeat(30)), "bbxxcc"), "one letter at most");
        assert!(holds(&format!("é{}", "a".repeat(200)), "eaaaa"), "a needle met at a run's start");
    }

    /// Whatever a value holds, a folded needle its fold holds is never missed.
    #[test]
    fn a_value_whose_fold_holds_the_needle_always_passes() {
        let alphabet = [
            "a", "A", "o", "O", "ó", "Ó", "o\u{301}", "n", "ñ", "Ñ", "İ", "\u{212A}", "k", "x", " ", "\"", "€", "ß",
            "😀", "\u{301}", "é", "E",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as usize
        };
        for _ in 0..20_000 {
            let value: String = (0..1 + next(40)).map(|_| alphabet[next(alphabet.len())]).collect();
            let folded = fold(&value);
            let chars: Vec<char> = folded.chars().collect();
            if chars.is_empty() {
                continue;
            }
            let from = next(chars.len());
            let needle: String = chars[from..from + 1 + next((chars.len() - from).min(8))].iter().collect();
            let mut f = RawFilter::default();
            f.any_of([needle.as_str()], true);
            assert!(f.may_match(&json(&value)), "{value:?} holds {needle:?} once folded");
        }
    }

    #[test]
    fn a_record_without_any_needle_cannot_match() {
        let f = filter(&["gold", "silver"], true);
        assert!(f.may_match(&json("Gold member")));
        assert!(f.may_match(&json("SILVER")));
        assert!(!f.may_match(&json("bronze")));
        assert!(!f.may_match(&json("bronce, año 2024")), "other characters are no needle's letters");
    }

    #[test]
    fn every_filter_must_find_a_needle() {
        let mut f = filter(&["gold"], true);
        f.any_of(["vip"], false);
        assert!(!f.may_match(&json("gold")));
        assert!(f.may_match(br#"{"plan":"gold","vip":true}"#));
    }

    #[test]
    fn exact_needles_keep_their_case_and_accents_and_may_be_any_script() {
        let f = filter(&["Medellín"], false);
        assert!(f.may_match(&json("Medellín")));
        assert!(!filter(&["medellín"], false).may_match(&json("Medellín")));
        assert!(!filter(&["Medellin"], false).may_match(&json("Medellín")));
    }

    #[test]
    fn texts_the_bytes_cannot_show_leave_the_filter_out() {
        // Escaped in JSON, or not ASCII once folded: the full test decides.
        for (text, folded) in [("a\"b", false), ("a\\b", false), ("a\nb", true), ("straße", true), ("Gold", true)] {
            assert!(filter(&["gold", text], folded).may_match(b"{}"), "{text:?}");
        }
        assert!(!filter(&["straße"], false).may_match(b"{}"));
    }

    #[test]
    fn characters_that_fold_to_ascii_pass_the_folded_test() {
        // "XİZ" folds to "xiz"; the ASCII fold of its bytes does not hold "xi".
        assert!(filter(&["xi"], true).may_match(&json("XİZ")));
        assert!(!filter(&["xi"], true).may_match(&json("XZ")));
        assert!(filter(&["k"], true).may_match(&json("\u{212A}")));
        assert!(!filter(&["k"], true).may_match(&json("x")));
    }
}
