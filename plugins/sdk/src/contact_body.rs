//! The keys of a `POST /contacts` body and the bounds on custom properties:
//! the contacts module reads bodies with them, and modules that build bodies
//! (forms, import) use them to tell a contact field from a custom property.

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
