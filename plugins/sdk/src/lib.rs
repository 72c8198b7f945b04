//! The guest-side SDK every CRM component shares.
//!
//! - [`bindings`]: the host imports (store, events, catalog, runtime, tenant) and the
//!   shared types, generated from `wit/` once. A component generates bindings for
//!   its own world with `with:` pointing at these (see `contacts/src/lib.rs`).
//! - [`http`]: reading requests and writing responses, the spec's error envelope.
//! - [`kv`]: typed JSON records on the store, counters, newest-first pages.
//! - [`contact_body`]: the keys of a contact body and the bounds on custom
//!   properties, for the contacts module and the modules that build bodies.
//! - [`pipeline`]: the default pipelines' stages and ids.

pub mod contact_body;
pub mod http;
pub mod kv;
pub mod pipeline;

#[allow(clippy::all, missing_docs)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../../wit",
        world: "sdk",
        pub_export_macro: false,
    });
}

pub use bindings::crm::plugin::{catalog, events, runtime, store, tenant, types};

/// A route with the host's defaults (deadline, body limit): `permission` the
/// token needs, `module` the organization's plan needs.
pub fn route(method: &str, path: &str, permission: Option<&str>, module: Option<&str>) -> types::Route {
    types::Route {
        method: method.into(),
        path: path.into(),
        permission: permission.map(Into::into),
        module: module.map(Into::into),
        deadline_ms: None,
        max_body_bytes: None,
    }
}

/// Stages an event for the component's next `store::commit` or `store::batch`
/// (the `events` import): it is written with that change or not at all, so
/// call it right before the commit, again on each retry of a conditional one.
pub fn emit(event_type: &str, data: &impl serde::Serialize) -> Result<(), http::Error> {
    let json = serde_json::to_string(data).map_err(http::Error::internal)?;
    events::emit(event_type, &json).map_err(http::Error::internal)
}

/// Whether `text` has the shape of a platform id (24 lowercase hex characters),
/// so a malformed id is told apart from an unknown one.
pub fn is_id(text: &str) -> bool {
    text.len() == 24 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
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
                    "crm:plugin/types@1.0.0": crm_sdk::types,
                    "crm:plugin/store@1.0.0": crm_sdk::store,
                    "crm:plugin/events@1.0.0": crm_sdk::events,
                    "crm:plugin/catalog@1.0.0": crm_sdk::catalog,
                    "crm:plugin/runtime@1.0.0": crm_sdk::runtime,
                    "crm:plugin/tenant@1.0.0": crm_sdk::tenant,
                },
            });
        }
    };
}
