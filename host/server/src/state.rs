//! The state every handler shares. It knows no route: the route tables live
//! with the listeners that serve them (`api::Api`, `admin::Admin`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crm_events::Outbox;
use crm_runtime::Runtime;
use crm_store::Store;
use crm_tenancy::Tenancy;

use crate::config::Config;
use crate::edge::Edge;

pub struct ServerState {
    pub config: Config,
    pub store: Arc<dyn Store>,
    /// Set on an edge host: its replica and the write host.
    pub edge: Option<Arc<Edge>>,
    pub tenancy: Tenancy,
    pub runtime: Arc<Runtime>,
    /// Outbound events: the deliveries the API lists and retries.
    pub outbox: Arc<Outbox>,
    /// Sends a test event (the delivery worker has its own).
    pub webhook_sender: crm_events::sender::Sender,
    /// SHA-256 of the admin token.
    pub admin_token_digest: String,
    /// Renders `GET /metrics`.
    pub metrics: metrics_exporter_prometheus::PrometheusHandle,
    ready: AtomicBool,
}

impl ServerState {
    pub fn new(
        config: Config,
        (store, edge): (Arc<dyn Store>, Option<Arc<Edge>>),
        runtime: Arc<Runtime>,
        outbox: Arc<Outbox>,
        admin_token_digest: String,
        metrics: metrics_exporter_prometheus::PrometheusHandle,
    ) -> ServerState {
        ServerState {
            config,
            tenancy: Tenancy::new(store.clone()),
            store,
            edge,
            runtime,
            webhook_sender: crm_events::sender::Sender::new(outbox.policy()),
            outbox,
            admin_token_digest,
            metrics,
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
