//! The search index after an upgrade: at start, every organization's
//! contacts module is asked to reindex, one organization after another, in
//! the background and on the host's own behalf. A module whose index is
//! current answers at once; one whose index an earlier version wrote (before
//! search ignored accents, say) rewrites it a page at a time, and search
//! scans until it is done. So an operator's upgrade needs no manual step;
//! `crm-host admin contacts reindex ORG` still runs the same calls by hand.
//! Off with `CRM_REINDEX_AT_START=false`.

use std::sync::Arc;

use http::{Method, StatusCode};
use serde::Deserialize;
use serde_json::json;

use crate::admin::Admin;
use crate::state::ServerState;

/// Starts the pass on the current tokio runtime; it ends with the last
/// organization.
pub fn start(app: Arc<ServerState>, admin: Arc<Admin>) {
    tokio::spawn(async move {
        let tenancy = app.tenancy.clone();
        let orgs = match tokio::task::spawn_blocking(move || tenancy.list_orgs()).await {
            Ok(Ok(orgs)) => orgs,
            Ok(Err(e)) => return tracing::error!(error = %e, "reindex at start: the organizations could not be listed"),
            Err(e) => return tracing::error!(error = %e, "reindex at start stopped"),
        };
        for org in orgs {
            reindex(&app, &admin, &org.id).await;
        }
    });
}

/// One page of the contacts module's answer to a reindex call.
#[derive(Deserialize)]
struct Reindexed {
    indexed: u64,
    /// Where the next page starts; `None` after the last.
    next: Option<String>,
}

/// Reindexes one organization from cursor to cursor; logs what it wrote.
async fn reindex(app: &Arc<ServerState>, admin: &Admin, org_id: &str) {
    let (mut after, mut indexed) = (None::<String>, 0u64);
    loop {
        let call = (org_id, Method::POST, "/contacts/reindex");
        let status = match admin.call_module(app, call, &json!({ "after": after })).await {
            Ok(r) if r.status == StatusCode::OK => {
                serde_json::from_slice::<Reindexed>(&r.body).map_err(|_| StatusCode::BAD_GATEWAY)
            }
            Ok(r) => Err(r.status),
            Err(e) => Err(e.status()),
        };
        let page = match status {
            Ok(page) => page,
            // A deleted organization, or a contacts module without the route.
            Err(StatusCode::NOT_FOUND) => return tracing::debug!(org = org_id, "reindex at start: nothing to call"),
            // Search scans meanwhile; the next start, or the CLI, tries again
            // (an answer it cannot read too, as 502).
            Err(status) => {
                return tracing::warn!(org = org_id, status = status.as_u16(), indexed, "reindex at start failed");
            }
        };
        indexed += page.indexed;
        after = page.next;
        if after.is_none() {
            break;
        }
    }
    if indexed > 0 {
        tracing::info!(org = org_id, indexed, "reindex at start: the search index was rewritten");
    }
}
