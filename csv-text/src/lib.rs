//! How a CSV file's bytes are read as text: one rule for the import module
//! (a `text/csv` body) and for `crm-host import` (a file it splits into
//! calls), so that a file reads the same either way.
//!
//! A byte-order mark is dropped. UTF-8 is read as it is; anything else as
//! Windows-1252, which is what Excel's plain "CSV" saves on a
//! Spanish-language Windows (a byte sequence that is not UTF-8 is almost
//! never meant as UTF-8). The delimiter is `;` when the header line holds
//! more semicolons than commas (Excel in Spanish), else `,`.

use std::borrow::Cow;

/// The byte-order mark: dropped when read, and written before a file meant
/// for Excel, which then reads it as UTF-8.
pub const BOM: &[u8] = "\u{feff}".as_bytes();

/// The file's text, without its byte-order mark.
pub fn text(bytes: &[u8]) -> Cow<'_, str> {
    text_within(bytes, usize::MAX).expect("no text passes usize::MAX bytes")
}

/// [`text`], unless it is read as Windows-1252 and could pass `most` bytes:
/// there a byte from 0x80 on is two or three bytes of UTF-8, so a file may
/// grow to three times its size. Checked before the text is made, so a
/// caller bounding its memory never holds more. UTF-8 is never longer than
/// its bytes.
pub fn text_within(bytes: &[u8], most: usize) -> Option<Cow<'_, str>> {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
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
