//! The state every handler shares.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::api::ApiRoutes;
use crate::config::Config;
use crate::store::Store;
use crate::tenancy::Tenancy;

pub struct App {
    pub config: Config,
    pub store: Arc<dyn Store>,
    pub tenancy: Tenancy,
    pub api: ApiRoutes,
    /// SHA-256 of the admin token.
    pub admin_token_digest: String,
    ready: AtomicBool,
}

impl App {
    pub fn new(config: Config, store: Arc<dyn Store>, admin_token_digest: String) -> App {
        App {
            config,
            tenancy: Tenancy::new(store.clone()),
            store,
            api: crate::api::routes(),
            admin_token_digest,
            ready: AtomicBool::new(false),
        }
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }

    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::SeqCst);
    }
}
