//! API tokens.
//!
//! A token's text is `crm_<id>_<secret>`: the id finds the record, the secret is
//! checked against the stored SHA-256 in constant time (see [`crate::secrets`]).
//! The text is shown once, at creation; it cannot be recovered afterwards.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Org, Tenancy};
use crate::{clock, ids, secrets};
use crm_store::{Namespace, StoreResult};

const PREFIX: &str = "crm_";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenRecord {
    pub id: String,
    pub org_id: String,
    pub name: String,
    pub permissions: Vec<String>,
    pub user_id: Option<String>,
    pub secret_digest: String,
    pub expires_at: Option<String>,
    pub created_at: String,
    pub revoked_at: Option<String>,
}

/// Why a presented token is refused. Each has its own 401 code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenFailure {
    Invalid,
    Expired,
    Revoked,
    OrganizationNotFound,
}

fn token_key(id: &str) -> String {
    format!("tokens/{id}")
}

impl Tenancy {
    /// Issues a token; returns the record and the token text (shown once).
    pub fn issue_token(
        &self,
        org_id: &str,
        name: String,
        permissions: Vec<String>,
        expires_at: Option<DateTime<Utc>>,
        user_id: Option<String>,
    ) -> StoreResult<(TokenRecord, String)> {
        let id = ids::new_id();
        let secret = secrets::random_secret();
        let record = TokenRecord {
            id: id.clone(),
            org_id: org_id.to_string(),
            name,
            permissions,
            user_id,
            secret_digest: secrets::digest(&secret),
            expires_at: expires_at.map(clock::format),
            created_at: clock::now_text(),
            revoked_at: None,
        };
        self.write(&Namespace::system(), &token_key(&id), &record)?;
        Ok((record, format!("{PREFIX}{id}_{secret}")))
    }

    pub fn token(&self, id: &str) -> StoreResult<Option<TokenRecord>> {
        if !ids::is_id(id) {
            return Ok(None);
        }
        self.read(&Namespace::system(), &token_key(id))
    }

    /// Marks a token revoked; it is kept so a later use answers `API_TOKEN_REVOKED`.
    pub fn revoke_token(&self, mut record: TokenRecord) -> StoreResult<()> {
        if record.revoked_at.is_none() {
            record.revoked_at = Some(clock::now_text());
            self.write(&Namespace::system(), &token_key(&record.id), &record)?;
        }
        Ok(())
    }

    /// Checks a presented token text; on success, its record and organization.
    pub fn verify_token(&self, text: &str) -> StoreResult<Result<(TokenRecord, Org), TokenFailure>> {
        let Some((id, secret)) = text.strip_prefix(PREFIX).and_then(|rest| rest.split_once('_')) else {
            return Ok(Err(TokenFailure::Invalid));
        };
        let Some(record) = self.token(id)? else {
            return Ok(Err(TokenFailure::Invalid));
        };
        if !secrets::matches(secret, &record.secret_digest) {
            return Ok(Err(TokenFailure::Invalid));
        }
        if record.revoked_at.is_some() {
            return Ok(Err(TokenFailure::Revoked));
        }
        let expired = record.expires_at.as_deref().and_then(clock::parse).is_some_and(|t| t <= clock::now());
        if expired {
            return Ok(Err(TokenFailure::Expired));
        }
        match self.org(&record.org_id)? {
            Some(org) => Ok(Ok((record, org))),
            None => Ok(Err(TokenFailure::OrganizationNotFound)),
        }
    }
}
