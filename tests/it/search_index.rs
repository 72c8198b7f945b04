//! `search=` through the trigram index: exact totals and creation order,
//! kept exact through renames, found at odd and even positions of a field,
//! from the log of contacts written since the last fold and from the lists
//! a fold writes (in blocks, in order, an old contact renamed included), the
//! host's count for a term most contacts hold, the scan for terms of three
//! characters or fewer, and `crm-host admin contacts reindex` for contacts
//! stored before the index existed (searched by a scan until then) or in
//! the layout before the lists.

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

/// Folds the organization's search log into its trigram lists now (the
/// reindex without a cursor); these tests start their hosts without the
/// background fold, so each search reads the log alone or the lists alone.
async fn fold(host: &Host, org: &str) {
    let r = host.admin(Method::POST, &format!("/admin/orgs/{org}/contacts/reindex"), None).await;
    assert_eq!((r.status.as_u16(), r.json()["next"].clone()), (200, Value::Null), "{}", r.text);
}

#[tokio::test]
async fn the_index_answers_exact_totals_in_creation_order_and_follows_renames() {
    let host = Host::start_with(&NO_BACKGROUND_FOLD).await;
    let (org, token) = host.org_with_token(json!({ "name": "Search", "plan": "unlimited" })).await;
    seed(&host, &org, 30).await;
    let accented = json!({ "email": "maria@tienda.co", "firstName": "Mari\u{301}a", "lastName": "Gómez", "company": "Tienda Ñandú", "mobile": "3001234567" });
    assert_eq!(host.post("/api/contacts", &token, &accented).await.status, 201);
    // A separator inside a trigram is text like any other; inside a number
    // it is dropped (`5/7/9` is searched as `579`).
    let slashes = json!({ "email": "ruta@vias.co", "company": "Ruta 5/7/9 S.A.S" });
    assert_eq!(host.post("/api/contacts", &token, &slashes).await.status, 201);

    // From the log, then from the lists: the same answers, never a scan.
    let before = scans(&host).await;
    every_term_is_found(&host, &token).await;
    fold(&host, &org).await;
    every_term_is_found(&host, &token).await;
    assert_eq!(scans(&host).await, before, "terms of four characters or more never scan");

    // Three characters or fewer: the scan answers, as exactly.
    let r = host.get("/api/contacts?search=r2&limit=100", &token).await;
    assert_eq!(names(&r).1, 11, "user2, user20..user29");
    let r = host.get("/api/contacts?search=r25&limit=100", &token).await;
    assert_eq!(names(&r), (users(&[25]), 1));
    assert_eq!(scans(&host).await, before + 2.0);

    // A rename moves the contact between terms at once, and still after a
    // fold, whose lists keep the old name's postings.
    let id =
        host.get("/api/contacts?search=user15", &token).await.json()["data"][0]["id"].as_str().unwrap().to_string();
    let r = host
        .call(Method::PUT, &format!("/api/contacts/{id}"), Some(&token), Some(&json!({ "firstName": "zeta" })))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    for folded in [false, true] {
        if folded {
            fold(&host, &org).await;
        }
        assert_eq!(names(&host.get("/api/contacts?search=user15", &token).await).1, 0, "folded: {folded}");
        assert_eq!(names(&host.get("/api/contacts?search=zeta", &token).await), (vec!["zeta".to_string()], 1));
        assert_eq!(names(&host.get("/api/contacts?search=user1&limit=1", &token).await).1, 10);
        // Its email still holds bulk15.
        assert_eq!(names(&host.get("/api/contacts?search=bulk15@", &token).await), (vec!["zeta".to_string()], 1));
    }
}

/// The searches of the 30 seeded contacts, María Gómez and Ruta 5/7/9.
async fn every_term_is_found(host: &Host, token: &str) {
    // user1, user10..user19 match; newest first.
    let ones: Vec<usize> = std::iter::once(1).chain(10..20).rev().collect();
    assert_eq!(names(&host.get("/api/contacts?search=user1", token).await), (users(&ones), 11));
    // Found where it starts at an odd position of the field as well.
    assert_eq!(names(&host.get("/api/contacts?search=ser1", token).await), (users(&ones), 11));
    assert_eq!(names(&host.get("/api/contacts?search=USER1&limit=3&page=2", token).await), (users(&ones[3..6]), 11));
    let oldest_first: Vec<usize> = ones.iter().rev().copied().collect();
    assert_eq!(
        names(&host.get("/api/contacts?search=user1&sortOrder=asc&limit=2", token).await),
        (users(&oldest_first[..2]), 11)
    );
    // With a filter the index does not answer: the candidates' records are read.
    let in_bogota: Vec<usize> = ones.iter().copied().filter(|i| i % 2 == 1).collect();
    assert_eq!(names(&host.get("/api/contacts?search=user1&cityCode=11001", token).await), (users(&in_bogota), 6));
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
        let r = host.get(&format!("/api/contacts?search={}", pct(term)), token).await;
        assert_eq!(r.json()["pagination"]["total"], 1, "{term}: {}", r.text);
    }
    // Every window of a field is found, whichever its position's parity.
    let email: Vec<char> = "maria@tienda.co".chars().collect();
    for width in 4..=6 {
        for window in email.windows(width) {
            let term: String = window.iter().collect();
            let r = host.get(&format!("/api/contacts?search={}", pct(&term)), token).await;
            assert_eq!(r.json()["pagination"]["total"], 1, "{term}: {}", r.text);
        }
    }
    // Literal: a term across two fields, or absent, finds nothing.
    for term in ["user1 bulk", "maríagómez", "zzzz", "user1@"] {
        let r = host.get(&format!("/api/contacts?search={}", pct(term)), token).await;
        assert_eq!(r.json()["pagination"]["total"], 0, "{term}");
    }
}

#[tokio::test]
async fn a_term_most_contacts_hold_is_counted_by_the_host_not_checked_one_by_one() {
    let host = Host::start_with(&NO_BACKGROUND_FOLD).await;
    let (org, token) = host.org_with_token(json!({ "name": "Search", "plan": "unlimited" })).await;
    seed(&host, &org, 3_000).await;
    let counts = host.store_operations("count_found").await;

    // From a log of 3,000 (searched by the host), then from the lists.
    for (round, folded) in [false, true].into_iter().enumerate() {
        if folded {
            fold(&host, &org).await;
        }
        // Every email holds "bench": 3,000 candidates, more than a fifth of the
        // organization, cost more to check than the host's count of every projection.
        let newest: Vec<usize> = (2_990..3_000).rev().collect();
        assert_eq!(names(&host.get("/api/contacts?search=bench&limit=10", &token).await), (users(&newest), 3_000));
        let counted = counts + 1.0 + round as f64;
        assert_eq!(host.store_operations("count_found").await, counted, "folded: {folded}");
        // A rare term is still the index's alone.
        assert_eq!(names(&host.get("/api/contacts?search=user2999", &token).await), (users(&[2_999]), 1));
        assert_eq!(host.store_operations("count_found").await, counted);
    }
}

/// A rename gives an old contact trigrams whose lists hold newer contacts:
/// the fold puts its posting in the sealed block whose range holds it (the
/// list's first, for the oldest contact, whose key then changes).
#[tokio::test]
async fn an_old_contact_renamed_joins_the_older_blocks_of_a_list() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(dir.path(), &NO_BACKGROUND_FOLD).await;
    let (org, token) = host.org_with_token(json!({ "name": "Search", "plan": "unlimited" })).await;
    seed(&host, &org, 3_000).await;
    fold(&host, &org).await;
    for old in [0, 500] {
        let r = host.get(&format!("/api/contacts?search=bulk{old}@"), &token).await;
        let id = r.json()["data"][0]["id"].as_str().unwrap().to_string();
        let body = json!({ "firstName": "user2999" });
        let r = host.call(Method::PUT, &format!("/api/contacts/{id}"), Some(&token), Some(&body)).await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let three = (vec!["user2999".to_string(); 3], 3);
    assert_eq!(names(&host.get("/api/contacts?search=user2999", &token).await), three, "from the log");
    fold(&host, &org).await;
    assert_eq!(names(&host.get("/api/contacts?search=user2999", &token).await), three, "from the lists");
    let emails: Vec<String> = host.get("/api/contacts?search=user2999", &token).await.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["email"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(emails, ["bulk2999@bench.co", "bulk500@bench.co", "bulk0@bench.co"], "newest first");
    // Each still found by what it kept, and no longer by its old name.
    assert_eq!(names(&host.get("/api/contacts?search=er2999", &token).await).1, 3);
    assert_eq!(names(&host.get("/api/contacts?search=user500", &token).await).1, 0);

    // `er2` (user2, user20.., user200.., user2000..user2999, and now
    // user0 and user500 too) in sealed blocks and an open one, in order.
    assert!(host.terminate().await);
    let (postings, blocks) =
        backend::with_store(dir.path(), move |store| list_in_order(store, &crm_store::Namespace::org(&org), "er2"));
    assert_eq!(postings, 1_111 + 2);
    assert!(blocks > 2, "{blocks} blocks");
}

/// The postings of one trigram's list and its blocks, checked in order: each
/// sealed block under its first posting, the open block last, postings
/// ascending across them all.
fn list_in_order(store: &dyn crm_store::Store, ns: &crm_store::Namespace, trigram: &str) -> (usize, usize) {
    let prefix = format!("m/contacts/b/{trigram}").into_bytes();
    let blocks = store.scan(ns, &prefix, None, 1000).unwrap();
    let (open, sealed) = blocks.split_last().expect("a list");
    assert_eq!(&open.0[prefix.len()..], b"~", "the open block comes last");
    let mut postings: Vec<&[u8]> = Vec::new();
    for (key, block) in sealed {
        assert_eq!(&key[prefix.len()..], &block[..18], "a sealed block is keyed by its first posting");
    }
    for (_, block) in &blocks {
        postings.extend(block.chunks_exact(18));
    }
    assert!(postings.windows(2).all(|w| w[0] < w[1]), "postings ascend across the blocks");
    (postings.len(), blocks.len())
}

/// A host folds the log into the lists on its own soon after contacts are
/// written: its data dir then holds lists and no log.
#[tokio::test]
async fn a_host_folds_the_log_into_the_lists_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(dir.path(), &[]).await;
    let (org, token) = host.org_with_token(json!({ "name": "Folded", "plan": "unlimited" })).await;
    seed(&host, &org, 300).await;
    let r = host.post("/api/contacts", &token, &json!({ "email": "late@bench.co", "firstName": "Late" })).await;
    assert_eq!(r.status, 201);
    // Four rounds of 200 ms at least (a fold takes epochs two behind the open
    // one); the store can be read only once the host has stopped. A loaded
    // machine may not have folded it all in 5 s: the host is started again
    // (without its reindex at start, so that only the background fold
    // folds) and writes once more, four times at most.
    let mut logged = usize::MAX;
    for round in 0..4 {
        tokio::time::sleep(std::time::Duration::from_secs(5)).await;
        assert_eq!(names(&host.get("/api/contacts?search=user299", &token).await), (users(&[299]), 1));
        assert!(host.terminate().await);
        let ns = crm_store::Namespace::org(&org);
        logged = backend::with_store(dir.path(), move |store| keys_under(store, &ns, b"m/contacts/n/").len());
        if logged == 0 {
            break;
        }
        host = Host::start_in(dir.path(), &[("CRM_REINDEX_AT_START", "false")]).await;
        let again = json!({ "email": format!("late{round}@bench.co"), "firstName": "Late" });
        assert_eq!(host.post("/api/contacts", &token, &again).await.status, 201);
    }
    assert_eq!(logged, 0, "the log was folded");
    let listed = backend::with_store(dir.path(), move |store| {
        keys_under(store, &crm_store::Namespace::org(&org), b"m/contacts/b/").len()
    });
    // A list for each trigram of 301 names and emails.
    assert!(listed > 100, "{listed} blocks");
}

/// The data dir of a stopped host holding an organization of 40 seeded
/// contacts (`user0` .. `user39`), with its id and a token.
async fn forty_contacts_on_disk(name: &str) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(dir.path(), &[]).await;
    let (org, token) = host.org_with_token(json!({ "name": name, "plan": "unlimited" })).await;
    seed(&host, &org, 40).await;
    assert!(host.terminate().await);
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

/// Deletes the organization's search index (its trigram lists, their log
/// and its counter), as a store written before the index existed holds its
/// contacts, and gives the newest contact's projection the accent and the
/// phone's separators it had before projections were written without
/// (`usér`, `(604) 444-5555`).
fn forget_the_index(data_dir: &std::path::Path, org: &str) {
    let org = org.to_string();
    backend::with_store(data_dir, move |store| {
        let ns = crm_store::Namespace::org(&org);
        let newest = store.scan_reverse(&ns, b"m/contacts/s/", None, 1).unwrap().remove(0);
        let accented =
            String::from_utf8(newest.1).unwrap().replace("user", "usér").replace("6044445555", "(604) 444-5555");
        let mut ops = vec![
            crm_store::BatchOp::Delete(b"m/contacts/meta/search-indexed-5".to_vec()),
            crm_store::BatchOp::Put(newest.0, accented.into_bytes()),
        ];
        for prefix in [&b"m/contacts/b/"[..], b"m/contacts/n/"] {
            ops.extend(keys_under(store, &ns, prefix).into_iter().map(crm_store::BatchOp::Delete));
        }
        assert!(ops.len() > 40, "the contacts were in the index");
        store.batch(&ns, ops).unwrap();
    });
}

/// Every key under `prefix`.
fn keys_under(store: &dyn crm_store::Store, ns: &crm_store::Namespace, prefix: &[u8]) -> Vec<Vec<u8>> {
    let (mut keys, mut from) = (Vec::new(), None::<Vec<u8>>);
    loop {
        let chunk = store.scan(ns, prefix, from.as_deref(), 1000).unwrap();
        let Some((last, _)) = chunk.last() else { return keys };
        from = Some([last.as_slice(), &[0]].concat());
        keys.extend(chunk.into_iter().map(|(k, _)| k));
    }
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
    assert!(host.terminate().await);
    let left = backend::with_store(dir.path(), move |store| {
        let ns = crm_store::Namespace::org(&org);
        stale.iter().filter(|k| store.get(&ns, k).unwrap().is_some()).count()
    });
    assert_eq!(left, 0, "the old projection's trigram keys were deleted");
}

/// Rewrites the newest contact's projection and trigram keys as a version
/// before accent-free projections wrote them (`usér39`, `(604) 444-5555`:
/// a key per trigram at an even position of each line, `g/<trigram><posting>`),
/// without the index counter of this version; answers the keys written.
fn write_as_an_earlier_version(data_dir: &std::path::Path, org: &str) -> Vec<Vec<u8>> {
    let org = org.to_string();
    backend::with_store(data_dir, move |store| {
        let ns = crm_store::Namespace::org(&org);
        let (key, projection) = store.scan_reverse(&ns, b"m/contacts/s/", None, 1).unwrap().remove(0);
        let old =
            String::from_utf8(projection).unwrap().replace("user", "usér").replace("6044445555", "(604) 444-5555");
        let posting = newest_posting(store, &ns);
        let stale: Vec<Vec<u8>> = ["usé", "ér3", "(60", "04)", ") 4", "4-5"]
            .iter()
            .map(|gram| [format!("m/contacts/g/{gram}").as_bytes(), &posting].concat())
            .collect();
        let mut ops = vec![
            crm_store::BatchOp::Delete(b"m/contacts/meta/search-indexed-5".to_vec()),
            crm_store::BatchOp::Put(key, old.into_bytes()),
        ];
        ops.extend(stale.iter().map(|k| crm_store::BatchOp::Put(k.clone(), Vec::new())));
        store.batch(&ns, ops).unwrap();
        stale
    })
}

/// The newest contact's posting (18 bytes): its log entry's key, or, once
/// folded, the open block of `39@`, a trigram only `user39`'s email has.
fn newest_posting(store: &dyn crm_store::Store, ns: &crm_store::Namespace) -> Vec<u8> {
    if let Some((logged, _)) = store.scan_reverse(ns, b"m/contacts/n/", None, 1).unwrap().pop() {
        return logged[logged.len() - 18..].to_vec();
    }
    let block = store.get(ns, b"m/contacts/b/39@~").unwrap().expect("the list of 39@");
    assert_eq!(block.len(), 18, "one posting");
    block
}

/// Writes that race folds sealing their epoch (the admin API's reindex
/// seals every epoch written to, the open one too) are refused at their
/// commit and written again in a later epoch: every one is found, from the
/// log or from the lists, none lost between the two. The admin bulk path
/// commits a chunk of rows read over some milliseconds, wide enough a
/// window for a fold to seal and fold the epoch its first rows read.
#[tokio::test]
async fn contacts_written_while_folds_seal_their_epochs_are_all_found() {
    let host = Host::start_with(&NO_BACKGROUND_FOLD).await;
    let (org, token) = host.org_with_token(json!({ "name": "Racing", "plan": "unlimited" })).await;
    let bulk = format!("/admin/orgs/{org}/contacts/bulk");
    let writes = futures_util::future::join_all((0..4).map(|call| {
        let rows: Vec<Value> = (0..500)
            .map(|i| json!({ "email": format!("race{call}x{i}@fold.co"), "firstName": format!("racer{call}x{i:03}") }))
            .collect();
        let (host, bulk) = (&host, &bulk);
        async move { host.admin(Method::POST, bulk, Some(&json!({ "rows": rows }))).await.json()["created"].clone() }
    }));
    let creates = futures_util::future::join_all((0..100).map(|i| {
        let body = json!({ "email": format!("race{i}@fold.co"), "firstName": format!("racer{i:03}") });
        let (host, token) = (&host, &token);
        async move { host.post("/api/contacts", token, &body).await.status }
    }));
    // While writes land, the index's counters (contacts, contacts indexed)
    // may be read between two commits: `next` is not asserted here.
    let folds = async {
        for _ in 0..40 {
            let r = host.admin(Method::POST, &format!("/admin/orgs/{org}/contacts/reindex"), None).await;
            assert_eq!(r.status, 200, "{}", r.text);
        }
    };
    let (created, statuses, ()) = tokio::join!(writes, creates, folds);
    assert_eq!(created, vec![json!(500); 4]);
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
    for folded in [false, true] {
        if folded {
            fold(&host, &org).await;
        }
        let r = host.get("/api/contacts?search=racer&limit=1", &token).await;
        assert_eq!(names(&r).1, 2_100, "folded: {folded}");
        for name in ["racer000", "racer057", "racer099", "racer0x000", "racer1x250", "racer3x499"] {
            let r = host.get(&format!("/api/contacts?search={name}"), &token).await;
            assert_eq!(names(&r), (vec![name.to_string()], 1), "folded: {folded}");
        }
    }
}
