//! TLS on the public listener (and the admin one with `--admin-tls`), for a
//! host that faces the internet without a proxy in front: `--tls-cert` (the
//! certificate chain, PEM) and `--tls-key` (its private key, PEM), as
//! certbot or any certificate authority writes them. Tokens then never cross
//! the network in the clear.
//!
//! A renewed certificate is served without a restart: the files are looked
//! at again, at most every [`RECHECK`], when a connection arrives, and read
//! again when either changed. A pair that does not load (a renewal caught
//! half-written) leaves the previous one in service and is tried again at the
//! next look; only at start is a bad pair an error.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::crypto::aws_lc_rs;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// How often, at most, the files are looked at for a renewal.
pub const RECHECK: Duration = Duration::from_secs(5);

/// The certificate and key files, and the acceptor made from them.
pub struct Tls {
    cert: PathBuf,
    key: PathBuf,
    current: Mutex<Loaded>,
}

struct Loaded {
    acceptor: TlsAcceptor,
    /// The files' modification times when they were read.
    stamp: (Option<SystemTime>, Option<SystemTime>),
    looked: Instant,
}

impl Tls {
    /// Reads the pair; an error names the file and what is wrong with it.
    pub fn load(cert: &Path, key: &Path) -> Result<Tls, String> {
        let stamp = stamp(cert, key);
        let acceptor = acceptor(cert, key)?;
        Ok(Tls {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            current: Mutex::new(Loaded { acceptor, stamp, looked: Instant::now() }),
        })
    }

    /// The acceptor for a new connection: the pair read again first when a
    /// file changed since it was last read.
    pub fn acceptor(&self) -> TlsAcceptor {
        let mut current = self.current.lock().expect("tls lock");
        if current.looked.elapsed() >= RECHECK {
            current.looked = Instant::now();
            let now = stamp(&self.cert, &self.key);
            if now != current.stamp {
                match acceptor(&self.cert, &self.key) {
                    Ok(renewed) => {
                        (current.acceptor, current.stamp) = (renewed, now);
                        tracing::info!(cert = %self.cert.display(), "TLS certificate reloaded");
                    }
                    Err(e) => tracing::warn!(error = %e, "TLS certificate not reloaded; the previous one stays"),
                }
            }
        }
        current.acceptor.clone()
    }
}

fn stamp(cert: &Path, key: &Path) -> (Option<SystemTime>, Option<SystemTime>) {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    (modified(cert), modified(key))
}

/// A server configuration from the pair, offering HTTP/2 and HTTP/1.1.
fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, String> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()));
    let chain = CertificateDer::pem_slice_iter(&read(cert)?)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{} is not a PEM certificate chain: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!("{} holds no certificate", cert.display()));
    }
    let private = PrivateKeyDer::from_pem_slice(&read(key)?)
        .map_err(|e| format!("{} is not a PEM private key: {e}", key.display()))?;
    let mut config = ServerConfig::builder_with_provider(Arc::new(aws_lc_rs::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .map_err(|e| format!("{} and {} are not a certificate and its key: {e}", cert.display(), key.display()))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}
