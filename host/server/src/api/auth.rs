//! Who is calling: the token, its organization, and the organization-id check.
//!
//! Failure codes (all 401 unless said):
//! - `API_TOKEN_MISSING`: neither `Authorization: Bearer` nor `X-API-Key` carries a token;
//! - `API_TOKEN_INVALID`: unknown token, or a wrong secret;
//! - `API_TOKEN_EXPIRED`: its `expiresAt` has passed;
//! - `API_TOKEN_REVOKED`: it was revoked;
//! - `ORGANIZATION_NOT_FOUND`: its organization was deleted;
//! - 403 `ORGANIZATION_ID_MISMATCH`: `X-Organization-Id` or `organizationId` names another
//!   organization (any of their values, when repeated; a header that is not ASCII text too).
//!
//! Ambiguity is refused, never resolved by picking one: two `Authorization` or
//! two `X-API-Key` headers, or a Bearer token and an `X-API-Key` that differ,
//! are 400 `VALIDATION_ERROR` before any token is looked up; a repeated
//! organization id whose values all name the caller's organization is 400 too.

use std::sync::Arc;

use crm_runtime::CallContext;
use crm_store::{Store, StoreResult};
use crm_tenancy::{Org, Tenancy, TokenFailure, TokenRecord};

use crate::http::{ApiError, ApiRequest};

/// An authenticated caller.
#[derive(Debug, Clone)]
pub struct Caller {
    pub org: Org,
    pub token: TokenRecord,
}

impl Caller {
    /// The context of a component call made for this caller, through
    /// `store` when not the host's (an edge host's read).
    pub fn call_context(&self, request_id: &str, store: Option<Arc<dyn Store>>) -> CallContext {
        CallContext {
            org: self.org.clone(),
            token_id: self.token.id.clone(),
            user_id: self.token.user_id.clone(),
            permissions: self.token.permissions.clone(),
            request_id: request_id.to_string(),
            store,
            unreachable: Default::default(),
        }
    }
}

/// The token the request presents: a Bearer token, else the `X-API-Key`
/// header; an error when the request presents more than one.
pub fn presented_token(req: &ApiRequest) -> Result<Option<&str>, ApiError> {
    let ambiguous = |field: &str, why: &str| {
        ApiError::validation(format!("Ambiguous credentials: {why}"), serde_json::json!({ "field": field }))
    };
    for name in ["authorization", "x-api-key"] {
        if req.headers.get_all(name).iter().count() > 1 {
            let field = if name == "authorization" { "Authorization" } else { "X-API-Key" };
            return Err(ambiguous(field, &format!("the {field} header is sent more than once")));
        }
    }
    let bearer = req
        .header("authorization")
        .and_then(|v| {
            let (scheme, rest) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        })
        .filter(|t| !t.is_empty());
    let api_key = req.header("x-api-key").map(str::trim).filter(|t| !t.is_empty());
    match (bearer, api_key) {
        (Some(b), Some(k)) if b != k => {
            Err(ambiguous("X-API-Key", "Authorization and X-API-Key carry different tokens"))
        }
        (Some(b), _) => Ok(Some(b)),
        (None, k) => Ok(k),
    }
}

/// Authenticates the request and checks the organization id it names, if any.
pub fn authenticate(tenancy: &Tenancy, req: &ApiRequest) -> Result<Caller, ApiError> {
    authenticate_with(req, |text| tenancy.verify_token(text))
}

/// [`authenticate`] with the token's text verified by `verify` (an edge
/// host's, which keeps what it verified a moment ago).
pub fn authenticate_with(
    req: &ApiRequest,
    verify: impl FnOnce(&str) -> StoreResult<Result<(TokenRecord, Org), TokenFailure>>,
) -> Result<Caller, ApiError> {
    let Some(text) = presented_token(req)? else {
        return Err(ApiError::unauthorized(
            "API_TOKEN_MISSING",
            "An API token is required: send Authorization: Bearer <token> or X-API-Key: <token>",
        ));
    };
    let (token, org) = match verify(text)? {
        Ok(found) => found,
        Err(failure) => return Err(failure_error(failure)),
    };
    check_named_organization(req, &org)?;
    Ok(Caller { org, token })
}

/// `X-Organization-Id` and `organizationId`, when sent, must name the token's
/// organization: every value of them, each sent at most once.
fn check_named_organization(req: &ApiRequest, org: &Org) -> Result<(), ApiError> {
    let headers: Vec<Option<&str>> = req.headers.get_all("x-organization-id").iter().map(|v| v.to_str().ok()).collect();
    let queries: Vec<&str> = req.query.iter().filter(|(k, _)| k == "organizationId").map(|(_, v)| v.as_str()).collect();
    let names_another = headers.iter().any(|v| v.is_none_or(|id| !id.trim().is_empty() && id.trim() != org.id))
        || queries.iter().any(|id| !id.trim().is_empty() && id.trim() != org.id);
    if names_another {
        return Err(ApiError::organization_mismatch());
    }
    for (count, field) in [(headers.len(), "X-Organization-Id"), (queries.len(), "organizationId")] {
        if count > 1 {
            return Err(ApiError::validation(
                format!("{field} is sent more than once"),
                serde_json::json!({ "field": field }),
            ));
        }
    }
    Ok(())
}

fn failure_error(failure: TokenFailure) -> ApiError {
    let (code, message) = match failure {
        TokenFailure::Invalid => ("API_TOKEN_INVALID", "The API token is not valid"),
        TokenFailure::Expired => ("API_TOKEN_EXPIRED", "The API token has expired"),
        TokenFailure::Revoked => ("API_TOKEN_REVOKED", "The API token has been revoked"),
        TokenFailure::OrganizationNotFound => {
            ("ORGANIZATION_NOT_FOUND", "The API token's organization no longer exists")
        }
    };
    ApiError::unauthorized(code, message)
}
