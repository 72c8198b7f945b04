//! Property tests: any bytes a CSV file or a form field brings are read as
//! text without a panic, UTF-8 as it is and anything else a character a
//! byte (Windows-1252), within the bound a caller holds memory to.

use std::borrow::Cow;

use crm_hostile_text::{config, text as hostile};
use crm_text_decoding::{BOM, delimiter, text, text_in, text_within, without_bom};
use proptest::prelude::*;

/// Bytes as they come: hostile UTF-8, any bytes, or UTF-8 cut inside a
/// character, with or without a byte-order mark.
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    let utf8 = hostile(80).prop_map(String::into_bytes);
    let cut = (hostile(40), any::<proptest::sample::Index>()).prop_map(|(t, at)| {
        let bytes = t.into_bytes();
        let end = at.index(bytes.len() + 1);
        bytes.into_iter().take(end).collect::<Vec<u8>>()
    });
    let body = prop_oneof![utf8, proptest::collection::vec(any::<u8>(), 0..300), cut];
    (any::<bool>(), body).prop_map(|(bom, body)| if bom { [BOM, &body].concat() } else { body })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_bytes_read_as_utf8_or_a_character_a_byte(bytes in bytes()) {
        let unmarked = without_bom(&bytes);
        prop_assert!(bytes.ends_with(unmarked));
        let read = text(&bytes);
        match std::str::from_utf8(unmarked) {
            Ok(utf8) => prop_assert!(matches!(&read, Cow::Borrowed(t) if *t == utf8)),
            Err(_) => prop_assert_eq!(read.chars().count(), unmarked.len()),
        }
    }

    #[test]
    fn a_text_within_a_bound_is_within_it(bytes in bytes(), most in 0..1000usize) {
        let unmarked = without_bom(&bytes);
        match (text_within(&bytes, most), std::str::from_utf8(unmarked)) {
            (Some(read), Ok(utf8)) => prop_assert_eq!(read.as_ref(), utf8),
            (Some(read), Err(_)) => prop_assert!(read.len() <= most),
            (None, Ok(_)) => prop_assert!(false, "UTF-8 is never refused for its length"),
            // Refused only when the text could pass the bound: a byte is at
            // most three of UTF-8 (`€`).
            (None, Err(_)) => prop_assert!(3 * unmarked.len() > most),
        }
        prop_assert!(text_within(&bytes, 3 * unmarked.len()).is_some());
    }

    #[test]
    fn any_charset_label_reads_without_a_panic(bytes in bytes(), label in proptest::option::of(hostile(30))) {
        let read = text_in(&bytes, label.as_deref());
        prop_assert!(label.is_some() || read == text(&bytes));
    }

    #[test]
    fn a_delimiter_is_a_comma_or_a_semicolon(csv in hostile(200)) {
        prop_assert!([b',', b';'].contains(&delimiter(&csv)));
    }
}
