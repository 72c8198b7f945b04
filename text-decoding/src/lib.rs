//! How bytes that people's software sends are read as text: one rule for
//! the import module (a `text/csv` body), the forms module (an HTML form's
//! fields) and `crm-host import` (a file it splits into calls), which all
//! build this crate, so that text reads the same at every door. Pure: no I/O.
//!
//! A byte-order mark is dropped at every door ([`without_bom`]), JSON bodies
//! included (the host's routes and the SDK's JSON reading). Bytes in a
//! charset their sender names are read in it ([`text_in`]); otherwise UTF-8
//! is read as it is, and anything else as Windows-1252, which is what
//! Excel's plain "CSV" saves on a Spanish-language Windows and what a page
//! served as ISO-8859-1 posts (a byte sequence that is not UTF-8 is almost
//! never meant as UTF-8). A CSV's delimiter ([`delimiter`]) is `;` when the
//! header line holds more semicolons than commas (Excel in Spanish), else `,`.

use std::borrow::Cow;

/// The byte-order mark: dropped when read, and written before a file meant
/// for Excel, which then reads it as UTF-8.
pub const BOM: &[u8] = "\u{feff}".as_bytes();

/// `bytes` without a leading byte-order mark (a JSON body from PowerShell or
/// Notepad, a CSV from Excel), which no reader should take as text.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// The text of `bytes` (a file, a form's field), without its byte-order
/// mark: UTF-8 as it is, anything else as Windows-1252.
pub fn text(bytes: &[u8]) -> Cow<'_, str> {
    text_within(bytes, usize::MAX).expect("no text passes usize::MAX bytes")
}

/// The text of `bytes` in the charset `label` names (WHATWG's labels, as a
/// `charset=` parameter or a form's `_charset_` field gives them: `utf-8`,
/// `ISO-8859-1`, `windows-1252`...), or [`text`]'s when it names none.
/// Undecodable bytes become U+FFFD: a sender's wrong label loses letters,
/// never the rest.
pub fn text_in<'a>(bytes: &'a [u8], label: Option<&str>) -> Cow<'a, str> {
    match label.and_then(|l| encoding_rs::Encoding::for_label(l.as_bytes())) {
        Some(encoding) => encoding.decode_with_bom_removal(bytes).0,
        None => text(bytes),
    }
}

/// [`text`], unless it is read as Windows-1252 and could pass `most` bytes:
/// there a byte from 0x80 on is two or three bytes of UTF-8, so a file may
/// grow to three times its size. Checked before the text is made, so a
/// caller bounding its memory never holds more. UTF-8 is never longer than
/// its bytes.
pub fn text_within(bytes: &[u8], most: usize) -> Option<Cow<'_, str>> {
    let bytes = without_bom(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Some(Cow::Borrowed(text));
    }
    let widest =
        bytes.iter().map(|&b| 1 + usize::from(b >= 0x80) + usize::from((0x80..0xa0).contains(&b))).sum::<usize>();
    (widest <= most).then(|| encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes).0)
}

/// The delimiter of a CSV `text`, from its header line.
pub fn delimiter(text: &str) -> u8 {
    let header = text.lines().next().unwrap_or("");
    if header.matches(';').count() > header.matches(',').count() { b';' } else { b',' }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_read_as_it_is_without_its_byte_order_mark() {
        assert!(matches!(text("\u{feff}Año;€".as_bytes()), Cow::Borrowed("Año;€")));
    }

    #[test]
    fn anything_else_is_windows_1252() {
        // "Año;€" as Excel writes it in Spanish: ñ is 0xF1, € is 0x80.
        let bytes = b"A\xf1o;\x80";
        assert_eq!(text(bytes), "Año;€");
        // 8 bytes of text: within 8, not within 7.
        assert_eq!(text_within(bytes, 8).as_deref(), Some("Año;€"));
        assert_eq!(text_within(bytes, 7), None);
        // Whatever the bytes, a text given is within its bound, and none
        // within three times the bytes is refused.
        for b in 0..=255u8 {
            let bytes = [b'\xff', b];
            assert!(text_within(&bytes, 6).is_some(), "{b:#x}");
            for most in 0..6 {
                assert!(text_within(&bytes, most).is_none_or(|t| t.len() <= most), "{b:#x} within {most}");
            }
        }
    }

    #[test]
    fn a_named_charset_is_believed_and_an_unknown_name_is_not() {
        let latin = b"Bogot\xe1 \x80";
        assert_eq!(text_in(latin, Some("ISO-8859-1")), "Bogotá €", "WHATWG reads ISO-8859-1 as windows-1252");
        assert_eq!(text_in(latin, Some(" latin1 ")), "Bogotá €");
        assert_eq!(text_in(latin, Some("utf-8")), "Bogot\u{fffd} \u{fffd}", "a wrong label loses letters only");
        assert_eq!(text_in(latin, Some("no-such-charset")), "Bogotá €", "as if none were named");
        assert_eq!(text_in(latin, None), "Bogotá €");
        assert_eq!(text_in("Bogotá".as_bytes(), None), "Bogotá");
        assert_eq!(text_in(b"\x82\xa0", Some("shift_jis")), "\u{3042}", "any charset named");
    }

    #[test]
    fn utf8_is_never_refused_for_its_length() {
        assert_eq!(text_within("ñññ".as_bytes(), 0).as_deref(), Some("ñññ"));
    }

    #[test]
    fn the_delimiter_is_what_the_header_uses_most() {
        assert_eq!(delimiter("Nombre;Correo;Ciudad, Depto\nx"), b';');
        assert_eq!(delimiter("email,city\na;b;c;d"), b',');
        assert_eq!(delimiter(""), b',');
    }
}
