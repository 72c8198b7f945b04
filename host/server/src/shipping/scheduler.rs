//! The periodic tracking refresh: every `CRM_TRACKING_REFRESH_MS`, each
//! organization with the shipping module and a configured provider gets its
//! shipments that are not yet final refreshed, at most
//! `CRM_TRACKING_REFRESH_BATCH` per round (the shipments module picks them in
//! turn), one organization after another: a bounded rate on the providers.
//!
//! Of the hosts sharing a store, the one holding the `tracking-refresh`
//! lease runs the rounds; it renews the lease every round, and another host
//! takes over when it stops for two periods.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crm_runtime::CallContext;
use crm_store::lease::Lease;

use crate::state::ServerState;

pub fn start(app: Arc<ServerState>, mut stop: watch::Receiver<bool>, host: &str) {
    let every = Duration::from_millis(app.config.jobs.tracking_refresh_ms);
    if every.is_zero() {
        return;
    }
    let lease = Lease::new(app.store.clone(), "tracking-refresh", host, every * 2);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks.tick().await;
        loop {
            tokio::select! {
                _ = ticks.tick() => {
                    if holds(&lease) {
                        round(&app).await;
                    }
                }
                _ = stop.changed() => return,
            }
        }
    });
}

/// Whether this host runs this round (taking or renewing the lease).
fn holds(lease: &Lease) -> bool {
    let now = crm_tenancy::clock::now().timestamp_millis().max(0) as u64;
    lease.hold(now).unwrap_or_else(|e| {
        tracing::error!(error = %e, "tracking refresh: cannot read its lease");
        false
    })
}

async fn round(app: &Arc<ServerState>) {
    let orgs = match app.tenancy.list_orgs() {
        Ok(orgs) => orgs,
        Err(e) => return tracing::error!(error = %e, "tracking refresh: cannot list organizations"),
    };
    for org in orgs {
        if !org.module_enabled("shipping") || app.runtime.configured_providers(&org).is_empty() {
            continue;
        }
        let org_id = org.id.clone();
        let ctx = CallContext::admin(org, "scheduler");
        match app.runtime.refresh_tracking(ctx, app.config.jobs.tracking_refresh_batch).await {
            Ok((asked, wrote)) => {
                if wrote && let Err(e) = app.store.durable().await {
                    tracing::error!(error = %e, "tracking refresh: flush failed");
                }
                if asked > 0 {
                    tracing::debug!(org = org_id, asked, "tracking refreshed");
                }
            }
            Err(e) => tracing::error!(org = org_id, error = %format!("{e:#}"), "tracking refresh failed"),
        }
    }
}
