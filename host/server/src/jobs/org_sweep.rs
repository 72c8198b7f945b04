//! The deleted organizations' sweep: at start and then every [`EVERY`], the
//! namespaces of organizations deleted in the last day are dropped again
//! (`Tenancy::sweep_deleted`), so a write that raced a delete does not keep
//! its space for good. It runs on tokio's blocking pool, off the threads
//! that serve requests. Every host sharing a store runs it: a drop is
//! idempotent.

use std::time::Duration;

use crm_tenancy::{Tenancy, clock};

/// Time between sweeps.
pub const EVERY: Duration = Duration::from_secs(600);

/// Starts the sweep on the current tokio runtime, for the life of the process.
pub fn start(tenancy: Tenancy) {
    tokio::spawn(async move {
        loop {
            let sweeping = tenancy.clone();
            match tokio::task::spawn_blocking(move || sweeping.sweep_deleted(clock::now())).await {
                Ok(Ok(swept)) => tracing::debug!(swept, "deleted organizations' namespaces dropped again"),
                Ok(Err(e)) => tracing::error!(error = %e, "the deleted organizations' sweep failed"),
                Err(e) => tracing::error!(error = %e, "the deleted organizations' sweep stopped"),
            }
            tokio::time::sleep(EVERY).await;
        }
    });
}
