//! Tokens an edge host has just verified against its replica, kept for
//! [`KEPT`], so that a request whose token was seen a moment ago costs no
//! replica query for its token and organization (two of a page's few).
//!
//! Only a token that verified is kept, with its organization (and it expires
//! on time, as its `expiresAt` is checked on every use); a failure is
//! looked up again every time (a token made a moment ago is then asked of
//! the primary, `api::authenticated_on_edge`). A revocation or an
//! organization's deletion therefore reaches this host's answers at most
//! [`KEPT`] after its replica holds it: the bound the README states
//! ("Hosts near your customers", "A staleness bound").

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crm_store::StoreResult;
use crm_tenancy::{Org, Tenancy, TokenFailure, TokenRecord, clock};
use sha2::{Digest, Sha256};

/// How long a verified token is answered without asking the replica.
pub const KEPT: Duration = Duration::from_millis(500);

/// Tokens kept at most; past it the stale ones go, and all of them if none is.
const MOST: usize = 10_000;

/// A token and its organization, as the replica answered them.
type Verified = (TokenRecord, Org);

/// Keyed by the SHA-256 of the token's text: no token is kept in the clear.
#[derive(Default)]
pub struct Credentials(Mutex<HashMap<[u8; 32], (Instant, Verified)>>);

impl Credentials {
    /// [`Tenancy::verify_token`], answered from what was kept when the
    /// token verified less than [`KEPT`] ago.
    pub fn verify(&self, tenancy: &Tenancy, text: &str) -> StoreResult<Result<Verified, TokenFailure>> {
        let key: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        if let Some((at, verified)) = self.0.lock().expect("the credentials").get(&key)
            && at.elapsed() < KEPT
            && verified.0.expires_at.as_deref().and_then(clock::parse).is_none_or(|t| t > clock::now())
        {
            return Ok(Ok(verified.clone()));
        }
        let found = tenancy.verify_token(text)?;
        if let Ok(verified) = &found {
            let mut kept = self.0.lock().expect("the credentials");
            if kept.len() >= MOST {
                kept.retain(|_, (at, _)| at.elapsed() < KEPT);
                if kept.len() >= MOST {
                    kept.clear();
                }
            }
            kept.insert(key, (Instant::now(), verified.clone()));
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crm_store::FjallStore;
    use crm_store::combine::CommitWindow;

    use super::*;

    /// Each claim about [`KEPT`] is tried with a new token until one try
    /// ran within it: a try that a loaded machine stretched past it proves
    /// nothing either way, and is not counted.
    #[test]
    fn a_verified_token_is_kept_for_half_a_second_and_a_refused_one_never() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(FjallStore::open_with(dir.path(), 8 << 20, CommitWindow::default()).unwrap());
        let tenancy = Tenancy::new(store);
        let org = tenancy.create_org("Acme".into(), "pro".into(), Default::default(), Default::default()).unwrap();
        let credentials = Credentials::default();

        let kept = (0..10).any(|_| {
            let (record, text) = tenancy.issue_token(&org.id, "t".into(), vec!["*".into()], None, None).unwrap();
            let verified = Instant::now();
            assert!(credentials.verify(&tenancy, &text).unwrap().is_ok());
            tenancy.revoke_token(record).unwrap();
            let again = credentials.verify(&tenancy, &text).unwrap();
            if verified.elapsed() >= KEPT {
                return false;
            }
            assert!(again.is_ok(), "kept: the store is not asked again");
            std::thread::sleep(KEPT);
            let refused = credentials.verify(&tenancy, &text).unwrap();
            assert!(matches!(refused, Err(TokenFailure::Revoked)), "asked again once kept for {KEPT:?}");
            let again = credentials.verify(&tenancy, &text).unwrap();
            assert!(matches!(again, Err(TokenFailure::Revoked)), "a refusal is not kept");
            true
        });
        assert!(kept, "no try verified a token twice within {KEPT:?}");

        let expired_while_kept = (0..10).any(|_| {
            let soon = clock::now().timestamp_millis() + 200;
            let (_, expiring) =
                tenancy.issue_token(&org.id, "e".into(), vec!["*".into()], clock::from_millis(soon), None).unwrap();
            let verified = Instant::now();
            let first = credentials.verify(&tenancy, &expiring).unwrap();
            if clock::now().timestamp_millis() >= soon {
                return false; // verified past its expiry
            }
            assert!(first.is_ok());
            std::thread::sleep(Duration::from_millis(250));
            let expired = credentials.verify(&tenancy, &expiring).unwrap();
            assert!(matches!(expired, Err(TokenFailure::Expired)), "kept, yet it expires on time");
            verified.elapsed() < KEPT
        });
        assert!(expired_while_kept, "no try asked for an expired token within {KEPT:?} of verifying it");
    }
}
