//! The app's view of an organization's webhook endpoints: which are failing
//! or disabled (`GET /admin/orgs/{org}/webhook-endpoints`), and enabling a
//! disabled one again, its held deliveries sent (`POST .../enable` `{url}`).
//! The rules are `crm_events::endpoints`'.

use std::sync::Arc;

use crm_events::endpoints;
use crm_store::Namespace;
use http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::orgs::existing;
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;

/// 200 `{data: [{url, status: failing|disabled, failingSince, lastError,
/// disabledAt}]}`: a healthy endpoint is not listed.
pub fn list(app: &ServerState, org_id: &str) -> Result<Response, ApiError> {
    let org = existing(app, org_id)?;
    let listed: Vec<Value> = endpoints::list(app.store.as_ref(), &org.id)?.iter().map(|e| e.view()).collect();
    Ok(Response::json(StatusCode::OK, &json!({ "data": listed })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Enable {
    url: String,
}

/// 200 `{url, status: "healthy"}`: its failures forgotten, its held
/// deliveries due now.
pub fn enable(app: &Arc<ServerState>, org_id: &str, req: &ApiRequest) -> Result<Response, ApiError> {
    let org = existing(app, org_id)?;
    let Enable { url } = req.json()?;
    if url.is_empty() || url.len() > 2000 {
        return Err(ApiError::validation("url must be a URL of at most 2000 bytes", json!({ "field": "url" })));
    }
    app.store.batch(&Namespace::org(&org.id), endpoints::enabling(&url))?;
    app.outbox.wake(&org.id);
    Ok(Response::json(StatusCode::OK, &json!({ "url": url, "status": "healthy" })))
}
