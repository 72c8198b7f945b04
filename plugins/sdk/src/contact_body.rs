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

/// Contact body keys, by the lower-case names a form or a spreadsheet may
/// give them (the ones Colombian sites and files use).
const ALIASES: &[(&str, &[&str])] = &[
    ("email", &["email", "correo"]),
    ("mobile", &["mobile", "phone", "celular", "telefono", "teléfono", "whatsapp", "whatsapp_phone"]),
    ("firstName", &["firstname", "first_name", "nombres"]),
    ("lastName", &["lastname", "last_name", "apellidos"]),
    ("company", &["company", "empresa"]),
    ("city", &["city", "ciudad", "municipio"]),
    ("cityCode", &["citycode"]),
    ("country", &["country", "pais", "país"]),
    ("state", &["state", "departamento", "depto", "dpto", "estado"]),
];

/// What `name` (compared without case) means for a contact: `correo` is
/// `email`, `celular` is `mobile`, `departamento` is `state` (the spec's
/// rule for forms), `nombre` is a whole name; `None` for any other name.
pub fn alias(name: &str) -> Option<Alias> {
    let lower = name.trim().to_lowercase();
    if lower == "name" || lower == "nombre" {
        return Some(Alias::FullName);
    }
    ALIASES.iter().find(|(_, names)| names.contains(&lower.as_str())).map(|(key, _)| Alias::Key(key))
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
    }

    #[test]
    fn a_whole_name_splits_at_its_first_space() {
        assert_eq!(split_full_name(" Ana María Gómez "), ("Ana", Some("María Gómez")));
        assert_eq!(split_full_name("Ana"), ("Ana", None));
    }
}
