//! TLS to the database, read from the URL as libpq reads it, so that the
//! URL a managed database hands out works as given
//! (`postgres://u:p@db.example:26257/crm?sslmode=verify-full&sslrootcert=/etc/crm/ca.pem`):
//!
//! - `sslmode=disable`: plain;
//! - `prefer` (the default) and `require`: encrypted (`prefer` only when the
//!   server offers it) without checking the server's certificate, as libpq
//!   does; `require` with `sslrootcert` is `verify-ca`, as in libpq;
//! - `verify-ca`: the certificate must come from an authority of `sslrootcert`;
//! - `verify-full`: and it must name the host connected to.
//!
//! `sslrootcert` is a PEM file of the authorities to trust, or `system` for
//! the machine's own. tokio-postgres reads only the first three modes and
//! no `sslrootcert`, so [`from_url`] takes both out of the URL it passes on.

use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, aws_lc_rs};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

/// How the host's connections use TLS.
#[derive(Clone)]
pub enum Tls {
    /// `sslmode=disable`.
    Off,
    /// Any other mode: the connector, with the checks its mode asks for.
    On(MakeRustlsConnect),
}

/// The URL for tokio-postgres (`verify-*` read as `require`, `sslrootcert`
/// taken out) and the TLS its `sslmode` and `sslrootcert` ask for.
pub fn from_url(url: &str) -> Result<(String, Tls), String> {
    // libpq's other form (`host=db sslmode=verify-full`) would reach the
    // driver with its TLS words unread: refused rather than half-applied.
    // The text is not echoed: it may hold a password.
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err("the store URL must be a URL: postgres://user:password@host:port/db?sslmode=...".into());
    }
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let (mut mode, mut root) = (None, None);
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let decoded = percent_decoded(value)?;
        match key {
            "sslmode" => mode = Some(decoded),
            "sslrootcert" => root = Some(decoded),
            _ => kept.push(pair),
        }
    }
    let mode = mode.unwrap_or_else(|| "prefer".to_string());
    let (driver_mode, check) = match mode.as_str() {
        "disable" => ("disable", None),
        "prefer" => ("prefer", Some(Check::Nothing)),
        "require" if root.is_some() => ("require", Some(Check::Authority)),
        "require" => ("require", Some(Check::Nothing)),
        "verify-ca" => ("require", Some(Check::Authority)),
        "verify-full" => ("require", Some(Check::AuthorityAndName)),
        other => {
            return Err(format!("sslmode={other} is not one of disable, prefer, require, verify-ca, verify-full"));
        }
    };
    let driver_mode = format!("sslmode={driver_mode}");
    kept.push(&driver_mode);
    let passed_on = format!("{base}?{}", kept.join("&"));
    let tls = match check {
        None => Tls::Off,
        Some(check) => Tls::On(MakeRustlsConnect::new(client_config(check, root.as_deref())?)),
    };
    Ok((passed_on, tls))
}

/// What is checked of the server's certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Nothing,
    Authority,
    AuthorityAndName,
}

fn client_config(check: Check, root: Option<&str>) -> Result<ClientConfig, String> {
    let provider = Arc::new(aws_lc_rs::default_provider());
    let authorities = match (check, root) {
        (Check::Nothing, _) => None,
        (_, Some(root)) => Some(
            WebPkiServerVerifier::builder_with_provider(Arc::new(authorities(root)?), provider.clone())
                .build()
                .map_err(|e| format!("sslrootcert={root}: {e}"))?,
        ),
        (_, None) => {
            return Err(
                "sslmode=verify-ca and verify-full need sslrootcert: a PEM file of the authorities to trust, or `system`"
                    .into(),
            );
        }
    };
    let verifier = Verifier { check, authorities, provider: provider.clone() };
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth())
}

/// The authorities of `sslrootcert`: a PEM file, or the machine's (`system`).
fn authorities(root: &str) -> Result<RootCertStore, String> {
    let certificates: Vec<CertificateDer<'static>> = if root == "system" {
        rustls_native_certs::load_native_certs().certs
    } else {
        let pem = std::fs::read(root).map_err(|e| format!("cannot read sslrootcert {root}: {e}"))?;
        CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<_, _>>()
            .map_err(|e| format!("sslrootcert {root} is not PEM: {e}"))?
    };
    let mut store = RootCertStore::empty();
    let (added, _) = store.add_parsable_certificates(certificates);
    match added {
        0 => Err(format!("sslrootcert {root} holds no certificate authority")),
        _ => Ok(store),
    }
}

fn percent_decoded(value: &str) -> Result<String, String> {
    percent_encoding::percent_decode_str(value)
        .decode_utf8()
        .map(|v| v.into_owned())
        .map_err(|_| format!("a store URL parameter is not UTF-8: {value}"))
}

/// The server's certificate, checked as far as the mode asks: not at all
/// (`prefer`, `require`: libpq's meaning), its authority (`verify-ca`), or
/// also its name (`verify-full`). The handshake's signatures are always
/// checked.
#[derive(Debug)]
struct Verifier {
    check: Check,
    /// Set unless `check` is [`Check::Nothing`].
    authorities: Option<Arc<WebPkiServerVerifier>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(authorities) = &self.authorities else { return Ok(ServerCertVerified::assertion()) };
        match authorities.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            // The chain was good (it is checked first); only the name was not.
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if self.check == Check::Authority => Ok(ServerCertVerified::assertion()),
            checked => checked,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passed_on(url: &str) -> Result<String, String> {
        from_url(url).map(|(url, _)| url)
    }

    #[test]
    fn the_url_keeps_what_the_driver_reads_and_loses_what_it_does_not() {
        let base = "postgres://crm:s%40cret@db.example:5432/crm";
        assert_eq!(passed_on(base).unwrap(), format!("{base}?sslmode=prefer"));
        assert_eq!(
            passed_on(&format!("{base}?application_name=x&sslmode=require")).unwrap(),
            format!("{base}?application_name=x&sslmode=require")
        );
        assert_eq!(passed_on(&format!("{base}?sslmode=disable")).unwrap(), format!("{base}?sslmode=disable"));
        assert!(matches!(from_url(&format!("{base}?sslmode=disable")).unwrap().1, Tls::Off));
        assert!(matches!(from_url(base).unwrap().1, Tls::On(_)));
        let e = passed_on(&format!("{base}?sslmode=allow")).unwrap_err();
        assert!(e.contains("sslmode=allow"), "{e}");
        assert_eq!(passed_on("postgresql://db.example/crm").unwrap(), "postgresql://db.example/crm?sslmode=prefer");
    }

    #[test]
    fn the_key_value_form_is_refused_without_echoing_it() {
        let e = passed_on("host=db.example password=s3cret sslmode=verify-full").unwrap_err();
        assert!(e.contains("must be a URL: postgres://"), "{e}");
        assert!(!e.contains("s3cret"), "{e}");
    }

    #[test]
    fn verifying_modes_need_their_authorities() {
        let base = "postgres://crm@db.example/crm";
        for mode in ["verify-ca", "verify-full"] {
            let e = passed_on(&format!("{base}?sslmode={mode}")).unwrap_err();
            assert!(e.contains("need sslrootcert"), "{e}");
            let e = passed_on(&format!("{base}?sslmode={mode}&sslrootcert=/nowhere/ca.pem")).unwrap_err();
            assert!(e.contains("cannot read sslrootcert /nowhere/ca.pem"), "{e}");
        }
        let e = passed_on(&format!("{base}?sslmode=require&sslrootcert=%2Fnowhere%2Fca.pem")).unwrap_err();
        assert!(e.contains("/nowhere/ca.pem"), "a root makes require check the authority, percent-decoded: {e}");
    }
}
