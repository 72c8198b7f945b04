//! `crm-host store backup | verify | restore`: a backup taken from a running
//! host while it takes writes holds every write acknowledged before it and
//! exact counts, and restores cleanly after the host is killed with `kill -9`;
//! `verify` finds a damaged backup; `restore` refuses a data dir in use or
//! one that holds a store; a store that cannot take one says why; one
//! nobody reads is given up.
//!
//! The hosts run on fjall whatever `CRM_TEST_STORE` says: sled and
//! PostgreSQL take no online backup (the last test).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crm_tests::*;

fn crm(args: &[&str]) -> Output {
    std::process::Command::new(host_binary())
        .args(args)
        .env("CRM_ADMIN_TOKEN", ADMIN_TOKEN)
        .output()
        .expect("run crm-host")
}

fn said(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn backup(host: &Host, to: &Path) -> Output {
    crm(&["store", "backup", "--url", &host.admin, "--to", &to.display().to_string()])
}

const FJALL: [(&str, &str); 1] = [("CRM_STORE_ENGINE", "fjall")];

/// Every contact's email the organization lists, page by page, and the
/// total the list says.
async fn listed(host: &Host, token: &str) -> (BTreeSet<String>, u64) {
    let (mut emails, mut page) = (BTreeSet::new(), 1);
    loop {
        let answer = host.get(&format!("/api/contacts?limit=100&page={page}"), token).await.json();
        let total = answer["pagination"]["total"].as_u64().expect("a total");
        let data = answer["data"].as_array().expect("a page");
        emails.extend(data.iter().map(|c| c["email"].as_str().unwrap().to_string()));
        if page >= answer["pagination"]["pages"].as_u64().expect("a page count") {
            return (emails, total);
        }
        page += 1;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_under_writes_restores_every_acknowledged_write_after_a_kill_9() {
    let temp = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(&temp.path().join("live"), &FJALL).await;
    let (_, token) = host.org_with_token(json!({ "name": "Acme" })).await;

    // A writer that keeps creating contacts, and what it was told.
    let (acknowledged, stop) = (Arc::new(Mutex::new(Vec::<String>::new())), Arc::new(AtomicBool::new(false)));
    let writer = {
        let (client, api, token) = (host.client.clone(), host.api.clone(), token.clone());
        let (acknowledged, stop) = (acknowledged.clone(), stop.clone());
        tokio::spawn(async move {
            for i in 0.. {
                if stop.load(Ordering::SeqCst) {
                    return i;
                }
                let email = format!("c{i}@acme.co");
                let created = client
                    .post(format!("{api}/api/contacts"))
                    .bearer_auth(&token)
                    .json(&json!({ "email": email, "firstName": format!("Cliente {i}") }))
                    .send()
                    .await;
                if created.is_ok_and(|r| r.status() == 201) {
                    acknowledged.lock().unwrap().push(email);
                }
            }
            unreachable!()
        })
    };
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while acknowledged.lock().unwrap().len() < 150 {
        assert!(std::time::Instant::now() < until, "the writer's creates are not acknowledged");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let before: Vec<String> = acknowledged.lock().unwrap().clone();
    let folder = temp.path().join("backup");
    let out = {
        let (host_admin, folder) = (host.admin.clone(), folder.clone());
        tokio::task::spawn_blocking(move || {
            crm(&["store", "backup", "--url", &host_admin, "--to", &folder.display().to_string()])
        })
        .await
        .unwrap()
    };
    assert!(out.status.success(), "{}", said(&out));
    assert!(said(&out).contains("crm-host: backed up"), "{}", said(&out));
    stop.store(true, Ordering::SeqCst);
    let attempted = writer.await.unwrap();
    host.kill9();

    let verified = crm(&["store", "verify", &folder.display().to_string()]);
    assert!(verified.status.success(), "{}", said(&verified));
    assert!(said(&verified).contains("is whole"), "{}", said(&verified));

    let restored_dir = temp.path().join("restored");
    let restored = crm(&[
        "store",
        "restore",
        "--from",
        &folder.display().to_string(),
        "--to",
        &restored_dir.display().to_string(),
    ]);
    assert!(restored.status.success(), "{}", said(&restored));
    assert!(said(&restored).contains("every namespace's count verified"), "{}", said(&restored));

    let host = Host::start_in(&restored_dir, &[]).await;
    let (emails, total) = listed(&host, &token).await;
    for email in &before {
        assert!(emails.contains(email), "{email} was acknowledged before the backup and is not in it");
    }
    assert_eq!(total, emails.len() as u64, "the restored count is exact");
    let attempted: BTreeSet<String> = (0..attempted).map(|i| format!("c{i}@acme.co")).collect();
    assert!(emails.is_subset(&attempted), "the backup holds contacts nobody created");
    // One instant: once the backup holds one of the writer's contacts, it
    // holds every one acknowledged before it.
    let index = |email: &str| email[1..email.find('@').unwrap()].parse::<usize>().unwrap();
    let last = emails.iter().map(|e| index(e)).max().unwrap();
    let acknowledged = acknowledged.lock().unwrap().clone();
    for email in acknowledged.iter().filter(|e| index(e) <= last) {
        assert!(emails.contains(email), "the backup holds a later write but not {email}");
    }
    let me = host.get("/api/me", &token).await;
    assert_eq!(me.status, 200, "the token works on the restored store: {}", me.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damage_and_data_dirs_in_use_are_refused_with_a_reason() {
    let temp = tempfile::tempdir().unwrap();
    let host = Host::start_in(&temp.path().join("live"), &FJALL).await;
    host.org_with_token(json!({ "name": "Acme" })).await;
    let folder = temp.path().join("backup");
    assert!(backup(&host, &folder).status.success());

    let again = backup(&host, &folder);
    assert!(!again.status.success());
    assert!(said(&again).contains("already holds a backup"), "{}", said(&again));

    let in_use = crm(&[
        "store",
        "restore",
        "--from",
        &folder.display().to_string(),
        "--to",
        &host.data_dir().display().to_string(),
    ]);
    assert!(!in_use.status.success());
    assert!(said(&in_use).contains("is in use by a running host"), "{}", said(&in_use));

    let target = temp.path().join("target");
    let restore = |extra: &[&str]| {
        let mut args = vec!["store", "restore", "--from"];
        let (from, to) = (folder.display().to_string(), target.display().to_string());
        args.extend([from.as_str(), "--to", to.as_str()]);
        args.extend(extra);
        crm(&args)
    };
    assert!(restore(&["--engine", "sled"]).status.success(), "a backup restores onto sled too");
    let holds = restore(&[]);
    assert!(!holds.status.success());
    assert!(said(&holds).contains("already holds a sled store"), "{}", said(&holds));
    let replaced = restore(&["--replace"]);
    assert!(replaced.status.success(), "{}", said(&replaced));
    assert!(said(&replaced).contains("(fjall)"), "{}", said(&replaced));

    // One byte changed in the middle of the file.
    let file = folder.join("store.crmbackup");
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    std::fs::write(&file, &bytes).unwrap();
    let damaged = crm(&["store", "verify", &folder.display().to_string()]);
    assert!(!damaged.status.success());
    assert!(said(&damaged).contains("the backup is damaged"), "{}", said(&damaged));
    let not_restored = restore(&["--replace"]);
    assert!(!not_restored.status.success(), "a damaged backup is not restored");
    assert!(said(&not_restored).contains("the backup is damaged"), "{}", said(&not_restored));
}

#[tokio::test]
async fn a_store_that_cannot_back_up_online_says_why() {
    let host = Host::start_with(&[("CRM_STORE_ENGINE", "sled")]).await;
    let refused = host.admin(Method::POST, "/admin/store/backups", None).await;
    assert_eq!(refused.status, 409, "{}", refused.text);
    assert_eq!(refused.json()["code"], "BACKUP_NOT_SUPPORTED");
    assert!(refused.json()["message"].as_str().unwrap().contains("crm-host store copy"));
    let out = backup(&host, &tempfile::tempdir().unwrap().path().join("b"));
    assert!(!out.status.success());
    assert!(said(&out).contains("BACKUP_NOT_SUPPORTED"), "{}", said(&out));
}

#[tokio::test]
async fn one_backup_at_a_time_read_in_order_and_given_up_on_delete() {
    let host = Host::start_with(&FJALL).await;
    let started = host.admin(Method::POST, "/admin/store/backups", None).await;
    assert_eq!(started.status, 201, "{}", started.text);
    let id = started.json()["id"].as_str().unwrap().to_string();
    assert!(started.json()["takenAt"].is_string());

    let second = host.admin(Method::POST, "/admin/store/backups", None).await;
    assert_eq!(second.status, 409, "{}", second.text);
    assert_eq!(second.json()["code"], "BACKUP_IN_PROGRESS");
    let skipped = host.admin(Method::GET, &format!("/admin/store/backups/{id}/parts/1"), None).await;
    assert_eq!(skipped.status, 409, "{}", skipped.text);
    assert_eq!(skipped.json()["code"], "BACKUP_PART_OUT_OF_ORDER");
    let unknown = host.admin(Method::GET, "/admin/store/backups/nope/parts/0", None).await;
    assert_eq!(unknown.status, 404, "{}", unknown.text);

    let cancelled = host.admin(Method::DELETE, &format!("/admin/store/backups/{id}"), None).await;
    assert_eq!(cancelled.status, 204, "{}", cancelled.text);
    let gone = host.admin(Method::GET, &format!("/admin/store/backups/{id}/parts/0"), None).await;
    assert_eq!(gone.status, 404, "a backup given up is not read on");
    let again = host.admin(Method::POST, "/admin/store/backups", None).await;
    assert_eq!(again.status, 201, "once given up, another may start: {}", again.text);
}

/// A backup nobody reads holds a snapshot, which keeps old versions from
/// being compacted away; after `--backup-idle-secs` without a read (2 s
/// here, a minute by default) it is given up, and another may start.
#[tokio::test]
async fn a_backup_nobody_reads_is_given_up() {
    let host = Host::start_logging(&[FJALL[0], ("CRM_BACKUP_IDLE_SECS", "2")]).await;
    let started = host.admin(Method::POST, "/admin/store/backups", None).await;
    assert_eq!(started.status, 201, "{}", started.text);
    let id = started.json()["id"].as_str().unwrap().to_string();
    let still = host.admin(Method::POST, "/admin/store/backups", None).await;
    assert_eq!(still.json()["code"], "BACKUP_IN_PROGRESS", "given up at once: {}", still.text);
    // The host looks every half of a second: given up between 2 and 2.5 s
    // after its last read, later on a loaded machine; it says so in its log
    // (a read to find out would keep the backup).
    let given_up = crm_tests::shop::eventually(std::time::Duration::from_secs(30), || async {
        host.log().contains("an online backup nobody read was given up")
    })
    .await;
    assert!(given_up, "a backup idle for 30 s was not given up");
    let gone = host.admin(Method::GET, &format!("/admin/store/backups/{id}/parts/0"), None).await;
    assert_eq!(gone.status, 404, "a backup idle past its time is still read: {}", gone.text);
    let again = host.admin(Method::POST, "/admin/store/backups", None).await;
    assert_eq!(again.status, 201, "{}", again.text);
}
