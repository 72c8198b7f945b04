//! A data dir sled wrote is moved to fjall at start, while the host serves
//! it (`host/store/src/migrate.rs`): no request fails meanwhile, every
//! write made during the move is kept, sled's folder goes once the move
//! ends, and the next start is on fjall with everything there; a `kill -9`
//! under writes, during the copy or after the switch, loses nothing
//! acknowledged. A host told `--store-engine sled` keeps sled.
//!
//! The second host runs on the default engine whatever `CRM_TEST_STORE`
//! says, so `scripts/test-store.sh` skips this file.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crm_store::embedded::Engine;
use crm_tests::*;

const CONTACTS: usize = 3_000;

/// What a client sees of the organization: the list's total and first
/// page, a city's total, a search's total, and who the token is.
async fn seen(host: &Host, token: &str) -> (Value, Value, Value, Value, Value) {
    let list = host.get("/api/contacts?limit=50", token).await.json();
    let city = host.get("/api/contacts?cityCode=05001&limit=1", token).await.json();
    let search = host.get("/api/contacts?search=vieja17&limit=1", token).await.json();
    let me = host.get("/api/me", token).await.json();
    let total = list["pagination"]["total"].clone();
    (
        total,
        list["data"].clone(),
        city["pagination"]["total"].clone(),
        search["pagination"]["total"].clone(),
        me["data"].clone(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sled_data_dir_moves_to_fjall_while_the_host_serves_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut old = Host::start_in(dir.path(), &[("CRM_STORE_ENGINE", "sled")]).await;
    let (org, token) = old.org_with_token(json!({ "name": "Vieja", "plan": "unlimited" })).await;
    for chunk in (0..CONTACTS).collect::<Vec<_>>().chunks(1_000) {
        let rows: Vec<Value> = chunk
            .iter()
            .map(|i| json!({ "email": format!("vieja{i}@x.co"), "firstName": format!("vieja{i}"), "cityCode": if i % 3 == 0 { "05001" } else { "11001" } }))
            .collect();
        let r =
            old.admin(Method::POST, &format!("/admin/orgs/{org}/contacts/bulk"), Some(&json!({ "rows": rows }))).await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let before = seen(&old, &token).await;
    assert_eq!(before.0, CONTACTS);
    assert!(old.terminate().await, "the sled host stops cleanly");

    let host = Host::start_in(dir.path(), &[]).await;
    // Served from the start, the move going on or not: the same answers, and writes kept.
    assert_eq!(seen(&host, &token).await, before);
    let created = host.post("/api/contacts", &token, &json!({ "email": "durante@x.co", "cityCode": "05001" })).await;
    assert_eq!(created.status, 201, "{}", created.text);
    let id = created.json()["data"]["id"].as_str().unwrap().to_string();
    let first = before.1[0]["id"].as_str().unwrap().to_string();
    let renamed = host
        .call(Method::PUT, &format!("/api/contacts/{first}"), Some(&token), Some(&json!({ "firstName": "Renombrada" })))
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);

    let moving = Instant::now();
    while Engine::Sled.dir(dir.path()).exists() {
        assert!(moving.elapsed() < Duration::from_secs(120), "sled's folder is still there after 120 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let after_move = seen(&host, &token).await;
    assert_eq!((&after_move.0, &after_move.2), (&json!(CONTACTS + 1), &json!(CONTACTS / 3 + 1)));
    let mut host = host;
    assert!(host.terminate().await);

    let again = Host::start_in(dir.path(), &[]).await;
    assert_eq!(Engine::found_in(dir.path()), Some(Engine::Fjall));
    assert_eq!(seen(&again, &token).await, after_move, "the next start serves fjall's copy");
    let kept = again.get(&format!("/api/contacts/{id}"), &token).await;
    assert_eq!(kept.json()["data"]["email"], "durante@x.co");
    let renamed = again.get(&format!("/api/contacts/{first}"), &token).await;
    assert_eq!(renamed.json()["data"]["firstName"], "Renombrada", "a write made during the move");
}

/// Seeds `n` contacts on a sled host in `dir` and stops it: a data dir to move.
async fn sled_data_dir(dir: &std::path::Path, n: usize) -> String {
    let mut old = Host::start_in(dir, &[("CRM_STORE_ENGINE", "sled")]).await;
    let (org, token) = old.org_with_token(json!({ "name": "Movida", "plan": "unlimited" })).await;
    for chunk in (0..n).collect::<Vec<_>>().chunks(1_000) {
        let rows: Vec<Value> =
            chunk.iter().map(|i| json!({ "email": format!("seed{i}@x.co"), "cityCode": "05001" })).collect();
        let r =
            old.admin(Method::POST, &format!("/admin/orgs/{org}/contacts/bulk"), Some(&json!({ "rows": rows }))).await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    assert!(old.terminate().await, "the sled host stops cleanly");
    token
}

/// What the data dir's marker says of the move (`copying`, `done`), if any.
fn marker(dir: &std::path::Path) -> Option<String> {
    std::fs::read_to_string(dir.join("migration")).ok().map(|s| s.trim().to_string())
}

/// Every acknowledged contact is served, and the total equals a recount.
async fn nothing_acknowledged_is_lost(host: &Host, token: &str, acked: &[String], seeded: usize, when: &str) {
    let total = host.contacts_total(token, "").await;
    let recount = host.contacts_total(token, "createdFrom=2000-01-01").await;
    assert_eq!(total, recount, "{when}: the total is off");
    assert!(total as usize >= seeded + acked.len(), "{when}: {total} contacts, {} acknowledged", seeded + acked.len());
    for chunk in acked.chunks(16) {
        let paths: Vec<String> = chunk.iter().map(|id| format!("/api/contacts/{id}")).collect();
        let reads = futures_util::future::join_all(paths.iter().map(|path| host.get(path, token))).await;
        for (id, read) in chunk.iter().zip(reads) {
            assert_eq!(read.status, 200, "{when}: acknowledged contact {id} is gone: {}", read.text);
        }
    }
}

/// Two kills while the copy runs (each next start begins it again from
/// sled, whole), then one after the switch (the next start serves fjall),
/// all under writers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_9_during_the_move_or_after_it_loses_nothing_acknowledged() {
    const SEEDED: usize = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let token = sled_data_dir(dir.path(), SEEDED).await;
    let acked = Arc::new(Mutex::new(Vec::new()));
    for run in 0..3 {
        let mut host = Host::start_in(dir.path(), &[]).await;
        if run > 0 {
            let now = acked.lock().unwrap().clone();
            nothing_acknowledged_is_lost(&host, &token, &now, SEEDED, &format!("after kill {run}")).await;
        }
        let before = acked.lock().unwrap().len();
        let body = move |w, i| json!({ "email": format!("k{run}w{w}n{i}@x.co"), "cityCode": "11001" });
        let writing = host.create_until_gone(&token, 8, body, &acked);
        let moving = Instant::now();
        let ended = || !Engine::Sled.dir(dir.path()).exists();
        while acked.lock().unwrap().len() < before + 100 || (run == 2 && !ended()) {
            assert!(moving.elapsed() < Duration::from_secs(120), "run {run}: no progress in 120 s");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        host.kill9();
        for w in writing {
            w.await.unwrap();
        }
        match run {
            2 => assert_eq!(marker(dir.path()), None, "the move had ended"),
            _ => assert_eq!(marker(dir.path()).as_deref(), Some("copying"), "run {run}: killed during the copy"),
        }
        eprintln!(
            "kill {}: {} creates acknowledged in {:?}",
            run + 1,
            acked.lock().unwrap().len() - before,
            moving.elapsed()
        );
    }
    let host = Host::start_in(dir.path(), &[]).await;
    assert_eq!(Engine::found_in(dir.path()), Some(Engine::Fjall));
    let acked = acked.lock().unwrap().clone();
    nothing_acknowledged_is_lost(&host, &token, &acked, SEEDED, "after the kill past the switch").await;
}

#[tokio::test]
async fn a_host_told_to_keep_sled_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut old = Host::start_in(dir.path(), &[("CRM_STORE_ENGINE", "sled")]).await;
    let (_, token) = old.org_with_token(json!({ "name": "Quieta" })).await;
    assert!(old.terminate().await);
    let host = Host::start_in(dir.path(), &[("CRM_STORE_ENGINE", "sled")]).await;
    assert_eq!(host.get("/api/me", &token).await.status, 200);
    assert_eq!(Engine::found_in(dir.path()), Some(Engine::Sled));
    assert!(!Engine::Fjall.dir(dir.path()).exists(), "nothing was moved");
}
