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
/// starting or shutting down). An edge host says too which sides of its
/// store answer, and how far behind its replica is.
pub fn readyz(app: &ServerState) -> Response {
    if app.is_ready() {
        let Some(edge) = &app.edge else { return Response::json(StatusCode::OK, &json!({ "status": "ready" })) };
        let (store, serves) = edge.state();
        let status = if serves { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
        Response::json(status, &json!({ "status": "ready", "store": store }))
    } else {
        Response::json(StatusCode::SERVICE_UNAVAILABLE, &json!({ "status": "unavailable" }))
    }
}
