//! Standard Webhooks signatures (<https://www.standardwebhooks.com/>) of
//! `"<id>.<timestamp>.<body>"`, in the scheme of the organization's key:
//! - `v1,<base64 of HMAC-SHA256>`, keyed with the base64 after `whsec_`;
//! - `v1a,<base64 of the ed25519 signature>`, made with the seed after
//!   `whsk_`; receivers verify with the public key, `whpk_` and its base64.
//!
//! While a rotated-out key still signs, the header carries both signatures,
//! separated by a space; a receiver accepts either.

use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use crm_tenancy::clock;
use crm_tenancy::webhook_secrets::{Scheme, WebhookSecret};
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::Sha256;

/// One `v1,<base64>` or `v1a,<base64>` signature of the message with `key`
/// (`whsec_...` or `whsk_...`).
pub fn signature(key: &str, id: &str, timestamp: i64, body: &[u8]) -> Option<String> {
    let signed = [format!("{id}.{timestamp}.").as_bytes(), body].concat();
    let signature = match Scheme::of(key)? {
        (Scheme::V1, key) => {
            let mut mac = Hmac::<Sha256>::new_from_slice(&key).ok()?;
            mac.update(&signed);
            format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
        }
        (Scheme::V1a, seed) => {
            let pair = Ed25519KeyPair::from_seed_unchecked(&seed).ok()?;
            format!("v1a,{}", STANDARD.encode(pair.sign(&signed)))
        }
    };
    Some(signature)
}

/// The public key (`whpk_…`) of a `whsk_…` key; `None` for an HMAC secret.
pub fn public_key(key: &str) -> Option<String> {
    let (Scheme::V1a, seed) = Scheme::of(key)? else { return None };
    let pair = Ed25519KeyPair::from_seed_unchecked(&seed).ok()?;
    Some(format!("whpk_{}", STANDARD.encode(pair.public_key())))
}

/// What the app shows of an organization's keys: what its receivers verify
/// with (an HMAC secret, or a public key and never its private half).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shown {
    pub scheme: Scheme,
    /// The `whsec_…` secret (scheme `v1`).
    pub secret: Option<String>,
    /// The `whpk_…` public key (scheme `v1a`).
    pub public_key: Option<String>,
    /// The previous key's secret or public key, while it still signs.
    pub previous: Option<String>,
    pub previous_public_key: Option<String>,
    pub previous_expires_at: Option<String>,
    pub created_at: String,
}

impl Shown {
    pub fn of(keys: &WebhookSecret) -> Shown {
        let secret = |key: &str| key.starts_with(Scheme::V1.prefix()).then(|| key.to_string());
        let previous = keys.previous.as_deref();
        Shown {
            scheme: Scheme::of(&keys.secret).map_or(Scheme::V1, |(scheme, _)| scheme),
            secret: secret(&keys.secret),
            public_key: public_key(&keys.secret),
            previous: previous.and_then(secret),
            previous_public_key: previous.and_then(public_key),
            previous_expires_at: keys.previous_expires_at.clone(),
            created_at: keys.created_at.clone(),
        }
    }
}

/// The `webhook-signature` header: a signature with each secret that signs.
pub fn header(secrets: &[&str], id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets.iter().filter_map(|s| signature(s, id, timestamp, body)).collect::<Vec<_>>().join(" ")
}

/// The `webhook-signature` header an organization's secret gives: its
/// current secret's signature, and the one before while it still signs.
pub fn header_for(secret: &WebhookSecret, id: &str, timestamp: i64, body: &[u8]) -> String {
    let mut secrets = vec![secret.secret.as_str()];
    let previous_valid = secret.previous_expires_at.as_deref().and_then(clock::parse).is_some_and(|t| t > clock::now());
    if let (Some(previous), true) = (secret.previous.as_deref(), previous_valid) {
        secrets.push(previous);
    }
    header(&secrets, id, timestamp, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks specification's reference libraries.
    #[test]
    fn matches_the_reference_signature() {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body).unwrap(),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    /// RFC 8032's first ed25519 test vector (an empty message) checks the
    /// key and signature encoding; a receiver signs nothing else.
    #[test]
    fn an_ed25519_key_signs_as_rfc_8032_says() {
        let seed = hex_bytes("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
        let public = hex_bytes("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
        let key = format!("whsk_{}", STANDARD.encode(&seed));
        assert_eq!(public_key(&key).unwrap(), format!("whpk_{}", STANDARD.encode(&public)));
        let pair = Ed25519KeyPair::from_seed_unchecked(&seed).unwrap();
        let expected = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";
        assert_eq!(pair.sign(b"").as_ref(), hex_bytes(expected).as_slice());
        let v1a = signature(&key, "msg", 1, b"{}").unwrap();
        assert!(v1a.strip_prefix("v1a,").is_some_and(|s| STANDARD.decode(s).unwrap().len() == 64), "{v1a}");
        assert_eq!(public_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), None);
    }

    fn hex_bytes(text: &str) -> Vec<u8> {
        hex::decode(text).unwrap()
    }

    #[test]
    fn both_secrets_sign_during_a_rotation() {
        let h = header(&["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_AAAA"], "id", 1, b"{}");
        assert_eq!(h.split(' ').count(), 2);
        assert!(h.split(' ').all(|s| s.starts_with("v1,")));
    }
}
