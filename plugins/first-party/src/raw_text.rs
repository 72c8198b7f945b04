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
//! - compared through [`without_case_or_accents`], it is ASCII once folded. It is looked for in
//!   the bytes in any ASCII case; where that fails and the bytes hold other
//!   characters, each of those may stand for one letter of the needle or for
//!   none ([`holds_with_wildcards`]): `gomez` may be in `Gómez`, whose `ó`
//!   folds to `o`, and in `Go\u{301}mez`, whose accent folds to nothing. A
//!   unit test checks that no character folds to more than one ASCII one;
//! - compared through [`without_case_or_accents`] and [`joined_initialisms`], each dot of the
//!   bytes may also stand for itself or for nothing: `acme sas` may be in
//!   `Acme S.A.S.`.

use memchr::memmem;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Text as a comparison without case or accents sees it: lower case, and
/// Unicode NFD without its combining marks (`Gómez` → `gomez`, `Núñez` →
/// `nunez`; a composed and a decomposed accent are one).
pub fn without_case_or_accents(text: &str) -> String {
    text.to_lowercase().nfd().filter(|c| !is_combining_mark(*c)).collect()
}

/// `text` (folded) with the dots of its initialisms dropped, or `None` when
/// it has none: `s.a.s.` → `sas`, `e.s.p` → `esp`, `j.p. morgan` → `jp
/// morgan`, as people type what a company writes `S.A.S.`. An initialism is
/// a run of at least two single letters, each followed by a dot (the last
/// one's optional), neither inside a word nor followed by one (`acme.com.co`
/// and `a.b.com` stay as they are).
pub fn joined_initialisms(text: &str) -> Option<String> {
    if !text.contains('.') {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let in_word = |at: usize| chars.get(at).is_some_and(|c| c.is_alphanumeric());
    let (mut joined, mut changed, mut at) = (String::with_capacity(text.len()), false, 0);
    while let Some(&c) = chars.get(at) {
        let (mut end, mut letters) = (at, Vec::new());
        if at == 0 || !in_word(at - 1) {
            while let Some(&letter) = chars.get(end).filter(|c| c.is_alphabetic())
                && !in_word(end + 1)
            {
                letters.push(letter);
                end += 1;
                if chars.get(end) != Some(&'.') {
                    break;
                }
                end += 1;
            }
        }
        if letters.len() >= 2 && !in_word(end) {
            joined.extend(letters);
            changed = true;
            at = end;
        } else {
            joined.push(c);
            at += 1;
        }
    }
    changed.then_some(joined)
}

/// How a filter's texts are compared with a value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Compared {
    /// Byte for byte.
    AsIs,
    /// Through [`without_case_or_accents`]: `without_case_or_accents(value).contains(text)`, `text` folded.
    Folded,
    /// Through [`without_case_or_accents`], where the value's initialisms may also be
    /// [joined](joined_initialisms): `text` is in `without_case_or_accents(value)` or in its
    /// joined form.
    FoldedOrJoined,
}

/// One filter: the record may match if its bytes hold any of the needles.
enum AnyOf {
    /// Compared as bytes.
    Exact(Vec<memmem::Finder<'static>>),
    /// Compared through [`without_case_or_accents`] (and, if `dots_may_vanish`,
    /// [`joined_initialisms`]): the needles are folded ASCII.
    Folded { needles: Vec<Vec<u8>>, dots_may_vanish: bool },
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

/// Shift-and over a needle's first 64 letters (a text holding the needle
/// holds them): one bit per letter matched so far, any ASCII case.
struct ShiftAnd {
    letters: [u64; 128],
    whole: u64,
    matched: u64,
}

impl ShiftAnd {
    fn new(needle: &[u8]) -> ShiftAnd {
        let needle = needle.get(..64).unwrap_or(needle);
        let mut letters = [0u64; 128];
        for (at, &c) in needle.iter().enumerate() {
            // A needle is ASCII ([`RawFilter::any_of`]); a byte past it would match nothing.
            for c in [c, c.to_ascii_uppercase()] {
                if let Some(letter) = letters.get_mut(usize::from(c)) {
                    *letter |= 1 << at;
                }
            }
        }
        ShiftAnd { letters, whole: 1u64 << (needle.len().max(1) - 1), matched: 0 }
    }

    /// The needle's letters `b` is (none for a byte past ASCII).
    fn letters(&self, b: u8) -> u64 {
        self.letters.get(usize::from(b)).copied().unwrap_or(0)
    }

    /// Reads an ASCII byte; true once the needle is matched.
    fn ascii(&mut self, b: u8) -> bool {
        self.matched = ((self.matched << 1) | 1) & self.letters(b);
        self.matched & self.whole != 0
    }

    /// Reads a byte that may stand for itself (ASCII) or for nothing.
    fn itself_or_nothing(&mut self, b: u8) -> bool {
        self.matched |= ((self.matched << 1) | 1) & self.letters(b);
        self.matched & self.whole != 0
    }

    /// Reads a character that may stand for any one letter or for nothing.
    fn any_or_nothing(&mut self) -> bool {
        self.matched |= (self.matched << 1) | 1;
        self.matched & self.whole != 0
    }

    /// Reads the bytes of an ASCII run.
    fn ascii_run(&mut self, bytes: &[u8]) -> bool {
        bytes.iter().any(|&b| self.ascii(b))
    }
}

/// Whether `hay` may hold `needle` (folded ASCII, not empty) once folded,
/// where [`holds_folded`] found no match of ASCII letters alone: each
/// character that is not ASCII may stand for one letter of the needle or for
/// none. Only the ends of a long ASCII run are read, since a match reaching
/// into its middle would be ASCII alone.
fn holds_with_wildcards(hay: &[u8], needle: &[u8]) -> bool {
    if needle.is_empty() {
        return true;
    }
    let mut shift_and = ShiftAnd::new(needle);
    let reach = needle.len().min(64) - 1;
    let mut rest = hay;
    while let Some((&first, after)) = rest.split_first() {
        if first.is_ascii() {
            let (run, after) = rest.split_at_checked(ascii_run(rest)).unwrap_or((rest, &[]));
            rest = after;
            if run.len() <= 2 * reach {
                if shift_and.ascii_run(run) {
                    return true;
                }
                continue;
            }
            // Matches begun before the run end within its first `reach`
            // bytes; those that go on past it begin within its last.
            if run.get(..reach).is_some_and(|head| shift_and.ascii_run(head)) {
                return true;
            }
            shift_and.matched = 0;
            if run.get(run.len() - reach..).is_some_and(|tail| shift_and.ascii_run(tail)) {
                return true;
            }
        } else {
            // A character's first byte: one letter or none. Its other bytes: none.
            if first >= 0xC0 && shift_and.any_or_nothing() {
                return true;
            }
            rest = after;
        }
    }
    false
}

/// [`holds_with_wildcards`] where each dot may also stand for itself or for
/// nothing (the dots [`joined_initialisms`] drops). Reads every byte.
fn holds_with_dots_dropped(hay: &[u8], needle: &[u8]) -> bool {
    if needle.is_empty() {
        return true;
    }
    let mut shift_and = ShiftAnd::new(needle);
    hay.iter().any(|&b| match b {
        b'.' => shift_and.itself_or_nothing(b),
        b if b.is_ascii() => shift_and.ascii(b),
        b if b >= 0xC0 => shift_and.any_or_nothing(),
        _ => false,
    })
}

/// Whether some text of `hay` may have [`joined_initialisms`]: a dot comes
/// right after a letter or a character that is not ASCII (which may be a
/// letter, or an accent after one). Most records have no such dot (a
/// timestamp's follows a digit), and skip [`holds_with_dots_dropped`].
fn may_hold_initialisms(hay: &[u8]) -> bool {
    memchr::memchr_iter(b'.', hay).any(|at| {
        at.checked_sub(1).and_then(|before| hay.get(before)).is_some_and(|b| b.is_ascii_alphabetic() || !b.is_ascii())
    })
}

/// How many bytes `bytes` starts with that are ASCII, eight at a time.
fn ascii_run(bytes: &[u8]) -> usize {
    let (words, _) = bytes.as_chunks::<8>();
    let whole_words = words.iter().take_while(|word| u64::from_le_bytes(**word) & 0x8080_8080_8080_8080 == 0).count();
    let words = whole_words * 8;
    words + bytes.iter().skip(words).take_while(|b| b.is_ascii()).count()
}

impl RawFilter {
    /// Adds a filter that holds when the value holds one of `texts`, compared
    /// as `compared` says (folded texts already folded). A filter none of
    /// whose texts can be looked for in the bytes is left out: the full test
    /// decides it.
    pub fn any_of<'a>(&mut self, texts: impl IntoIterator<Item = &'a str>, compared: Compared) {
        let texts: Vec<&str> = texts.into_iter().collect();
        let folded = compared != Compared::AsIs;
        let usable =
            |t: &&str| written_as_is(t) && (!folded || (t.is_ascii() && !t.bytes().any(|b| b.is_ascii_uppercase())));
        if texts.is_empty() || !texts.iter().all(usable) {
            return;
        }
        self.tests.push(match compared {
            Compared::AsIs => {
                AnyOf::Exact(texts.iter().map(|t| memmem::Finder::new(t.as_bytes()).into_owned()).collect())
            }
            Compared::Folded | Compared::FoldedOrJoined => AnyOf::Folded {
                needles: texts.iter().map(|t| t.as_bytes().to_vec()).collect(),
                dots_may_vanish: compared == Compared::FoldedOrJoined,
            },
        });
    }

    /// False only when a record with these stored bytes cannot match.
    pub fn may_match(&self, raw: &[u8]) -> bool {
        // Looked at once, and only if a folded filter asks.
        let mut all_ascii = None;
        self.tests.iter().all(|test| match test {
            AnyOf::Exact(needles) => needles.iter().any(|n| n.find(raw).is_some()),
            AnyOf::Folded { needles, dots_may_vanish: false } => {
                needles.iter().any(|n| holds_folded(raw, n))
                    || (!*all_ascii.get_or_insert_with(|| raw.is_ascii())
                        && needles.iter().any(|n| holds_with_wildcards(raw, n)))
            }
            AnyOf::Folded { needles, dots_may_vanish: true } => {
                needles.iter().any(|n| holds_folded(raw, n))
                    || match may_hold_initialisms(raw) {
                        true => needles.iter().any(|n| holds_with_dots_dropped(raw, n)),
                        false => {
                            !*all_ascii.get_or_insert_with(|| raw.is_ascii())
                                && needles.iter().any(|n| holds_with_wildcards(raw, n))
                        }
                    }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(texts: &[&str], compared: Compared) -> RawFilter {
        let mut f = RawFilter::default();
        f.any_of(texts.iter().copied(), compared);
        f
    }

    /// A seeded xorshift: numbers below the bound each call is given.
    fn random_below(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |bound| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as usize
        }
    }

    fn json(value: &str) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({ "plan": value })).unwrap()
    }

    #[test]
    fn fold_drops_case_and_accents() {
        assert_eq!(without_case_or_accents("Gómez NÚÑEZ"), "gomez nunez");
        assert_eq!(without_case_or_accents("Go\u{301}mez"), "gomez", "a decomposed accent");
        assert_eq!(without_case_or_accents("PREMİUM"), "premium");
        assert_eq!(without_case_or_accents("straße"), "straße", "a letter of its own, not an accent");
    }

    /// What [`holds_with_wildcards`] stands on: a character that is not ASCII
    /// folds to at most one ASCII character, and an ASCII one to its lowercase.
    #[test]
    fn no_character_folds_to_more_than_one_ascii_character() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let folded = without_case_or_accents(c.encode_utf8(&mut [0; 4]));
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

    #[test]
    fn initialisms_lose_their_dots() {
        let joined = |text: &str| joined_initialisms(text);
        assert_eq!(joined("acme s.a.s.").as_deref(), Some("acme sas"));
        assert_eq!(joined("acme s.a.s").as_deref(), Some("acme sas"), "the last dot is optional");
        assert_eq!(joined("s.a. y e.s.p.").as_deref(), Some("sa y esp"));
        assert_eq!(joined("j.p. morgan").as_deref(), Some("jp morgan"));
        assert_eq!(joined("(s.a.s.)").as_deref(), Some("(sas)"));
        assert_eq!(joined("ñ.a.").as_deref(), Some("ña"), "letters beyond ASCII");
        for unchanged in ["acme sas", "ltda.", "a. b.", "www.acme.com.co", "a.b.com", "3.1.4", "sr. a.", "s.a.sas"] {
            assert_eq!(joined(unchanged), None, "{unchanged:?}");
        }
    }

    #[test]
    fn dots_may_vanish_where_initialisms_may_be_joined() {
        let f = filter(&["acme sas"], Compared::FoldedOrJoined);
        assert!(f.may_match(&json("Distribuciones ACME S.A.S.")));
        assert!(f.may_match(&json("Acme SAS")));
        assert!(f.may_match(&json("Acmé S.A.S")), "with an accent too");
        assert!(!f.may_match(&json("Acme S.A.")));
        assert!(!f.may_match(&json("Acme S-A-S")), "only dots vanish");
        assert!(!filter(&["acme sas"], Compared::Folded).may_match(&json("Acme S.A.S.")));
    }

    /// Whatever a value holds, a needle its fold, or that fold's initialisms
    /// joined, holds is never missed.
    #[test]
    fn a_value_whose_joined_fold_holds_the_needle_always_passes() {
        let alphabet = ["a", "S", "s", ".", ".", " ", "ó", "É", "x", "o\u{301}", "1", "ß", "-"];
        let mut next = random_below(0x9e37_79b9_7f4a_7c15_u64);
        let mut joined_seen = 0;
        for _ in 0..20_000 {
            let value: String = (0..1 + next(24)).map(|_| alphabet[next(alphabet.len())]).collect();
            let Some(joined) = joined_initialisms(&without_case_or_accents(&value)) else { continue };
            joined_seen += 1;
            let chars: Vec<char> = joined.chars().collect();
            let from = next(chars.len());
            let needle: String = chars[from..from + 1 + next((chars.len() - from).min(8))].iter().collect();
            let f = filter(&[needle.as_str()], Compared::FoldedOrJoined);
            assert!(f.tests.is_empty() || f.may_match(&json(&value)), "{value:?} holds {needle:?} once joined");
        }
        assert!(joined_seen > 1_000, "the alphabet makes initialisms ({joined_seen})");
    }

    /// Whatever a value holds, a folded needle its fold holds is never missed.
    #[test]
    fn a_value_whose_fold_holds_the_needle_always_passes() {
        let alphabet = [
            "a", "A", "o", "O", "ó", "Ó", "o\u{301}", "n", "ñ", "Ñ", "İ", "\u{212A}", "k", "x", " ", "\"", "€", "ß",
            "😀", "\u{301}", "é", "E",
        ];
        let mut next = random_below(0x2545_f491_4f6c_dd1d_u64);
        for _ in 0..20_000 {
            let value: String = (0..1 + next(40)).map(|_| alphabet[next(alphabet.len())]).collect();
            let folded = without_case_or_accents(&value);
            let chars: Vec<char> = folded.chars().collect();
            if chars.is_empty() {
                continue;
            }
            let from = next(chars.len());
            let needle: String = chars[from..from + 1 + next((chars.len() - from).min(8))].iter().collect();
            let mut f = RawFilter::default();
            f.any_of([needle.as_str()], Compared::Folded);
            assert!(f.may_match(&json(&value)), "{value:?} holds {needle:?} once folded");
        }
    }

    #[test]
    fn a_record_without_any_needle_cannot_match() {
        let f = filter(&["gold", "silver"], Compared::Folded);
        assert!(f.may_match(&json("Gold member")));
        assert!(f.may_match(&json("SILVER")));
        assert!(!f.may_match(&json("bronze")));
        assert!(!f.may_match(&json("bronce, año 2024")), "other characters are no needle's letters");
    }

    #[test]
    fn every_filter_must_find_a_needle() {
        let mut f = filter(&["gold"], Compared::Folded);
        f.any_of(["vip"], Compared::AsIs);
        assert!(!f.may_match(&json("gold")));
        assert!(f.may_match(br#"{"plan":"gold","vip":true}"#));
    }

    #[test]
    fn exact_needles_keep_their_case_and_accents_and_may_be_any_script() {
        let f = filter(&["Medellín"], Compared::AsIs);
        assert!(f.may_match(&json("Medellín")));
        assert!(!filter(&["medellín"], Compared::AsIs).may_match(&json("Medellín")));
        assert!(!filter(&["Medellin"], Compared::AsIs).may_match(&json("Medellín")));
    }

    #[test]
    fn texts_the_bytes_cannot_show_leave_the_filter_out() {
        // Escaped in JSON, or not ASCII once folded: the full test decides.
        for (text, compared) in [
            ("a\"b", Compared::AsIs),
            ("a\\b", Compared::AsIs),
            ("a\nb", Compared::Folded),
            ("straße", Compared::FoldedOrJoined),
            ("Gold", Compared::Folded),
        ] {
            assert!(filter(&["gold", text], compared).may_match(b"{}"), "{text:?}");
        }
        assert!(!filter(&["straße"], Compared::AsIs).may_match(b"{}"));
    }

    #[test]
    fn characters_that_fold_to_ascii_pass_the_folded_test() {
        // "XİZ" folds to "xiz"; the ASCII fold of its bytes does not hold "xi".
        assert!(filter(&["xi"], Compared::Folded).may_match(&json("XİZ")));
        assert!(!filter(&["xi"], Compared::Folded).may_match(&json("XZ")));
        assert!(filter(&["k"], Compared::Folded).may_match(&json("\u{212A}")));
        assert!(!filter(&["k"], Compared::Folded).may_match(&json("x")));
    }
}

/// Property tests on hostile text ([`crm_hostile_text`]): the byte test
/// never rules out a record the full test would match, and reads any bytes
/// without a panic.
#[cfg(test)]
mod properties {
    use super::*;
    use crm_hostile_text::{config, text};
    use proptest::prelude::*;
    use proptest::sample::Index;

    fn json(value: &str) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({ "plan": value })).unwrap_or_default()
    }

    /// Up to `len` characters of `text` from the `from`th.
    fn piece(text: &str, from: Index, len: usize) -> String {
        let chars: Vec<char> = text.chars().collect();
        if chars.is_empty() {
            return String::new();
        }
        chars.iter().skip(from.index(chars.len())).take(len).collect()
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn a_value_whose_fold_holds_a_needle_is_never_ruled_out(
            value in text(80),
            from in any::<Index>(),
            len in 1..12usize,
            joined in any::<bool>(),
        ) {
            let folded = without_case_or_accents(&value);
            let (source, compared) = match joined {
                true => (joined_initialisms(&folded).unwrap_or(folded), Compared::FoldedOrJoined),
                false => (folded, Compared::Folded),
            };
            let needle = piece(&source, from, len);
            let mut f = RawFilter::default();
            f.any_of([needle.as_str()], compared);
            prop_assert!(needle.is_empty() || f.may_match(&json(&value)), "{value:?} holds {needle:?}");
        }

        #[test]
        fn a_value_holding_a_needle_as_is_is_never_ruled_out(value in text(80), from in any::<Index>(), len in 1..12usize) {
            let needle = piece(&value, from, len);
            let mut f = RawFilter::default();
            f.any_of([needle.as_str()], Compared::AsIs);
            prop_assert!(needle.is_empty() || f.may_match(&json(&value)), "{value:?} holds {needle:?}");
        }

        #[test]
        fn any_bytes_are_read_without_a_panic(
            hay in proptest::collection::vec(any::<u8>(), 0..300),
            needles in proptest::collection::vec(text(70), 1..4),
        ) {
            for compared in [Compared::AsIs, Compared::Folded, Compared::FoldedOrJoined] {
                let mut f = RawFilter::default();
                let folded: Vec<String> = needles.iter().map(|n| without_case_or_accents(n)).collect();
                f.any_of(folded.iter().map(String::as_str), compared);
                let _ = f.may_match(&hay);
            }
        }
    }
}
