//! Tenancy: who is who. Organizations, their plans and modules, users,
//! permission names and API tokens (stored as SHA-256 digests, checked in
//! constant time), kept as records in the store, and the formats every record
//! of the host shares: [`ids`], times ([`clock`]) and hashed [`secrets`].
//!
//! The [`directory`] maps the public ids of token-less doors to their
//! organization; [`webhook_secrets`] keeps each organization's signing secret.
//!
//! [`Tenancy`] is the one door to these records. They live in the store's system
//! namespace (organizations, tokens: looked up before any organization is known)
//! and in each organization's namespace (users).
//!
//! This crate depends only on the store: it knows nothing of HTTP (the server
//! turns a token into a caller and a refusal into an error body) nor of
//! WebAssembly.

pub mod clock;
pub mod directory;
pub mod ids;
pub mod orgs;
pub mod permissions;
pub mod plans;
pub mod secrets;
pub mod tokens;
pub mod users;
pub mod webhook_secrets;

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crm_store::{Namespace, Store, StoreError, StoreResult};

pub use orgs::Org;
pub use tokens::{TokenFailure, TokenRecord};
pub use users::User;

#[derive(Clone)]
pub struct Tenancy {
    store: Arc<dyn Store>,
}

impl Tenancy {
    pub fn new(store: Arc<dyn Store>) -> Tenancy {
        Tenancy { store }
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    fn read<T: DeserializeOwned>(&self, ns: &Namespace, key: &str) -> StoreResult<Option<T>> {
        self.store.get(ns, key.as_bytes())?.map(|bytes| parse(key, &bytes)).transpose()
    }

    fn write<T: Serialize>(&self, ns: &Namespace, key: &str, value: &T) -> StoreResult<()> {
        let bytes = serde_json::to_vec(value).expect("records serialise");
        self.store.put(ns, key.as_bytes(), &bytes)
    }
}

/// A record as stored, or why it cannot be read.
fn parse<T: DeserializeOwned>(key: &str, bytes: &[u8]) -> StoreResult<T> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::new(format!("corrupt record {key}: {e}")))
}
