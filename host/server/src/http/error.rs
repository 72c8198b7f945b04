//! Error bodies. Every refusal the host writes goes through [`ApiError`], so the
//! shape `{success: false, message, code, ...}` is written in one place.

use http::StatusCode;
use serde_json::{Map, Value, json};

use super::Response;

/// An error answer: status, `code`, `message` and any extra fields of the spec.
/// Boxed, so `Result<_, ApiError>` stays one pointer wide on the happy path.
#[derive(Debug, Clone)]
pub struct ApiError(Box<Body>);

#[derive(Debug, Clone)]
struct Body {
    status: StatusCode,
    code: String,
    message: String,
    extra: Map<String, Value>,
    headers: Vec<(http::HeaderName, String)>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> ApiError {
        ApiError(Box::new(Body {
            status,
            code: code.to_string(),
            message: message.into(),
            extra: Map::new(),
            headers: Vec::new(),
        }))
    }

    /// Adds a field to the body.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> ApiError {
        self.0.extra.insert(key.to_string(), value.into());
        self
    }

    /// Adds a header to the answer (`Retry-After`, rate-limit headers).
    pub fn with_header(mut self, name: http::HeaderName, value: impl Into<String>) -> ApiError {
        self.0.headers.push((name, value.into()));
        self
    }

    pub fn status(&self) -> StatusCode {
        self.0.status
    }

    pub fn code(&self) -> &str {
        &self.0.code
    }

    pub fn into_response(self) -> Response {
        let Body { status, code, message, extra, headers } = *self.0;
        let mut body = Map::new();
        body.insert("success".into(), Value::Bool(false));
        body.insert("message".into(), Value::String(message));
        body.insert("code".into(), Value::String(code));
        body.extend(extra);
        headers.into_iter().fold(Response::json(status, &Value::Object(body)), |response, (name, value)| {
            response.with_header(name, &value)
        })
    }

    // --- the generic rows of the spec's error table --------------------------------

    pub fn unauthorized(code: &str, message: &str) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, code, message)
    }

    pub fn insufficient_permissions(required: &str, available: &[String]) -> ApiError {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "INSUFFICIENT_API_PERMISSIONS",
            format!("This token lacks the permission {required}"),
        )
        .with("requiredPermission", required)
        .with("availablePermissions", json!(available))
    }

    pub fn plan_module_required(module: &str) -> ApiError {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "PLAN_MODULE_REQUIRED",
            format!("The organization's plan does not include the {module} module"),
        )
        .with("module", module)
    }

    pub fn organization_mismatch() -> ApiError {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "ORGANIZATION_ID_MISMATCH",
            "The organization id does not match the token's organization",
        )
    }

    pub fn validation(message: impl Into<String>, details: impl Into<Value>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message).with("details", details)
    }

    /// 405 with the `Allow` header RFC 9110 requires.
    pub fn method_not_allowed(method: &http::Method, path: &str, allowed: &[http::Method]) -> ApiError {
        // Every GET route also answers HEAD (`respond` in server.rs).
        let head = allowed.contains(&http::Method::GET).then_some("HEAD");
        let allow = allowed.iter().map(http::Method::as_str).chain(head).collect::<Vec<_>>().join(", ");
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "METHOD_NOT_ALLOWED",
            format!("{method} is not allowed on {path}"),
        )
        .with_header(http::header::ALLOW, allow)
    }

    pub fn not_found(what: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "NOT_FOUND", format!("{what} not found"))
    }

    /// 503: the store's primary cannot be reached (an edge host whose WAN
    /// link is cut, a failover in progress); a write's outcome may be
    /// unknown (one in flight at the loss), and the client may try again,
    /// with an idempotency key where the route takes one.
    pub fn store_unavailable(why: &str) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "STORE_UNAVAILABLE",
            format!("Writes cannot reach the database now ({why}); reads still work. Try again shortly"),
        )
        .with_header(http::header::RETRY_AFTER, "1")
    }

    pub fn internal() -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_SERVER_ERROR", "Internal server error")
    }
}

impl From<crm_store::StoreError> for ApiError {
    /// 503 when the store cannot be reached now (no database primary
    /// answering: a failover), 500 for any other failure.
    fn from(e: crm_store::StoreError) -> ApiError {
        if e.is_unavailable() {
            tracing::warn!(error = %e, "the store cannot be reached");
            return ApiError::store_unavailable("no database primary answers");
        }
        tracing::error!(error = %e, "store failure");
        ApiError::internal()
    }
}
