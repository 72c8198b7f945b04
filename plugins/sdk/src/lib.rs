//! The guest-side SDK every CRM component shares.
//!
//! - [`bindings`]: the host imports (store, catalog, runtime, tenant) and the
//!   shared types, generated from `wit/` once. A component generates bindings for
//!   its own world with `with:` pointing at these (see `contacts/src/lib.rs`).
//! - [`http`]: reading requests and writing responses, the spec's error envelope.
//! - [`kv`]: typed JSON records on the store.

pub mod http;
pub mod kv;

#[allow(clippy::all, missing_docs)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../../wit",
        world: "sdk",
        pub_export_macro: false,
    });
}

pub use bindings::crm::plugin::{catalog, runtime, store, tenant, types};
