//! `search=` through the trigram index: exact totals and creation order,
//! kept exact through renames, found at odd and even positions of a field,
//! the host's count for a term most contacts hold, the scan for terms of
//! three characters or fewer, and `crm-host admin
//! contacts reindex` for contacts stored before the index existed (searched
//! by a scan until then).

use crm_tests::*;

/// How many store `find` calls (the scan of every projection) the host made.
async fn scans(host: &Host) -> f64 {
    host.store_operations("find").await
}

/// `firstName`s of a list answer, in order, and its total.
fn names(r: &Reply) -> (Vec<String>, u64) {
    assert_eq!(r.status, 200, "{}", r.text);
    let body = r.json();
    let names = body["data"].as_array().unwrap().iter().map(|c| c["firstName"].as_str().unwrap().to_string()).collect();
    (names, body["pagination"]["total"].as_u64().unwrap())
}

/// Contacts `user0` .. `user{n-1}` through the admin bulk path, in that order.
async fn seed(host: &Host, org: &str, n: usize) {
    let rows: Vec<Value> = (0..n)
        .map(|i| {
            let mut row = json!({ "email": format!("bulk{i}@bench.co"), "firstName": format!("user{i}"), "cityCode": if i % 2 == 0 { "05001" } else { "11001" } });
            if i == 39 {
                row["phone"] = json!("(604) 444-5555");
            }
            row
        })
        .collect();
    let r = host.admin(Method::POST, &format!("/admin/orgs/{org}/contacts/bulk"), Some(&json!({ "rows": rows }))).await;
    assert_eq!((r.status.as_u16(), r.json()["created"].as_u64()), (200, Some(n as u64)), "{}", r.text);
}

fn users(ids: &[usize]) -> Vec<String> {
    ids.iter().map(|i| format!("user{i}")).collect()
}

#[tokio::test]
async fn the_index_answers_exact_totals_in_creation_order_and_follows_renames() {
    let host = Host::start().await;
    let (org, token) = host.org_with_token(json!({ "name": "Search", "plan": "unlimited" })).await;
    seed(&host, &org, 30).await;
    let accented = json!({ "email": "maria@tienda.co", "firstName": "Mari\u{301}a", "lastName": "Gómez", "company": "Tienda Ñandú", "mobile": "3001234567" });
    assert_eq!(host.post("/api/contacts", &token, &accented).await.status, 201);
    // A separator inside a trigram is text like any other; inside a number
    // it is dropped (`5/7/9` is searched as `579`).
    let slashes = json!({ "email": "ruta@vias.co", "company": "Ruta 5/7/9 S.A.S" });
    assert_eq!(host.post("/api/contacts", &token, &slashes).await.status, 201);

    let before = scans(&host).await;
    // user1, user10..user19 match; newest first.
    let ones: Vec<usize> = std::iter::once(1).chain(10..20).rev().collect();
    assert_eq!(names(&host.get("/api/contacts?search=user1", &token).await), (users(&ones), 11));
    // Found where it starts at an odd position of the field as well.
    assert_eq!(names(&host.get("/api/contacts?search=ser1", &token).await), (users(&ones), 11));
    assert_eq!(names(&host.get("/api/contacts?search=USER1&limit=3&page=2", &token).await), (users(&ones[3..6]), 11));
    let oldest_first: Vec<usize> = ones.iter().rev().copied().collect();
    assert_eq!(
        names(&host.get("/api/contacts?search=user1&sortOrder=asc&limit=2", &token).await),
        (users(&oldest_first[..2]), 11)
    );
    // With a filter the index does not answer: the candidates' records are read.
    let in_bogota: Vec<usize> = ones.iter().copied().filter(|i| i % 2 == 1).collect();
    assert_eq!(names(&host.get("/api/contacts?search=user1&cityCode=11001", &token).await), (users(&in_bogota), 6));
    // Every field, composed and decomposed accents, case.
    for term in [
        "MARÍA",
        "Mari\u{301}a",
        "gómez",
        "ñandú",
        "tienda.co",
        "1234567",
        "@tienda",
        "ruta 5/7",
        "7/9 s.a",
        "s.a.s",
        "a 5/7",
        "a 579",
        // Initialisms are found without their dots too.
        "579 sas",
        "RUTA 579 SAS",
    ] {
        let r = host.get(&format!("/api/contacts?search={}", pct(term)), &token).await;
        assert_eq!(r.json()["pagination"]["total"], 1, "{term}: {}", r.text);
    }
    // Every window of a field is found, whichever its position's parity.
    let email: Vec<char> = "maria@tienda.co".chars().collect();
    for width in 4..=6 {
        for window in email.windows(width) {
            let term: String = window.iter().collect();
            let r = host.get(&format!("/api/contacts?search={}", pct(&term)), &token).await;
            assert_eq!(r.json()["pagination"]["total"], 1, "{term}: {}", r.text);
        }
    }
    // Literal: a term across two fields, or absent, finds nothing.
    for term in ["user1 bulk", "maríagómez", "zzzz", "user1@"] {
        let r = host.get(&format!("/api/contacts?search={}", pct(term)), &token).await;
        assert_eq!(r.json()["pagination"]["total"], 0, "{term}");
    }
    assert_eq!(scans(&host).await, before, "terms of four characters or more never scan");

    // Three characters or fewer: the scan answers, as exactly.
    let r = host.get("/api/contacts?search=r2&limit=100", &token).await;
    assert_eq!(names(&r).1, 11, "user2, user20..user29");
    let r = host.get("/api/contacts?search=r25&limit=100", &token).await;
    assert_eq!(names(&r), (users(&[25]), 1));
    assert_eq!(scans(&host).await, before + 2.0);

    // A rename moves the contact between terms at once.
    let id =
        host.get("/api/contacts?search=user15", &token).await.json()["data"][0]["id"].as_str().unwrap().to_string();
    let r = host
        .call(Method::PUT, &format!("/api/contacts/{id}"), Some(&token), Some(&json!({ "firstName": "zeta" })))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(names(&host.get("/api/contacts?search=user15", &token).await).1, 0);
    assert_eq!(names(&host.get("/api/contacts?search=zeta", &token).await), (vec!["zeta".to_string()], 1));
    assert_eq!(names(&host.get("/api/contacts?search=user1&limit=1", &token).await).1, 10);
    // Its email still holds bulk15.
    assert_eq!(names(&host.get("/api/contacts?search=bulk15@", &token).await), (vec!["zeta".to_string()], 1));
}

#[tokio::test]
async fn a_term_most_contacts_hold_is_counted_by_the_host_not_checked_one_by_one() {
    let host = Host::start().await;
    let (org, token) = host.org_with_token(json!({ "name": "Search", "plan": "unlimited" })).await;
    seed(&host, &org, 3_000).await;
    let counts = host.store_operations("count_found").await;

    // Every email holds "bench": 3,000 candidates, more than a fifth of the
    // organization, cost more to check than the host's count of every projection.
    let newest: Vec<usize> = (2_990..3_000).rev().collect();
    assert_eq!(names(&host.get("/api/contacts?search=bench&limit=10", &token).await), (users(&newest), 3_000));
    assert_eq!(host.store_operations("count_found").await, counts + 1.0);
    // A rare term is still the index's alone.
    assert_eq!(names(&host.get("/api/contacts?search=user2999", &token).await), (users(&[2_999]), 1));
    assert_eq!(host.store_operations("count_found").await, counts + 1.0);
}

/// The data dir of a stopped host holding an organization of 40 seeded
/// contacts (`user0` .. `user39`), with its id and a token.
async fn forty_contacts_on_disk(name: &str) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(dir.path(), &[]).await;
    let (org, token) = host.org_with_token(json!({ "name": name, "plan": "unlimited" })).await;
    seed(&host, &org, 40).await;
    assert!(host.terminate());
    (dir, org, token)
}

/// Percent-encodes a query value.
fn pct(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Deletes the organization's trigram keys and index counter, as a store
/// written before the index existed holds its contacts, and gives the
/// newest contact's projection the accent and the phone's separators it had
/// before projections were written without (`usér`, `(604) 444-5555`).
fn forget_the_index(data_dir: &std::path::Path, org: &str) {
    let org = org.to_string();
    backend::with_store(data_dir, move |store| {
        let ns = crm_store::Namespace::org(&org);
        let newest = store.scan_reverse(&ns, b"m/contacts/s/", None, 1).unwrap().remove(0);
        let accented =
            String::from_utf8(newest.1).unwrap().replace("user", "usér").replace("6044445555", "(604) 444-5555");
        let mut ops = vec![
            crm_store::BatchOp::Delete(b"m/contacts/meta/search-indexed-4".to_vec()),
            crm_store::BatchOp::Put(newest.0, accented.into_bytes()),
        ];
        let mut from: Option<Vec<u8>> = None;
        loop {
            let keys = store.scan(&ns, b"m/contacts/g/", from.as_deref(), 1000).unwrap();
            let Some((last, _)) = keys.last() else { break };
            from = Some([last.as_slice(), &[0]].concat());
            ops.extend(keys.into_iter().map(|(k, _)| crm_store::BatchOp::Delete(k)));
        }
        assert!(ops.len() > 100, "the contacts had trigram keys");
        store.batch(&ns, ops).unwrap();
    });
}

#[tokio::test]
async fn contacts_stored_before_the_index_are_scanned_until_reindexed() {
    let (dir, org, token) = forty_contacts_on_disk("Legacy").await;
    forget_the_index(dir.path(), &org);
    // The host would rewrite it at start; this test runs the reindex by hand.
    let host = Host::start_in(dir.path(), &[("CRM_REINDEX_AT_START", "false")]).await;

    let twos: Vec<usize> = std::iter::once(2).chain(20..30).rev().collect();
    let before = scans(&host).await;
    assert_eq!(names(&host.get("/api/contacts?search=user2", &token).await), (users(&twos), 11));
    assert_eq!(scans(&host).await, before + 1.0, "without the index, a scan");
    // A contact created now has its keys; the older ones still lack them.
    let r = host.post("/api/contacts", &token, &json!({ "email": "new@bench.co", "firstName": "user2000" })).await;
    assert_eq!(r.status, 201);
    let mut expected = vec!["user2000".to_string()];
    expected.extend(users(&twos));
    assert_eq!(names(&host.get("/api/contacts?search=user2", &token).await), (expected.clone(), 12));
    assert_eq!(scans(&host).await, before + 2.0);

    let phone = "/api/contacts?search=604%20444%205555";
    assert_eq!(names(&host.get(phone, &token).await), (vec![], 0), "the old projection, until the reindex");
    let out = std::process::Command::new(host_binary())
        .args(["admin", "--url", &host.admin, "contacts", "reindex", &org])
        .env("CRM_ADMIN_TOKEN", ADMIN_TOKEN)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer, json!({ "success": true, "indexed": 41 }));

    let after = scans(&host).await;
    assert_eq!(names(&host.get("/api/contacts?search=user2", &token).await), (expected, 12));
    assert_eq!(scans(&host).await, after, "the index answers now");
    // The reindex wrote the accented projection again, without its accent
    // and the separators in its phone.
    assert_eq!(names(&host.get("/api/contacts?search=us%C3%A9r39", &token).await), (users(&[39]), 1));
    assert_eq!(names(&host.get(phone, &token).await), (users(&[39]), 1));
    // A cursor that is not one is refused; a repeat finds the index current.
    let path = format!("/admin/orgs/{org}/contacts/reindex");
    assert_eq!(host.admin(Method::POST, &path, Some(&json!({ "after": 7 }))).await.status, 400);
    let r = host.admin(Method::POST, &path, None).await;
    assert_eq!(
        (r.status.as_u16(), r.json()["indexed"].clone(), r.json()["next"].clone()),
        (200, json!(0), Value::Null)
    );
}

/// An index an earlier version wrote (its projection with accents and the
/// separators in a phone, and that projection's trigram keys) is rewritten
/// by the host at start, without an operator: search finds by the index
/// again, and the old projection's keys are gone.
#[tokio::test]
async fn an_index_an_earlier_version_wrote_is_rewritten_at_start() {
    let (dir, org, token) = forty_contacts_on_disk("Upgraded").await;
    let stale = write_as_an_earlier_version(dir.path(), &org);

    let mut host = Host::start_in(dir.path(), &[]).await;
    let phone = "/api/contacts?search=604%20444%205555";
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while names(&host.get(phone, &token).await).1 == 0 {
        assert!(std::time::Instant::now() < deadline, "the index was not rewritten at start");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let before = scans(&host).await;
    assert_eq!(names(&host.get(phone, &token).await), (users(&[39]), 1));
    assert_eq!(names(&host.get("/api/contacts?search=user39", &token).await), (users(&[39]), 1));
    assert_eq!(scans(&host).await, before, "the index answers");
    assert!(host.terminate());
    let left = backend::with_store(dir.path(), move |store| {
        let ns = crm_store::Namespace::org(&org);
        stale.iter().filter(|k| store.get(&ns, k).unwrap().is_some()).count()
    });
    assert_eq!(left, 0, "the old projection's trigram keys were deleted");
}

/// Rewrites the newest contact's projection and trigram keys as a version
/// before accent-free projections wrote them (`usér39`, `(604) 444-5555`:
/// the trigrams at even positions of each line), without the index counter
/// of this version; answers the keys written.
fn write_as_an_earlier_version(data_dir: &std::path::Path, org: &str) -> Vec<Vec<u8>> {
    let org = org.to_string();
    backend::with_store(data_dir, move |store| {
        let ns = crm_store::Namespace::org(&org);
        let (key, projection) = store.scan_reverse(&ns, b"m/contacts/s/", None, 1).unwrap().remove(0);
        let old =
            String::from_utf8(projection).unwrap().replace("user", "usér").replace("6044445555", "(604) 444-5555");
        // Its posting, from a trigram list only user39 is on (`39@` of its email).
        let (unique, _) = store.scan(&ns, b"m/contacts/g/39@", None, 1).unwrap().remove(0);
        let posting = unique[unique.len() - 18..].to_vec();
        let stale: Vec<Vec<u8>> = ["usé", "ér3", "(60", "04)", ") 4", "4-5"]
            .iter()
            .map(|gram| [format!("m/contacts/g/{gram}").as_bytes(), &posting].concat())
            .collect();
        let mut ops = vec![
            crm_store::BatchOp::Delete(b"m/contacts/meta/search-indexed-4".to_vec()),
            crm_store::BatchOp::Put(key, old.into_bytes()),
        ];
        ops.extend(stale.iter().map(|k| crm_store::BatchOp::Put(k.clone(), Vec::new())));
        store.batch(&ns, ops).unwrap();
        stale
    })
}
