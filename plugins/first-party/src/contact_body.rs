//! The keys of a `POST /contacts` body and the bounds on custom properties:
//! the contacts module reads bodies with them, and modules that build bodies
//! (forms, import) use them to tell a contact field from a custom property,
//! and read the names people give those fields ([`alias`]) the same way.

/// Keys the server owns: a client's value is ignored.
pub const SERVER_OWNED: &[&str] = &[
    "_id",
    "id",
    "organizationId",
    "stateCode",
    "leadScore",
    "createdAt",
    "updatedAt",
    "fullName",
    "properties",
    "attribution",
];

/// Keys read into typed fields.
pub const KNOWN: &[&str] = &[
    "email",
    "mobile",
    "whatsapp_phone",
    "phone",
    "first_name",
    "firstName",
    "last_name",
    "lastName",
    "company",
    "companyId",
    "city",
    "cityCode",
    "state",
    "country",
    "idType",
    "idNumber",
    "linkedConversationId",
    "tags",
];

/// Most custom properties one request may set.
pub const MAX_CUSTOM_KEYS: usize = 50;
/// Longest custom property name, in bytes.
pub const MAX_CUSTOM_NAME: usize = 64;
/// Longest custom property text value, in characters.
pub const MAX_CUSTOM_VALUE: usize = 2000;

/// Whether `key` names a custom property: not a contact field nor a
/// server-owned key, and made of letters, digits, `_`, `.`, `-` (at most 64).
pub fn is_custom_property(key: &str) -> bool {
    !KNOWN.contains(&key) && !SERVER_OWNED.contains(&key) && is_property_name(key)
}

/// Letters, digits, `_`, `.`, `-`; 1 to [`MAX_CUSTOM_NAME`] bytes.
pub fn is_property_name(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= MAX_CUSTOM_NAME
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
}

/// What a form field or a spreadsheet column means for a contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alias {
    /// A contact body key.
    Key(&'static str),
    /// A whole name, split by [`split_full_name`].
    FullName,
}

/// Contact body keys, by the names a form or a spreadsheet may give them
/// (the ones Colombian sites and files use, WordPress Contact Form 7's
/// `your-*` among them), as [`name_key`] writes them.
const ALIASES: &[(&str, &[&str])] = &[
    ("email", &["email", "correo", "e_mail", "mail", "correo_electronico", "email_address", "your_email"]),
    (
        "mobile",
        &[
            "mobile",
            "phone",
            "celular",
            "telefono",
            "whatsapp",
            "whatsapp_phone",
            "movil",
            "tel",
            "telefono_celular",
            "numero_celular",
            "numero_de_celular",
            "numero_de_telefono",
            "phone_number",
            "your_phone",
            "cel",
            "telefono_movil",
            "numero_de_whatsapp",
            "numero_whatsapp",
            "whatsapp_number",
            "telefono_de_contacto",
            "numero_de_contacto",
        ],
    ),
    // A landline, beside the mobile: kept as the contact's phone.
    ("phone", &["telefono_fijo", "fijo", "landline"]),
    ("firstName", &["firstname", "first_name", "nombres", "primer_nombre"]),
    ("lastName", &["lastname", "last_name", "apellidos", "apellido"]),
    (
        "company",
        &["company", "empresa", "compania", "company_name", "razon_social", "nombre_de_la_empresa", "empresa_compania"],
    ),
    ("city", &["city", "ciudad", "municipio", "ciudad_de_residencia", "ciudad_municipio"]),
    ("cityCode", &["citycode", "city_code"]),
    ("country", &["country", "pais"]),
    ("state", &["state", "departamento", "depto", "dpto", "estado", "departamento_de_residencia"]),
    (
        "idType",
        &["idtype", "id_type", "tipo_de_documento", "tipo_documento", "tipo_de_identificacion", "tipo_identificacion"],
    ),
    (
        "idNumber",
        &[
            "idnumber",
            "id_number",
            "numero_de_documento",
            "numero_documento",
            "documento",
            "documento_de_identidad",
            "numero_de_identificacion",
            "identificacion",
            "cedula",
            "nit",
        ],
    ),
];

/// Names of a whole name, as [`name_key`] writes them.
const FULL_NAMES: &[&str] = &[
    "name",
    "nombre",
    "nombre_completo",
    "full_name",
    "fullname",
    "your_name",
    "nombre_y_apellido",
    "nombres_y_apellidos",
];

/// What `name` means for a contact, compared as [`name_key`] writes it:
/// `Correo electrónico` is `email`, `celular` is `mobile`, `departamento`
/// is `state` (the spec's rule for forms), `nombre` is a whole name; `None`
/// for any other name.
pub fn alias(name: &str) -> Option<Alias> {
    let key = name_key(name);
    if FULL_NAMES.contains(&key.as_str()) {
        return Some(Alias::FullName);
    }
    ALIASES.iter().find(|(_, names)| names.contains(&key.as_str())).map(|(key, _)| Alias::Key(key))
}

/// A name as people write it, made a key: lower case, Spanish accents off
/// (`á` → `a`, `ñ` → `n`), and each run of anything but ASCII letters and
/// digits one `_`, none at the ends. `Número de celular` → `numero_de_celular`,
/// `your-email` → `your_email`, `C.C.` → `c_c`.
pub fn name_key(name: &str) -> String {
    let mut key = String::with_capacity(name.len());
    let mut gap = false;
    for c in name.chars() {
        let c = match c.to_lowercase().next().unwrap_or(c) {
            'á' | 'à' | 'ä' => 'a',
            'é' | 'è' | 'ë' => 'e',
            'í' | 'ì' | 'ï' => 'i',
            'ó' | 'ò' | 'ö' => 'o',
            'ú' | 'ù' | 'ü' => 'u',
            'ñ' => 'n',
            c => c,
        };
        if c.is_ascii_alphanumeric() {
            if gap && !key.is_empty() {
                key.push('_');
            }
            gap = false;
            key.push(c);
        } else {
            gap = true;
        }
    }
    key
}

/// A whole name split at its first space into a first name and, when
/// there is more, a last name: `Ana María Gómez` → `Ana`, `María Gómez`.
pub fn split_full_name(full: &str) -> (&str, Option<&str>) {
    let full = full.trim();
    let (first, last) = full.split_once(' ').unwrap_or((full, ""));
    (first.trim(), Some(last.trim()).filter(|l| !l.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_people_use_map_to_contact_keys() {
        assert_eq!(alias("Correo"), Some(Alias::Key("email")));
        assert_eq!(alias("TELÉFONO"), Some(Alias::Key("mobile")));
        assert_eq!(alias(" dpto "), Some(Alias::Key("state")));
        assert_eq!(alias("Nombre"), Some(Alias::FullName));
        assert_eq!(alias("mensaje"), None);
        assert_eq!(alias("Correo electrónico"), Some(Alias::Key("email")));
        assert_eq!(alias("your-email"), Some(Alias::Key("email")));
        assert_eq!(alias("Número de celular"), Some(Alias::Key("mobile")));
        assert_eq!(alias("your-name"), Some(Alias::FullName));
        // Labels as form builders send them (Elementor's webhook, Google Forms).
        assert_eq!(alias("Teléfono fijo"), Some(Alias::Key("phone")));
        assert_eq!(alias("Número de WhatsApp"), Some(Alias::Key("mobile")));
        assert_eq!(alias("Cel"), Some(Alias::Key("mobile")));
        assert_eq!(alias("Empresa / Compañía"), Some(Alias::Key("company")));
        assert_eq!(alias("Ciudad de residencia"), Some(Alias::Key("city")));
        assert_eq!(alias("Ciudad/Municipio"), Some(Alias::Key("city")));
        assert_eq!(alias("Departamento de residencia"), Some(Alias::Key("state")));
        assert_eq!(alias("Primer nombre"), Some(Alias::Key("firstName")));
        assert_eq!(alias("Tipo de documento"), Some(Alias::Key("idType")));
        assert_eq!(alias("Número de documento"), Some(Alias::Key("idNumber")));
        assert_eq!(alias("Cédula"), Some(Alias::Key("idNumber")));
        assert_eq!(alias("idType"), Some(Alias::Key("idType")));
        assert_eq!(alias("Nombre completo"), Some(Alias::FullName));
        assert_eq!(alias("Razón social"), Some(Alias::Key("company")));
        assert_eq!(alias("País"), Some(Alias::Key("country")));
    }

    #[test]
    fn name_keys_are_lower_ascii_words_joined_by_one_underscore() {
        assert_eq!(name_key("  Fecha de Nacimiento "), "fecha_de_nacimiento");
        assert_eq!(name_key("C.C."), "c_c");
        assert_eq!(name_key("AÑO--Ingreso"), "ano_ingreso");
        assert_eq!(name_key("¿Cómo nos conociste?"), "como_nos_conociste");
        assert_eq!(name_key("日本"), "");
    }

    #[test]
    fn a_whole_name_splits_at_its_first_space() {
        assert_eq!(split_full_name(" Ana María Gómez "), ("Ana", Some("María Gómez")));
        assert_eq!(split_full_name("Ana"), ("Ana", None));
    }
}

/// Property tests on hostile text ([`crm_hostile_text`]): the names a form
/// or a spreadsheet gives read into keys of one shape, without a panic.
#[cfg(test)]
mod properties {
    use super::*;
    use crm_hostile_text::{around, config, text};
    use proptest::prelude::*;
    use proptest::sample::select;

    fn names() -> impl Strategy<Value = String> {
        let known: Vec<&str> =
            ALIASES.iter().flat_map(|(_, names)| names.iter().copied()).chain(FULL_NAMES.iter().copied()).collect();
        let known = select(known).prop_map(|n| n.replace('_', " "));
        prop_oneof![2 => known.clone(), 3 => around(known), 2 => text(40)]
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn a_name_is_a_key_of_one_shape(name in names()) {
            let key = name_key(&name);
            prop_assert!(key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'), "{key:?}");
            prop_assert!(!key.starts_with('_') && !key.ends_with('_') && !key.contains("__"), "{key:?}");
            prop_assert_eq!(name_key(&key), key.clone());
            prop_assert_eq!(alias(&name), alias(&key));
        }

        #[test]
        fn a_full_name_splits_at_its_first_space(full in names()) {
            let (first, last) = split_full_name(&full);
            prop_assert!(!first.contains(' ') && first == first.trim() && full.contains(first));
            prop_assert!(last.is_none_or(|l| !l.is_empty() && l == l.trim() && full.contains(l)));
        }

        #[test]
        fn a_property_name_is_short_ascii(key in prop_oneof![text(70), "[A-Za-z0-9_.-]{0,70}".prop_map(String::from)]) {
            if is_property_name(&key) {
                prop_assert!(key.is_ascii() && (1..=MAX_CUSTOM_NAME).contains(&key.len()));
            }
        }
    }
}
