//! `crm-host store copy`: an embedded store copied into PostgreSQL, and back
//! into a new embedded store on the other engine, serves the same
//! organizations, tokens and contacts; a copy run twice gives the same
//! result; a store in use by a running host is refused.

use std::path::Path;
use std::process::{Command, Output};

use crm_store::embedded::Engine;
use crm_tests::*;

fn copy(from: &str, to: &str) -> Output {
    Command::new(host_binary()).args(["store", "copy", "--from", from, "--to", to]).output().expect("run crm-host")
}

/// The spec of the embedded store in `dir`, on `engine`.
fn spec(engine: Engine, dir: &Path) -> String {
    format!("{}:{}", engine.name(), dir.display())
}

/// What a client sees of the organization: every contact in order, the list
/// total, a city's total, and who the token is.
async fn seen(host: &Host, token: &str) -> (Value, Value, Value, Value) {
    let list = host.get("/api/contacts?limit=100", token).await.json();
    let city = host.get("/api/contacts?cityCode=05001", token).await.json();
    let me = host.get("/api/me", token).await.json();
    (list["data"].clone(), list["pagination"]["total"].clone(), city["pagination"]["total"].clone(), me["data"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedded_store_copied_to_postgres_and_back_serves_the_same_data() {
    let temp = tempfile::tempdir().unwrap();
    let embedded = temp.path().join("embedded");
    let mut host = Host::start_in(&embedded, &[]).await;
    let (_, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    for i in 0..30 {
        let mut body = json!({ "email": format!("c{i}@acme.co"), "firstName": format!("Cliente {i}") });
        if i % 3 == 0 {
            body["cityCode"] = json!("05001");
        }
        assert_eq!(host.post("/api/contacts", &token, &body).await.status, 201);
    }
    let before = seen(&host, &token).await;
    assert_eq!((before.1.clone(), before.2.clone()), (json!(30), json!(10)));
    assert!(host.terminate().await);

    let url = backend::database("store-copy");
    let engine = Engine::found_in(&embedded).expect("the host wrote an embedded store");
    for run in ["first", "again"] {
        let out = copy(&spec(engine, &embedded), &url);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{run}: {}{stdout}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains("copied 2 organizations"), "the demo organization and Acme: {stdout}");
        assert!(stdout.contains("every namespace's count verified"), "{stdout}");
    }
    let mut on_postgres = Host::start_with(&[("CRM_STORE_URL", &url)]).await;
    assert_eq!(seen(&on_postgres, &token).await, before, "the database serves what the embedded store did");
    let added = on_postgres.post("/api/contacts", &token, &json!({ "email": "nuevo@acme.co" })).await;
    assert_eq!(added.status, 201, "and takes writes: {}", added.text);
    assert!(on_postgres.terminate().await);

    let back = temp.path().join("back");
    let other = if engine == Engine::Sled { Engine::Fjall } else { Engine::Sled };
    let out = copy(&url, &spec(other, &back));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(Engine::found_in(&back), Some(other));
    let again = Host::start_in(&back, &[("CRM_STORE_ENGINE", other.name())]).await;
    let after = seen(&again, &token).await;
    assert_eq!(after.1, json!(31), "the write made on PostgreSQL came back");
    assert_eq!((after.2, after.3), (before.2, before.3));

    let refused = copy(&spec(other, &back), &url);
    assert!(!refused.status.success(), "a running host's store is refused");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is a host running on it?"));
}

#[test]
fn an_unknown_store_is_refused_with_a_reason() {
    let out = copy("mysql://x", "sled:/tmp/never");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("none of fjall:<data-dir>, sled:<data-dir>, postgres://"));
}
