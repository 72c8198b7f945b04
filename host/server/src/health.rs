//! Health endpoints for orchestrators, without a token.

use http::StatusCode;
use serde_json::json;

use crate::http::Response;
use crate::state::ServerState;

/// `GET /healthz`: the process answers.
pub fn healthz() -> Response {
    Response::json(StatusCode::OK, &json!({ "status": "ok" }))
}

/// `GET /readyz`: the store is open and the host takes traffic (503 while
/// starting or shutting down).
pub fn readyz(app: &ServerState) -> Response {
    if app.is_ready() {
        Response::json(StatusCode::OK, &json!({ "status": "ready" }))
    } else {
        Response::json(StatusCode::SERVICE_UNAVAILABLE, &json!({ "status": "unavailable" }))
    }
}
