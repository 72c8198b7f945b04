//! The search index after an upgrade: at start, every organization's
//! contacts module is asked to reindex, one organization after another, in
//! the background and on the host's own behalf. A module whose index is
//! current answers at once; one whose index an earlier version wrote (before
//! search ignored accents, say) rewrites it a page at a time, and search
//! scans until it is done. So an operator's upgrade needs no manual step;
//! `crm-host admin contacts reindex ORG` still runs the same calls by hand.
//! Off with `CRM_REINDEX_AT_START=false`.

use std::sync::Arc;

use bytes::Bytes;
use http::header::CONTENT_TYPE;
use http::{HeaderMap, HeaderValue, Method, StatusCode};
use serde_json::{Value, json};

use crate::admin::Admin;
use crate::http::ApiRequest;
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

/// Reindexes one organization from cursor to cursor; logs what it wrote.
async fn reindex(app: &Arc<ServerState>, admin: &Admin, org_id: &str) {
    let (mut after, mut indexed) = (Value::Null, 0u64);
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    loop {
        let req = ApiRequest {
            method: Method::POST,
            path: format!("/admin/orgs/{org_id}/contacts/reindex"),
            query: Vec::new(),
            headers: headers.clone(),
            body: Bytes::from(json!({ "after": after }).to_string()),
            peer: None,
            request_id: crm_tenancy::ids::new_id(),
        };
        let status = match admin.call_module(app, &req).await {
            Ok(r) if r.status == StatusCode::OK => Ok(serde_json::from_slice::<Value>(&r.body).unwrap_or_default()),
            Ok(r) => Err(r.status),
            Err(e) => Err(e.status()),
        };
        let answer = match status {
            Ok(answer) => answer,
            // A deleted organization, or a contacts module without the route.
            Err(StatusCode::NOT_FOUND) => return tracing::debug!(org = org_id, "reindex at start: nothing to call"),
            // Search scans meanwhile; the next start, or the CLI, tries again.
            Err(status) => {
                return tracing::warn!(org = org_id, status = status.as_u16(), indexed, "reindex at start failed");
            }
        };
        indexed += answer["indexed"].as_u64().unwrap_or(0);
        after = answer["next"].clone();
        if !after.is_string() {
            break;
        }
    }
    if indexed > 0 {
        tracing::info!(org = org_id, indexed, "reindex at start: the search index was rewritten");
    }
}
