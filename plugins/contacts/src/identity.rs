//! Identity documents: the tax authority's (DIAN) document type codes, the
//! spellings people use for them, and how each number is validated.
//!
//! Only NIT (31) carries a check digit, computed with DIAN's modulo-11 weights.

use crm_first_party::contact_body::name_key;
use crm_sdk::http::Error;

/// DIAN codes, their names, and the folded spellings that mean them.
const TYPES: &[(&str, &str, &[&str])] = &[
    ("11", "Registro civil", &["rc", "registrocivil", "registrocivildenacimiento"]),
    ("12", "Tarjeta de identidad", &["ti", "tarjetadeidentidad", "tarjetaidentidad"]),
    ("13", "Cédula de ciudadanía", &["cc", "cedula", "ceduladeciudadania", "cedulaciudadania", "cedulaciudadana"]),
    ("21", "Tarjeta de extranjería", &["te", "tarjetadeextranjeria", "tarjetaextranjeria"]),
    ("22", "Cédula de extranjería", &["ce", "ceduladeextranjeria", "cedulaextranjeria"]),
    // The RUT is the tax registry a NIT is issued in: people name one for the other.
    ("31", "NIT", &["nit", "rut"]),
    ("41", "Pasaporte", &["pa", "pp", "pas", "pasaporte", "passport"]),
    (
        "42",
        "Documento de identificación extranjero",
        &["die", "documentodeidentificacionextranjero", "documentoextranjero"],
    ),
    ("47", "PEP", &["pep", "permisoespecialdepermanencia"]),
    ("48", "PPT", &["ppt", "permisoporprotecciontemporal", "permisodeprotecciontemporal"]),
    ("50", "NIT de otro país", &["nitdeotropais", "nitextranjero", "nitotropais"]),
    ("91", "NUIP", &["nuip"]),
];

/// DIAN's weights for the NIT check digit, applied from the rightmost digit.
const NIT_WEIGHTS: [u32; 15] = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71];

/// Lower case, accents and punctuation removed: `C.C.` → `cc`, `Cédula` → `cedula`.
fn squash(text: &str) -> String {
    name_key(text).replace('_', "")
}

/// A body's `idType` and `idNumber`, checked for a contact or a company:
/// the type sent is mapped to its DIAN code (422 `ID_TYPE_UNRESOLVED`),
/// and the number sent is validated against that type, else the stored one
/// (400 `INVALID_ID_NUMBER`); a number without any type is kept as sent.
/// Only what the body sends is checked.
pub fn checked(
    id_type: Option<&str>,
    id_number: Option<&str>,
    stored_type: Option<&str>,
) -> Result<(Option<String>, Option<String>), Error> {
    let id_type = id_type.map(resolve_type).transpose()?;
    let id_number = match (id_number, id_type.or(stored_type)) {
        (Some(number), Some(kind)) => Some(validate_number(kind, number)?),
        (Some(number), None) => Some(number.to_string()),
        (None, _) => None,
    };
    Ok((id_type.map(str::to_string), id_number))
}

/// The DIAN code for a document type as a person wrote it, or the 422 body.
fn resolve_type(input: &str) -> Result<&'static str, Error> {
    let key = squash(input);
    if let Some((code, _, _)) = TYPES.iter().find(|(code, _, names)| *code == key || names.contains(&key.as_str())) {
        return Ok(code);
    }
    let hints: Vec<&str> = match key.as_str() {
        k if k.contains("cedula") => vec!["13", "22"],
        k if k.contains("nit") => vec!["31", "50"],
        k if k.contains("tarjeta") => vec!["12", "21"],
        k if k.contains("permiso") => vec!["47", "48"],
        k if k.contains("pasap") || k.contains("passp") => vec!["41"],
        k if k.contains("registro") => vec!["11"],
        _ => vec![],
    };
    let mut err =
        Error::new(422, "ID_TYPE_UNRESOLVED", format!("The document type {input:?} cannot be mapped to a DIAN code"))
            .with("error", "ID_TYPE_UNRESOLVED");
    if !hints.is_empty() {
        let candidates: Vec<serde_json::Value> = hints
            .iter()
            .filter_map(|h| TYPES.iter().find(|(c, _, _)| c == h))
            .map(|(code, name, _)| serde_json::json!({ "code": code, "name": name }))
            .collect();
        err = err.with("candidates", candidates);
    }
    Err(err)
}

/// The number in its stored form, or 400 `INVALID_ID_NUMBER`.
fn validate_number(id_type: &str, number: &str) -> Result<String, Error> {
    let invalid = |why: &str| {
        Error::new(
            400,
            "INVALID_ID_NUMBER",
            format!("idNumber is not a valid number for document type {id_type}: {why}"),
        )
        .with("error", "INVALID_ID_NUMBER")
        .with("field", "idNumber")
    };
    let trimmed = number.trim();
    let digits_only = |min: usize, max: usize| {
        let d: String = trimmed.chars().filter(|c| !matches!(c, '.' | ' ')).collect();
        if d.len() < min || d.len() > max || !d.bytes().all(|b| b.is_ascii_digit()) {
            Err(invalid(&format!("{min} to {max} digits expected")))
        } else {
            Ok(d)
        }
    };
    let alphanumeric = |min: usize, max: usize| {
        let a: String = trimmed.chars().filter(|c| !matches!(c, ' ' | '-')).collect::<String>().to_uppercase();
        if a.len() < min || a.len() > max || !a.bytes().all(|b| b.is_ascii_alphanumeric()) {
            Err(invalid(&format!("{min} to {max} letters or digits expected")))
        } else {
            Ok(a)
        }
    };
    match id_type {
        "11" => digits_only(6, 11),
        "12" | "91" => digits_only(10, 11),
        "13" => digits_only(5, 10),
        "22" => digits_only(5, 12),
        "31" => nit(trimmed).ok_or_else(|| invalid("the check digit does not match")),
        "21" | "42" | "47" | "48" | "50" => alphanumeric(3, 20),
        "41" => alphanumeric(5, 20),
        _ => alphanumeric(1, 30),
    }
}

/// A NIT with its check digit, as `900123456-8`, `9001234568` or `900.123.456-8`;
/// its canonical form `900123456-8` when the check digit is right.
fn nit(text: &str) -> Option<String> {
    let cleaned: String = text.chars().filter(|c| !matches!(c, '.' | ' ' | ',')).collect();
    // Split by characters, never by bytes: the last one may be `é` or an emoji.
    let (base, dv) = match cleaned.split_once('-') {
        Some(parts) => parts,
        None => cleaned.char_indices().next_back().map(|(at, _)| cleaned.split_at(at))?,
    };
    if !(6..=15).contains(&base.len()) || !base.bytes().all(|b| b.is_ascii_digit()) || dv.len() != 1 {
        return None;
    }
    let sum: u32 = base.bytes().rev().zip(NIT_WEIGHTS).map(|(b, w)| u32::from(b - b'0') * w).sum();
    let expected = match sum % 11 {
        r @ (0 | 1) => r,
        r => 11 - r,
    };
    (dv.parse::<u32>().ok()? == expected).then(|| format!("{base}-{expected}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nit_is_read_with_or_without_its_dash() {
        for written in ["900123456-8", "9001234568", "900.123.456-8", " 900,123,456 8 "] {
            assert_eq!(nit(written).as_deref(), Some("900123456-8"), "{written:?}");
        }
        assert_eq!(nit("900123456-7"), None, "a wrong check digit");
    }

    #[test]
    fn a_nit_ending_in_a_character_of_several_bytes_is_refused_not_sliced() {
        for written in ["900123456é", "9é", "é", "900123456😀", "٩٠٠١٢٣٤٥٦٨", "900123456\u{301}", ""] {
            assert_eq!(nit(written), None, "{written:?}");
            let refused = checked(Some("NIT"), Some(written), None).unwrap_err();
            assert_eq!((refused.status, refused.body["code"].as_str()), (400, Some("INVALID_ID_NUMBER")));
            assert_eq!(refused.body["field"], "idNumber");
        }
    }
}

/// Property tests on hostile text ([`crm_hostile_text`]): every document
/// type and number a body sends is stored checked or refused with a code.
#[cfg(test)]
mod properties {
    use super::*;
    use crm_hostile_text::{around, config, text};
    use proptest::prelude::*;
    use proptest::sample::select;

    /// Every spelling of every type, and a few as people type them.
    fn spellings() -> Vec<String> {
        let known = TYPES.iter().flat_map(|(code, name, names)| {
            [code.to_string(), name.to_string()].into_iter().chain(names.iter().map(|n| n.to_string()))
        });
        known.chain(["C.C.", "Cédula", "N.I.T.", "T.I.", "Pasaporte ", "nit-co"].map(String::from)).collect()
    }

    fn id_type() -> impl Strategy<Value = Option<String>> {
        let known = select(spellings()).prop_map(String::from);
        proptest::option::of(prop_oneof![2 => known.clone(), 2 => around(known), 1 => text(30)])
    }

    /// Numbers as written: NITs with and without their dash or dots,
    /// cédulas, passports, with hostile characters anywhere.
    fn id_number() -> impl Strategy<Value = Option<String>> {
        let shapes = prop_oneof![
            "[0-9]{5,16}-?[0-9]".prop_map(String::from),
            "[0-9]{3}\\.[0-9]{3}\\.[0-9]{3}-[0-9]".prop_map(String::from),
            "[0-9. ]{3,14}".prop_map(String::from),
            "[A-Za-z0-9 -]{1,32}".prop_map(String::from),
        ];
        proptest::option::of(prop_oneof![2 => shapes.clone(), 3 => around(shapes), 1 => text(40)])
    }

    fn typed_refusal(e: &Error) -> bool {
        (400..500).contains(&e.status) && e.body.get("code").and_then(|c| c.as_str()).is_some_and(|c| !c.is_empty())
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn a_document_is_stored_checked_or_refused_with_a_code(
            id_type in id_type(),
            id_number in id_number(),
            stored in proptest::option::of(select(TYPES.iter().map(|(code, _, _)| *code).collect::<Vec<_>>())),
        ) {
            let (kind, number) = match checked(id_type.as_deref(), id_number.as_deref(), stored) {
                Err(e) => {
                    prop_assert!(typed_refusal(&e), "{e:?}");
                    return Ok(());
                }
                Ok(done) => done,
            };
            prop_assert_eq!(number.is_some(), id_number.is_some());
            prop_assert!(kind.as_ref().is_none_or(|k| TYPES.iter().any(|(code, _, _)| code == k)));
            let (Some(kind), Some(number)) = (kind.as_deref().or(stored), number) else { return Ok(()) };
            // What is stored is checked again as itself: a NIT in its canonical form.
            prop_assert_eq!(validate_number(kind, &number).ok(), Some(number.clone()));
            prop_assert!(number.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'), "{number:?}");
            let digits = |min: usize, max: usize| number.bytes().all(|b| b.is_ascii_digit()) && (min..=max).contains(&number.len());
            match kind {
                "31" => {
                    let (base, dv) = number.split_once('-').unwrap_or_default();
                    prop_assert!((6..=15).contains(&base.len()) && base.bytes().all(|b| b.is_ascii_digit()), "{number:?}");
                    prop_assert!(dv.len() == 1 && dv.bytes().all(|b| b.is_ascii_digit()), "{number:?}");
                }
                "11" => prop_assert!(digits(6, 11)),
                "12" | "91" => prop_assert!(digits(10, 11)),
                "13" => prop_assert!(digits(5, 10)),
                "22" => prop_assert!(digits(5, 12)),
                _ => prop_assert!(!number.is_empty() && number.len() <= 30),
            }
        }
    }
}
