//! The search index after an upgrade: at start, every organization's
//! contacts module is asked to reindex (its `contacts-upkeep` export), one
//! organization after another, in the background and on the host's own
//! behalf. A module whose index is current answers at once; one whose index
//! an earlier version wrote (before search ignored accents, say) rewrites it
//! a page at a time, and search scans until it is done. So an operator's
//! upgrade needs no manual step; `crm-host admin contacts reindex ORG` runs
//! the same pages by hand through the admin API. Off with
//! `CRM_REINDEX_AT_START=false`.

use std::sync::Arc;

use crm_runtime::upkeep::Reindexed;
use crm_tenancy::Org;

use crate::state::ServerState;

/// Starts the pass on the current tokio runtime; it ends with the last
/// organization.
pub fn start(app: Arc<ServerState>) {
    tokio::spawn(async move {
        let tenancy = app.tenancy.clone();
        let orgs = match tokio::task::spawn_blocking(move || tenancy.list_orgs()).await {
            Ok(Ok(orgs)) => orgs,
            Ok(Err(e)) => return tracing::error!(error = %e, "reindex at start: the organizations could not be listed"),
            Err(e) => return tracing::error!(error = %e, "reindex at start stopped"),
        };
        for org in orgs {
            reindex(&app, org).await;
        }
    });
}

/// Reindexes one organization from cursor to cursor; logs what it wrote.
async fn reindex(app: &ServerState, org: Org) {
    let (mut after, mut indexed) = (None::<String>, 0u64);
    loop {
        match app.runtime.reindex_contacts(org.clone(), after).await {
            Ok(Some(Reindexed { indexed: page, next })) => {
                indexed += u64::from(page);
                after = next;
            }
            Ok(None) => return tracing::debug!(org = org.id, "reindex at start: no contacts module"),
            // Search scans meanwhile; the next start, or the CLI, tries again.
            Err(failed) => {
                return tracing::warn!(org = org.id, error = failed.message, indexed, "reindex at start failed");
            }
        }
        if after.is_none() {
            break;
        }
    }
    if indexed > 0 {
        tracing::info!(org = org.id, indexed, "reindex at start: the search index was rewritten");
    }
}
