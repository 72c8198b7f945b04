//! Secrets the host hands out (API tokens, the admin token, later form keys).
//!
//! A secret is 192 random bits, hex-encoded. Only its SHA-256 is kept; checking a
//! presented secret compares digests in constant time, so timing tells nothing.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// 24 random bytes (192 bits) as 48 hex characters.
pub fn random_secret() -> String {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    hex::encode(bytes)
}

/// The stored form of a secret.
pub fn digest(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Whether `secret` hashes to `stored_digest`, compared in constant time.
pub fn matches(secret: &str, stored_digest: &str) -> bool {
    digest(secret).as_bytes().ct_eq(stored_digest.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_matches_only_its_digest() {
        let s = random_secret();
        assert_eq!(s.len(), 48);
        let d = digest(&s);
        assert!(matches(&s, &d));
        assert!(!matches(&random_secret(), &d));
        assert_ne!(s, d, "the secret itself is never stored");
    }
}
