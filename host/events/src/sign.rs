//! Standard Webhooks signatures (<https://www.standardwebhooks.com/>):
//! `webhook-signature: v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`,
//! the key being the base64 after `whsec_` of the organization's secret.
//! While a rotated-out secret still signs, the header carries both
//! signatures, separated by a space; a receiver accepts either.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use crm_tenancy::clock;
use crm_tenancy::webhook_secrets::WebhookSecret;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// One `v1,<base64>` signature of the message with `secret` (`whsec_...`).
pub fn signature(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Option<String> {
    let key = STANDARD.decode(secret.strip_prefix("whsec_")?).ok()?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).ok()?;
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    Some(format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes())))
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

    #[test]
    fn both_secrets_sign_during_a_rotation() {
        let h = header(&["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_AAAA"], "id", 1, b"{}");
        assert_eq!(h.split(' ').count(), 2);
        assert!(h.split(' ').all(|s| s.starts_with("v1,")));
    }
}
