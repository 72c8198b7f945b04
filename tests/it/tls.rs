//! TLS on the public listener (`CRM_TLS_CERT`, `CRM_TLS_KEY`): the API over
//! HTTP/2 and HTTP/1.1 with the configured chain, nothing in the clear on
//! that port, the admin listener plain unless `CRM_ADMIN_TLS`, a renewed
//! certificate served without a restart, and a pair that does not load
//! refused at start.
//! Certificates are made here, by a throw-away authority.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crm_tests::*;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use reqwest::{Certificate, Version};

/// A certificate authority of its own.
struct Authority {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl Authority {
    fn new(name: &str) -> Authority {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        Authority { issuer: CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap() }
    }

    /// A certificate for this machine's loopback names: (chain PEM, key PEM).
    fn server_pair(&self) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let params = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
        let leaf = params.signed_by(&key, &self.issuer).unwrap();
        (format!("{}{}", leaf.pem(), self.issuer.pem()), key.serialize_pem())
    }

    /// A client that trusts this authority alone, on a new connection every time.
    fn client(&self) -> reqwest::ClientBuilder {
        reqwest::Client::builder()
            .tls_certs_only([Certificate::from_pem(self.issuer.pem().as_bytes()).unwrap()])
            .pool_max_idle_per_host(0)
            .timeout(Duration::from_secs(10))
    }
}

/// Writes the pair where the host reads it; answers (cert, key) paths.
fn write_pair(dir: &Path, (chain, key): &(String, String)) -> (PathBuf, PathBuf) {
    let (cert_path, key_path) = (dir.join("fullchain.pem"), dir.join("privkey.pem"));
    std::fs::write(&key_path, key).unwrap();
    std::fs::write(&cert_path, chain).unwrap();
    (cert_path, key_path)
}

async fn tls_host(dir: &Path, pair: &(String, String)) -> Host {
    tls_host_with(dir, pair, &[]).await
}

async fn tls_host_with(dir: &Path, pair: &(String, String), env: &[(&str, &str)]) -> Host {
    let (cert, key) = write_pair(dir, pair);
    let mut env = env.to_vec();
    env.extend([("CRM_TLS_CERT", cert.to_str().unwrap()), ("CRM_TLS_KEY", key.to_str().unwrap())]);
    Host::start_with(&env).await
}

#[tokio::test]
async fn the_api_is_served_over_tls_with_the_configured_chain() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Authority::new("CRM test authority");
    let host = tls_host(dir.path(), &ca.server_pair()).await;
    assert!(host.api.starts_with("https://127.0.0.1:"), "{}", host.api);
    assert!(host.stdout.iter().any(|l| l.contains("curl -H") && l.contains("https://")), "{:?}", host.stdout);
    let token = host.demo_token.clone().unwrap();

    let me = format!("{}/api/me", host.api);
    let r = ca.client().build().unwrap().get(&me).bearer_auth(&token).send().await.unwrap();
    assert_eq!((r.status(), r.version()), (StatusCode::OK, Version::HTTP_2), "HTTP/2 offered through ALPN");
    assert_eq!(r.json::<Value>().await.unwrap()["success"], true);
    let r = ca.client().http1_only().build().unwrap().get(&me).bearer_auth(&token).send().await.unwrap();
    assert_eq!((r.status(), r.version()), (StatusCode::OK, Version::HTTP_11));
    let created = host.post("/api/contacts", &token, &json!({ "email": "tls@acme.co", "city": "Pasto" })).await;
    assert_eq!((created.status, &created.json()["data"]["cityCode"]), (StatusCode::CREATED, &json!("52001")));

    // Nothing in the clear on that port, and nothing to a client that trusts another authority.
    let plain = reqwest::Client::new().get(me.replacen("https://", "http://", 1)).bearer_auth(&token).send().await;
    assert!(plain.is_err(), "plain HTTP got an answer: {plain:?}");
    let stranger = Authority::new("Another authority").client().build().unwrap();
    let e = stranger.get(&me).send().await.unwrap_err();
    assert!(format!("{e:?}").to_lowercase().contains("certificate"), "{e:?}");
    // The admin listener is not the public one: plain HTTP, as before.
    assert!(host.admin.starts_with("http://"));
    assert_eq!(host.admin(Method::GET, "/admin/orgs", None).await.status, StatusCode::OK);
}

#[tokio::test]
async fn the_admin_listener_takes_tls_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Authority::new("Admin authority");
    let host = tls_host_with(dir.path(), &ca.server_pair(), &[("CRM_ADMIN_TLS", "true")]).await;
    assert!(host.admin.starts_with("https://127.0.0.1:"), "{}", host.admin);
    let orgs = format!("{}/admin/orgs", host.admin);
    let r = ca.client().build().unwrap().get(&orgs).bearer_auth(ADMIN_TOKEN).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let plain =
        reqwest::Client::new().get(orgs.replacen("https://", "http://", 1)).bearer_auth(ADMIN_TOKEN).send().await;
    assert!(plain.is_err(), "the admin token would have crossed in the clear: {plain:?}");

    // Without a certificate there is nothing to serve it with: the start is refused.
    let out = std::process::Command::new(host_binary())
        .args(["serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path().join("other"))
        .env("CRM_ADMIN_TOKEN", ADMIN_TOKEN)
        .env("CRM_ADMIN_TLS", "true")
        .output()
        .unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--tls-cert"));
}

#[tokio::test]
async fn the_importer_reaches_a_tls_host_trusting_the_authority_in_ssl_cert_file() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Authority::new("Importer authority");
    let host = tls_host(dir.path(), &ca.server_pair()).await;
    let token = host.demo_token.clone().unwrap();
    let csv = dir.path().join("clientes.csv");
    std::fs::write(&csv, "correo;nombre;ciudad\nana@tls.co;Ana;Medellín\nbeto@tls.co;Beto;Cali\n").unwrap();
    let authority_file = dir.path().join("authority.pem");
    std::fs::write(&authority_file, ca.issuer.pem()).unwrap();
    let import = |trusted: Option<&Path>| {
        let mut cmd = std::process::Command::new(host_binary());
        cmd.args(["import", "contacts"]).arg(&csv).args(["--url", &host.api, "--token", &token]);
        match trusted {
            // The machine's trust store, as rustls-native-certs reads it: this file instead.
            Some(file) => cmd.env("SSL_CERT_FILE", file),
            None => cmd.env("SSL_CERT_FILE", dir.path().join("empty.pem")),
        };
        cmd.output().unwrap()
    };
    let refused = import(None);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "an authority nobody trusts was accepted");
    assert!(said.contains("invalid peer certificate: UnknownIssuer"), "the cause is told: {said}");
    // Each try again says so ("try 1 of 5"): read that, not how long the
    // start of a debug binary took.
    assert!(!said.contains("(try "), "not tried again: {said}");
    let out = import(Some(&authority_file));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("2 rows: 2 were created"), "{stdout}");
    let list = host.get("/api/contacts?cityCode=76001", &token).await.json();
    assert_eq!(list["data"][0]["email"], "beto@tls.co");
}

#[tokio::test]
async fn a_stalled_handshake_is_closed_within_the_header_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let pair = Authority::new("Patient authority").server_pair();
    let host = tls_host_with(dir.path(), &pair, &[("CRM_HEADER_TIMEOUT_MS", "500")]).await;
    let mut stalled = tokio::net::TcpStream::connect(host.api.trim_start_matches("https://")).await.unwrap();
    stalled.write_all(&[0x16, 0x03, 0x01]).await.unwrap(); // the start of a ClientHello, and no more
    let started = std::time::Instant::now();
    let read = tokio::time::timeout(Duration::from_secs(5), stalled.read(&mut [0u8; 64])).await;
    assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "the host closed the connection: {read:?}");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_renewed_certificate_is_served_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (Authority::new("First authority"), Authority::new("Second authority"));
    let host = tls_host(dir.path(), &first.server_pair()).await;
    let healthz = format!("{}/healthz", host.api);
    let answers = |ca: &Authority| {
        let request = ca.client().build().unwrap().get(&healthz).send();
        async move { request.await.is_ok_and(|r| r.status() == StatusCode::OK) }
    };
    assert!(answers(&first).await && !answers(&second).await);

    // A renewal caught half-written keeps the certificate in service.
    std::fs::write(dir.path().join("fullchain.pem"), "-----BEGIN CERTIFICATE-----\ntrunc").unwrap();
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert!(answers(&first).await, "the previous certificate stays while the new files do not load");

    write_pair(dir.path(), &second.server_pair());
    let renewed = async {
        while !answers(&second).await {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(15), renewed).await.expect("the renewed certificate is served");
    assert!(!answers(&first).await, "the old certificate is gone");
}

#[tokio::test]
async fn a_pair_that_does_not_load_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = write_pair(dir.path(), &Authority::new("Start authority").server_pair());
    let other_key = dir.path().join("other.pem");
    std::fs::write(&other_key, KeyPair::generate().unwrap().serialize_pem()).unwrap();
    let start = |cert: &Path, key: Option<&Path>| {
        let mut cmd = std::process::Command::new(host_binary());
        cmd.args(["serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir.path().join("data"))
            .arg("--tls-cert")
            .arg(cert)
            .env("CRM_ADMIN_TOKEN", ADMIN_TOKEN)
            .env("CRM_CACHE_DIR", shared_cache_dir())
            .env_remove("CRM_TLS_KEY");
        if let Some(key) = key {
            cmd.arg("--tls-key").arg(key);
        }
        let out = cmd.output().unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let missing = dir.path().join("missing.pem");
    for (cert, key, says) in [
        (&cert, Some(missing.as_path()), "cannot read"),
        (&key, Some(key.as_path()), "holds no certificate"),
        (&cert, Some(cert.as_path()), "not a PEM private key"),
        (&cert, Some(other_key.as_path()), "are not a certificate and its key"),
        (&cert, None, "--tls-key"),
    ] {
        let stderr = start(cert, key);
        assert!(stderr.contains(says), "{says}: {stderr}");
    }
}
