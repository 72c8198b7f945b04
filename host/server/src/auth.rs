//! Who is calling: the token, its organization, and the organization-id check.
//!
//! Failure codes (all 401 unless said):
//! - `API_TOKEN_MISSING`: neither `Authorization: Bearer` nor `X-API-Key` carries a token;
//! - `API_TOKEN_INVALID`: unknown token, or a wrong secret;
//! - `API_TOKEN_EXPIRED`: its `expiresAt` has passed;
//! - `API_TOKEN_REVOKED`: it was revoked;
//! - `ORGANIZATION_NOT_FOUND`: its organization was deleted;
//! - 403 `ORGANIZATION_ID_MISMATCH`: `X-Organization-Id` or `organizationId` names another organization.

use crm_runtime::CallContext;
use crm_tenancy::{Org, Tenancy, TokenFailure, TokenRecord};

use crate::http::{ApiError, ApiRequest};

/// An authenticated caller.
#[derive(Debug, Clone)]
pub struct Caller {
    pub org: Org,
    pub token: TokenRecord,
}

impl Caller {
    /// The context of a component call made for this caller.
    pub fn call_context(&self, request_id: &str) -> CallContext {
        CallContext {
            org: self.org.clone(),
            token_id: self.token.id.clone(),
            user_id: self.token.user_id.clone(),
            permissions: self.token.permissions.clone(),
            request_id: request_id.to_string(),
        }
    }
}

/// The token the request presents: a Bearer token, else the `X-API-Key` header.
fn presented_token(req: &ApiRequest) -> Option<&str> {
    let bearer = req.header("authorization").and_then(|v| {
        let (scheme, rest) = v.trim().split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
    });
    bearer.filter(|t| !t.is_empty()).or_else(|| req.header("x-api-key").map(str::trim).filter(|t| !t.is_empty()))
}

/// Authenticates the request and checks the organization id it names, if any.
pub fn authenticate(tenancy: &Tenancy, req: &ApiRequest) -> Result<Caller, ApiError> {
    let Some(text) = presented_token(req) else {
        return Err(ApiError::unauthorized(
            "API_TOKEN_MISSING",
            "An API token is required: send Authorization: Bearer <token> or X-API-Key: <token>",
        ));
    };
    let (token, org) = match tenancy.verify_token(text)? {
        Ok(found) => found,
        Err(failure) => return Err(failure_error(failure)),
    };
    let named = [req.header("x-organization-id"), req.query_first("organizationId")];
    if named.into_iter().flatten().map(str::trim).any(|id| !id.is_empty() && id != org.id) {
        return Err(ApiError::organization_mismatch());
    }
    Ok(Caller { org, token })
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
