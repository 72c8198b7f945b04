//! Tokens an edge host has just verified against its replica, kept for
//! [`KEPT`], so that a request whose token was seen a moment ago costs no
//! replica query for its token and organization (two of a page's few); and
//! tokens the primary itself did not know, kept for [`REFUSED_FOR`], so
//! that a client sending made-up tokens costs no WAN round trip each.
//!
//! A verified token is kept with its organization (and it expires on
//! time, as its `expiresAt` is checked on every use); any other failure is
//! looked up again every time. A token the replica does not know may be
//! one made a moment ago: it is asked of the primary
//! (`api::authenticated_on_edge`), and only when the primary does not know
//! it either is that refusal kept. A revocation or an organization's
//! deletion therefore reaches this host's answers at most [`KEPT`] after
//! its replica holds it: the bound the README states ("Hosts near your
//! customers", "A staleness bound"). Both maps are bounded ([`MOST`]) with
//! O(1) upkeep, keyed by the SHA-256 of the token's text: no token is kept
//! in the clear.

use std::time::{Duration, Instant};

use crm_store::StoreResult;
use crm_tenancy::{Org, Tenancy, TokenFailure, TokenRecord, clock};
use quick_cache::sync::Cache;
use sha2::{Digest, Sha256};

/// How long a verified token is answered without asking the replica.
pub const KEPT: Duration = Duration::from_millis(500);

/// How long a token unknown to the primary is refused without asking it
/// again: a token's text is made by the host that issues it, so one the
/// primary does not know will not become valid (a new token is new text).
pub const REFUSED_FOR: Duration = Duration::from_secs(60);

/// Tokens kept at most in each map; past it the least recently used go first.
const MOST: usize = 10_000;

/// A token and its organization, as the replica answered them.
type Verified = (TokenRecord, Org);

pub struct Credentials {
    kept_for: Duration,
    verified: Cache<[u8; 32], (Instant, Verified)>,
    refused: Cache<[u8; 32], Instant>,
}

impl Default for Credentials {
    fn default() -> Credentials {
        Credentials::keeping_for(KEPT)
    }
}

fn digest(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

impl Credentials {
    /// Verified tokens kept for `kept_for` (tests keep them longer).
    pub fn keeping_for(kept_for: Duration) -> Credentials {
        Credentials { kept_for, verified: Cache::new(MOST), refused: Cache::new(MOST) }
    }

    /// [`Tenancy::verify_token`], answered from what was kept when the
    /// token verified less than [`KEPT`] ago.
    pub fn verify(&self, tenancy: &Tenancy, text: &str) -> StoreResult<Result<Verified, TokenFailure>> {
        let key = digest(text);
        if let Some((at, verified)) = self.verified.get(&key)
            && at.elapsed() < self.kept_for
            && verified.0.expires_at.as_deref().and_then(clock::parse).is_none_or(|t| t > clock::now())
        {
            return Ok(Ok(verified));
        }
        let found = tenancy.verify_token(text)?;
        if let Ok(verified) = &found {
            self.verified.insert(key, (Instant::now(), verified.clone()));
        }
        Ok(found)
    }

    /// Whether the primary said, less than [`REFUSED_FOR`] ago, that it does
    /// not know this token.
    pub fn refused_by_primary(&self, text: &str) -> bool {
        self.refused.get(&digest(text)).is_some_and(|at| at.elapsed() < REFUSED_FOR)
    }

    /// Keeps the primary's word that it does not know this token.
    pub fn remember_refusal(&self, text: &str) {
        self.refused.insert(digest(text), Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crm_store::FjallStore;
    use crm_store::combine::CommitWindow;

    use super::*;

    #[test]
    fn a_token_the_primary_did_not_know_is_refused_without_asking_again() {
        let credentials = Credentials::default();
        assert!(!credentials.refused_by_primary("crm_made_up"));
        credentials.remember_refusal("crm_made_up");
        assert!(credentials.refused_by_primary("crm_made_up"));
        assert!(!credentials.refused_by_primary("crm_another"));
        for i in 0..3 * MOST {
            credentials.remember_refusal(&format!("crm_flood_{i}"));
        }
        assert!(credentials.refused.len() <= MOST, "bounded: {}", credentials.refused.len());
    }

    #[test]
    fn a_verified_token_is_kept_for_its_while_and_a_refused_one_never() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(FjallStore::open_with(dir.path(), 8 << 20, CommitWindow::default()).unwrap());
        let tenancy = Tenancy::new(store);
        let org = tenancy.create_org("Acme".into(), "pro".into(), Default::default(), Default::default()).unwrap();
        let (record, text) = tenancy.issue_token(&org.id, "t".into(), vec!["*".into()], None, None).unwrap();
        let credentials = Credentials::keeping_for(Duration::from_secs(60));
        assert!(credentials.verify(&tenancy, &text).unwrap().is_ok());

        tenancy.revoke_token(record).unwrap();
        assert!(credentials.verify(&tenancy, &text).unwrap().is_ok(), "kept: the store is not asked again");
        let brief = Credentials::keeping_for(Duration::from_millis(50));
        let (other, other_text) = tenancy.issue_token(&org.id, "o".into(), vec!["*".into()], None, None).unwrap();
        assert!(brief.verify(&tenancy, &other_text).unwrap().is_ok());
        tenancy.revoke_token(other).unwrap();
        std::thread::sleep(Duration::from_millis(60));
        let refused = brief.verify(&tenancy, &other_text).unwrap();
        assert!(matches!(refused, Err(TokenFailure::Revoked)), "asked again once kept for its while");
        let again = brief.verify(&tenancy, &other_text).unwrap();
        assert!(matches!(again, Err(TokenFailure::Revoked)), "a refusal is not kept");

        let soon = clock::from_millis(clock::now().timestamp_millis() + 1000);
        let (_, expiring) = tenancy.issue_token(&org.id, "e".into(), vec!["*".into()], soon, None).unwrap();
        assert!(credentials.verify(&tenancy, &expiring).unwrap().is_ok());
        std::thread::sleep(Duration::from_millis(1100));
        let expired = credentials.verify(&tenancy, &expiring).unwrap();
        assert!(matches!(expired, Err(TokenFailure::Expired)), "kept, yet it expires on time");
    }
}
