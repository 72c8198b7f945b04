//! TLS to the database, as libpq reads the URL (`sslmode`, `sslrootcert`),
//! against a throw-away PostgreSQL serving a certificate made here for
//! `localhost` (always PostgreSQL, whatever `CRM_TEST_STORE` says):
//! `verify-full` reaches it by that name and not by its address, `verify-ca`
//! by either, a stranger's authority is refused, `require` encrypts without
//! checking, `disable` does not encrypt; the server's own view
//! (`pg_stat_ssl`) says which sessions are encrypted.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crm_store_testkit::throwaway::Throwaway;
use crm_tests::*;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};

fn authority(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap()
}

/// The server, and the PEM file of the authority that issued its certificate.
struct Database {
    server: Throwaway,
    authority_pem: PathBuf,
}

fn database() -> &'static Database {
    static DATABASE: OnceLock<Database> = OnceLock::new();
    DATABASE.get_or_init(|| {
        let ca = authority("Database authority");
        let key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["localhost".to_string()]).unwrap().signed_by(&key, &ca).unwrap();
        let server = Throwaway::start_with_tls(&format!("{}{}", leaf.pem(), ca.pem()), &key.serialize_pem(), &[])
            .expect("a throw-away PostgreSQL with TLS");
        // Cargo's folder for tests' files: the server outlives every test, so its authority does too.
        let authority_pem =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("store-tls-{}.pem", std::process::id()));
        std::fs::write(&authority_pem, ca.pem()).unwrap();
        Database { server, authority_pem }
    })
}

/// A new database's URL on the server, reached as `host`, with `query`.
fn url(name: &str, host: &str, query: &str) -> String {
    let db = database();
    let url = db.server.database(name).unwrap().replacen("127.0.0.1", host, 1);
    format!("{url}?{}", query.replace("{ca}", db.authority_pem.to_str().unwrap()))
}

/// Whether the server sees this database's sessions from crm-host encrypted,
/// one answer per session.
fn sessions_encrypted(name: &str) -> Vec<bool> {
    let sql = format!(
        "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
         WHERE a.application_name = 'crm-host' AND a.datname = '{name}'"
    );
    database().server.answer("postgres", &sql).unwrap().lines().map(|l| l == "t").collect()
}

/// A host on `store_url`, which has stored a contact and found it again.
async fn works_on(store_url: &str) -> Host {
    let host = Host::start_with(&[("CRM_STORE_URL", store_url)]).await;
    let token = host.demo_token.clone().expect("a new database gets the demo organization");
    let created = host.post("/api/contacts", &token, &json!({ "email": "tls@db.co", "city": "Neiva" })).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(host.get(&format!("/api/contacts/{id}"), &token).await.json()["data"]["cityCode"], "41001");
    host
}

/// What a host on `store_url` says when it cannot start.
fn refused_start(store_url: &str, data_dir: &Path) -> String {
    let out = std::process::Command::new(host_binary())
        .args(["serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .env("CRM_ADMIN_TOKEN", ADMIN_TOKEN)
        .env("CRM_CACHE_DIR", shared_cache_dir())
        .env("CRM_STORE_URL", store_url)
        .output()
        .unwrap();
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test]
async fn verify_full_reaches_the_database_by_the_name_its_certificate_gives() {
    let _host = works_on(&url("by_name", "localhost", "sslmode=verify-full&sslrootcert={ca}")).await;
    let encrypted = sessions_encrypted("by_name");
    assert!(!encrypted.is_empty() && encrypted.iter().all(|e| *e), "{encrypted:?}");

    let dir = tempfile::tempdir().unwrap();
    let by_address = refused_start(&url("by_address", "127.0.0.1", "sslmode=verify-full&sslrootcert={ca}"), dir.path());
    assert!(by_address.to_lowercase().contains("certificate"), "{by_address}");
    // verify-ca checks the authority, not the name.
    let _host = works_on(&url("by_address", "127.0.0.1", "sslmode=verify-ca&sslrootcert={ca}")).await;
    let encrypted = sessions_encrypted("by_address");
    assert!(!encrypted.is_empty() && encrypted.iter().all(|e| *e), "{encrypted:?}");
}

#[tokio::test]
async fn a_stranger_authority_is_refused_and_the_unchecked_modes_say_what_they_do() {
    let dir = tempfile::tempdir().unwrap();
    let stranger = dir.path().join("stranger.pem");
    std::fs::write(&stranger, authority("Stranger").pem()).unwrap();
    let query = format!("sslmode=verify-full&sslrootcert={}", stranger.display());
    let refused = refused_start(&url("stranger", "localhost", &query), &dir.path().join("data"));
    assert!(refused.to_lowercase().contains("certificate"), "{refused}");
    let refused = refused_start(&url("stranger", "localhost", "sslmode=verify-full"), &dir.path().join("data"));
    assert!(refused.contains("need sslrootcert"), "{refused}");

    // require: encrypted, the certificate not checked (libpq's meaning).
    let _required = works_on(&url("required", "127.0.0.1", "sslmode=require")).await;
    let encrypted = sessions_encrypted("required");
    assert!(!encrypted.is_empty() && encrypted.iter().all(|e| *e), "{encrypted:?}");
    // disable: in the clear.
    let _disabled = works_on(&url("disabled", "127.0.0.1", "sslmode=disable")).await;
    let clear = sessions_encrypted("disabled");
    assert!(!clear.is_empty() && clear.iter().all(|e| !*e), "{clear:?}");
}

#[tokio::test]
async fn libpq_key_value_form_is_refused_and_no_password_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let refused = refused_start("host=127.0.0.1 port=1 password=s3cret sslmode=verify-full", dir.path());
    assert!(refused.contains("must be a URL: postgres://"), "{refused}");
    assert!(!refused.contains("s3cret"), "{refused}");
    // A password given as a parameter of the URL is hidden as one in its credentials is.
    let refused = refused_start("postgres://crm@127.0.0.1:1/crm?password=s3cret&sslmode=disable", dir.path());
    assert!(refused.contains("postgres://crm@127.0.0.1:1/crm?password=***&sslmode=disable"), "{refused}");
    assert!(!refused.contains("s3cret"), "{refused}");
}
