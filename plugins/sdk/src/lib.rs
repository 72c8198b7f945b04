//! The guest-side SDK every CRM component shares, partners' included: what
//! any module needs, and none of this product's own business rules (those
//! its components share are in `crm-first-party`).
//!
//! - [`bindings`]: the host imports (store, events, catalog, runtime, tenant) and the
//!   shared types, generated from `wit/` once. A component generates bindings for
//!   its own world with `with:` pointing at these (see `contacts/src/lib.rs`).
//! - [`http`]: reading requests and writing responses, the spec's error envelope,
//!   JSON bodies (a byte-order mark dropped, as `crm-text-decoding` says) and
//!   list paging ([`http::Paging`]: the `crm-paging` rule, shared with the host).
//! - [`kv`]: typed JSON records on the store, counters, newest-first pages.
//! - [`router`]: a module's route table, each route declared once with its
//!   handler: `describe` and `body-limits` are read from it, and `handle`
//!   runs the route the host matched (found again by the host's own rule,
//!   `router/matching.rs`).

pub mod http;
pub mod kv;
pub mod router;

#[allow(clippy::all, missing_docs)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../../wit",
        world: "sdk",
        pub_export_macro: false,
    });
}

pub use bindings::crm::plugin::{catalog, events, runtime, store, tenant, types};

/// Stages an event for the component's next `store::commit` or `store::batch`
/// (the `events` import): it is written with that change or not at all, so
/// call it right before the commit, again on each retry of a conditional one.
/// `data` is serialised only when a subscription wants the event.
pub fn emit(event_type: &str, data: &impl serde::Serialize) -> Result<(), http::Error> {
    if !events::wanted(event_type).map_err(http::Error::internal)? {
        return Ok(());
    }
    let json = serde_json::to_string(data).map_err(http::Error::internal)?;
    events::emit(event_type, &json).map_err(http::Error::internal)
}

/// Whether `text` has the shape of a platform id (24 lowercase hex characters),
/// so a malformed id is told apart from an unknown one.
pub fn is_id(text: &str) -> bool {
    text.len() == 24 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The 12 bytes an id spells in hex (a pair that is not hex reads as 0).
pub fn id_bytes(id: &str) -> [u8; 12] {
    let mut bytes = [0u8; 12];
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte = id.get(i * 2..i * 2 + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(0);
    }
    bytes
}

/// The id 12 bytes spell: 24 lowercase hex characters.
pub fn id_text(bytes: &[u8; 12]) -> String {
    hex::encode(bytes)
}

/// Generates a component's bindings for its world, sharing the SDK's bindings
/// of the host imports and types (so `crm_sdk::http` and `crm_sdk::kv` work on
/// them). Expands to `mod bindings`, with `bindings::export!` inside.
///
/// ```ignore
/// crm_sdk::component_bindings!("module", "../../wit");
/// ```
///
/// The path is the `wit/` folder, relative to the component's `Cargo.toml`.
/// The component must depend on `wit-bindgen` and `crm-sdk`.
#[macro_export]
macro_rules! component_bindings {
    ($world:literal, $wit:literal) => {
        mod bindings {
            wit_bindgen::generate!({
                path: $wit,
                world: $world,
                with: {
                    "crm:plugin/types@1.2.0": crm_sdk::types,
                    "crm:plugin/store@1.2.0": crm_sdk::store,
                    "crm:plugin/events@1.2.0": crm_sdk::events,
                    "crm:plugin/catalog@1.2.0": crm_sdk::catalog,
                    "crm:plugin/runtime@1.2.0": crm_sdk::runtime,
                    "crm:plugin/tenant@1.2.0": crm_sdk::tenant,
                },
            });
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_and_its_bytes_spell_each_other() {
        let id = "6b052f4b0000138387408ed5";
        let bytes = id_bytes(id);
        assert_eq!(bytes[..4], [0x6b, 0x05, 0x2f, 0x4b]);
        assert_eq!(id_text(&bytes), id);
        assert_eq!(id_bytes("zz"), [0; 12], "not hex reads as 0");
    }
}
