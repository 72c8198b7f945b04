//! Hosts near the customers on one dataset: an edge host reads from a
//! PostgreSQL hot standby beside it and forwards its writes over a WAN to a
//! host beside the primary (`host/server/src/edge/`).
//!
//! Each test builds its own site: a throw-away primary, a write host beside
//! it, a standby made with `pg_basebackup -R` that streams the primary's log
//! over a WAN link, and an edge host whose links to the primary and to the
//! write host are WAN links too (`crm_tests::wan`: 15 ms each way, 30 ms of
//! round trip, and a link a test can cut).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crm_store_testkit::throwaway::Throwaway;
use crm_tests::wan::Wan;
use crm_tests::*;

const ONE_WAY: Duration = Duration::from_millis(15);
/// The settings of the primary and of each standby.
const SERVER: &[&str] = &["fsync=off", "max_connections=300"];

/// One site: the primary side, and edge hosts each with a standby.
struct Site {
    primary: Throwaway,
    write_host: Host,
    /// The WAN from the edge side to the primary's database and to the write host.
    to_database: Wan,
    to_write_host: Wan,
    edges: Vec<Edge>,
}

struct Edge {
    host: Host,
    standby: Throwaway,
    /// The standby's stream from the primary.
    stream: Wan,
}

impl Site {
    /// The primary side, and one edge host whose standby streams over a
    /// link of `stream_delay` each way.
    async fn new(stream_delay: Duration) -> Site {
        let primary = Throwaway::start(SERVER).expect("start the primary");
        let url = primary.database("crm").unwrap();
        let write_host = Host::start_with(&[("CRM_STORE_URL", &url), ("CRM_TRUST_FORWARDED_FOR", "127.0.0.1")]).await;
        let to_database = Wan::to(primary.port(), ONE_WAY);
        let to_write_host = Wan::to(port_of(&write_host.api), ONE_WAY);
        let mut site = Site { primary, write_host, to_database, to_write_host, edges: Vec::new() };
        site.add_edge(stream_delay, true).await;
        site
    }

    /// Another edge host, on a standby of its own; with `forward`, its
    /// writes go to the write host.
    async fn add_edge(&mut self, stream_delay: Duration, forward: bool) {
        let stream = Wan::to(self.primary.port(), stream_delay);
        let standby = Throwaway::standby_of(&self.primary, stream.port(), SERVER).expect("start a standby");
        let primary_url = format!("postgres://postgres@127.0.0.1:{}/crm", self.to_database.port());
        let write_host_url = format!("http://127.0.0.1:{}", self.to_write_host.port());
        let read_url = standby.url("crm");
        let mut env = vec![("CRM_STORE_URL", primary_url.as_str()), ("CRM_STORE_READ_URL", read_url.as_str())];
        if forward {
            env.push(("CRM_WRITE_HOST_URL", &write_host_url));
        }
        let host = Host::start_with(&env).await;
        // Streaming starts a few round trips after the standby opens.
        let until = Instant::now() + Duration::from_secs(30);
        while store_state(&host).await["stalenessMs"].is_null() {
            assert!(Instant::now() < until, "the standby never caught up: {}", store_state(&host).await);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.edges.push(Edge { host, standby, stream });
    }

    fn edge(&self) -> &Host {
        &self.edges[0].host
    }

    /// Cuts the edge side off the primary: its database, its write host and
    /// every standby's stream; first waits until every standby has replayed
    /// what the primary has flushed, so that what was written before the cut
    /// is there to read (a write's answer can reach the client before its
    /// log reaches a standby: the two cross the same link).
    fn cut(&self) {
        let flushed = self.primary.answer("postgres", "SELECT pg_current_wal_flush_lsn()").unwrap();
        let caught_up = format!("SELECT pg_last_wal_replay_lsn() >= '{flushed}'::pg_lsn");
        let until = Instant::now() + Duration::from_secs(10);
        for edge in &self.edges {
            while edge.standby.answer("postgres", &caught_up).unwrap() != "t" {
                assert!(Instant::now() < until, "a standby did not replay up to {flushed} in 10 s");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        self.to_database.cut();
        self.to_write_host.cut();
        self.edges.iter().for_each(|e| e.stream.cut());
    }

    fn mend(&self) {
        self.to_database.mend();
        self.to_write_host.mend();
        self.edges.iter().for_each(|e| e.stream.mend());
    }
}

fn port_of(url: &str) -> u16 {
    url.rsplit(':').next().unwrap().trim_end_matches('/').parse().unwrap()
}

/// An edge host's `/readyz` store state.
async fn store_state(host: &Host) -> Value {
    let r = host.call(Method::GET, "/readyz", None, None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.json()["store"].clone()
}

/// Reads served by one side of an edge host's store, from its metrics.
async fn reads_on(host: &Host, side: &str) -> f64 {
    host.labelled_metric("crm_store_reads_total", &format!(r#"side="{side}""#)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_reads_its_own_writes_through_its_edge_host_and_reads_stay_local() {
    let site = Site::new(ONE_WAY).await;
    let (_, token) = site.write_host.org_with_token(json!({ "name": "Acme" })).await;
    let edge = site.edge();
    assert_eq!(store_state(edge).await["mode"], "edge");
    let mut stale = Vec::new();
    for i in 0..200 {
        let created = edge.post("/api/contacts", &token, &json!({ "email": format!("c{i}@acme.co") })).await;
        assert_eq!(created.status, 201, "{}", created.text);
        assert!(created.header("crm-bookmark").is_some(), "a write's answer carries its bookmark");
        let id = created.json()["data"]["id"].as_str().unwrap().to_string();
        let read = edge.get(&format!("/api/contacts/{id}"), &token).await;
        if read.status != 200 {
            stale.push((i, read.status));
        }
    }
    assert_eq!(stale, vec![], "every read after a write through the same host sees it");
    let listed = edge.get("/api/contacts?limit=1", &token).await;
    assert_eq!(listed.json()["pagination"]["total"], 200, "{}", listed.text);
    // Without writes in between, reads are the replica's.
    let before = reads_on(edge, "replica").await;
    for _ in 0..50 {
        assert_eq!(edge.get("/api/me", &token).await.status, 200);
    }
    assert!(reads_on(edge, "replica").await - before >= 50.0, "plain reads are served by the replica");
}

/// A read asked again while the standby replays nothing new is answered
/// from what the edge host kept (`crm_store::read_cache`); a write through
/// another host still reaches it within the bound, bookmark or not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_asked_again_is_answered_from_memory_until_the_standby_moves() {
    let site = Site::new(ONE_WAY).await;
    let (_, token) = site.write_host.org_with_token(json!({ "name": "Acme" })).await;
    assert_eq!(site.write_host.post("/api/contacts", &token, &json!({ "email": "a@acme.co" })).await.status, 201);
    let edge = site.edge();
    let hits = || edge.labelled_metric("crm_store_read_cache_total", r#"outcome="hit""#);
    let page = "/api/contacts?limit=20";
    // Once the standby holds the token and the contact.
    let until = Instant::now() + Duration::from_secs(30);
    let first = loop {
        let first = edge.get(page, &token).await;
        if first.json()["pagination"]["total"] == 1 || Instant::now() > until {
            break first;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(first.json()["pagination"]["total"], 1, "{}", first.text);
    // Twice in a row, barring the standby replaying a background write in between.
    let mut kept = false;
    for _ in 0..20 {
        let before = hits().await;
        let again = edge.get(page, &token).await;
        assert_eq!(again.json()["data"], first.json()["data"]);
        if hits().await > before {
            kept = true;
            break;
        }
    }
    assert!(kept, "a page asked again is answered from memory");
    // Another client writes through the write host; its answer never comes
    // here, yet the edge host's page shows it within the bound.
    assert_eq!(site.write_host.post("/api/contacts", &token, &json!({ "email": "b@acme.co" })).await.status, 201);
    let written = Instant::now();
    while edge.get(page, &token).await.json()["pagination"]["total"] != 2 {
        // Within the standby's lag, which the staleness bound (5 s) caps.
        assert!(written.elapsed() < Duration::from_secs(6), "a kept page gives way once the standby moves");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bookmark_carried_to_another_edge_host_is_served_at_least_that_fresh() {
    let mut site = Site::new(ONE_WAY).await;
    // The second edge's standby is 400 ms behind on its stream.
    site.add_edge(Duration::from_millis(400), true).await;
    let (_, token) = site.write_host.org_with_token(json!({ "name": "Acme" })).await;
    let (near, far) = (&site.edges[0].host, &site.edges[1].host);
    // Until its replica holds the token, the far host reads the primary
    // for it (a token made a moment ago): let it arrive.
    tokio::time::sleep(Duration::from_secs(1)).await;
    // A try where the far replica had caught up already (the machine took
    // 400 ms between the write and the read) proves nothing: it is not
    // counted, and five must be.
    let mut behind = 0;
    for i in 0..20 {
        if behind == 5 {
            break;
        }
        let created = near.post("/api/contacts", &token, &json!({ "email": format!("b{i}@acme.co") })).await;
        assert_eq!(created.status, 201, "{}", created.text);
        let id = created.json()["data"]["id"].as_str().unwrap().to_string();
        let bookmark = created.header("crm-bookmark").unwrap().to_string();
        let path = format!("/api/contacts/{id}");
        let without = far.get(&path, &token).await;
        if without.status == 404 {
            behind += 1;
        } else {
            assert_eq!(without.status, 200, "{}", without.text);
        }
        let started = Instant::now();
        let with = far.request(Method::GET, &path).bearer_auth(&token).header("Crm-Bookmark", &bookmark).send().await;
        let with = with.unwrap();
        assert_eq!(with.status(), 200, "the bookmark's write is seen on another host");
        assert!(started.elapsed() < Duration::from_secs(5));
        let answered = with.headers()["crm-bookmark"].to_str().unwrap().to_string();
        assert!(answered >= bookmark, "an answer is at least as fresh as the bookmark sent");
    }
    assert_eq!(behind, 5, "the far replica is behind: the test would prove nothing otherwise");
    let r = far.request(Method::GET, "/api/me").bearer_auth(&token).header("Crm-Bookmark", "yesterday").send().await;
    let r = r.unwrap();
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "VALIDATION_ERROR");
}

/// What the README's staleness bound promises: a token revoked, an
/// organization deleted or a form key rotated through the write host is
/// refused by an edge host within the bound (its standby's lag, at most the
/// 5 s staleness bound, the 0.5 s it keeps a verified token, the watch's
/// 100 ms: 6 s), every answer it read before kept or not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revoked_tokens_deleted_organizations_and_rotated_form_keys_are_refused_by_an_edge_host_within_the_bound() {
    let site = Site::new(ONE_WAY).await;
    let write_host = &site.write_host;
    let org = write_host.create_org(json!({ "name": "Acme" })).await;
    let (id, token) = write_host.create_token_with(&org, json!({ "name": "t", "permissions": ["*"] })).await;
    let (gone_org, gone_token) = write_host.org_with_token(json!({ "name": "Gone" })).await;
    let forms = format!("/admin/orgs/{org}/forms");
    let form = write_host.admin(Method::POST, &forms, Some(&json!({ "name": "Contacto" }))).await.json();
    let (form_id, key) = (form["id"].as_str().unwrap(), form["publicKey"].as_str().unwrap());
    let submit = format!("/api/v1/forms/submit/{form_id}?key={key}");
    let edge = site.edge();
    tokio::time::sleep(Duration::from_millis(500)).await; // the standby holds all three
    assert_eq!(edge.get("/api/me", &token).await.status, 200);
    assert_eq!(edge.get("/api/me", &gone_token).await.status, 200);
    assert_eq!(edge.call(Method::POST, &submit, None, Some(&json!({ "email": "a@x.co" }))).await.status, 201);

    let r = write_host.admin(Method::DELETE, &format!("/admin/orgs/{org}/tokens/{id}"), None).await;
    assert_eq!(r.status, 204);
    assert_eq!(write_host.admin(Method::DELETE, &format!("/admin/orgs/{gone_org}"), None).await.status, 204);
    let r = write_host.admin(Method::POST, &format!("{forms}/{form_id}/rotate-key"), None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let changed = Instant::now();
    let refused = |status: u16, expected: &str, r: &Reply| r.status == status && r.json()["code"] == expected;
    let mut left = vec!["token", "organization", "form key"];
    while !left.is_empty() {
        // At most the staleness bound (5 s) and the 0.5 s a verified token is kept.
        assert!(changed.elapsed() < Duration::from_secs(6), "refused within the bound: {left:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
        let token_refused = refused(401, "API_TOKEN_REVOKED", &edge.get("/api/me", &token).await);
        let org_refused = refused(401, "ORGANIZATION_NOT_FOUND", &edge.get("/api/me", &gone_token).await);
        let form = edge.call(Method::POST, &submit, None, Some(&json!({ "email": "b@x.co" }))).await;
        let key_refused = refused(401, "FORM_KEY_INVALID", &form);
        left.retain(|what| match *what {
            "token" => !token_refused,
            "organization" => !org_refused,
            _ => !key_refused,
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_upserts_of_one_email_through_two_edge_hosts_make_one_contact() {
    let mut site = Site::new(ONE_WAY).await;
    site.add_edge(ONE_WAY, true).await;
    let (_, token) = site.write_host.org_with_token(json!({ "name": "Acme" })).await;
    let body = json!({ "email": "ana@acme.co", "firstName": "Ana" });
    let replies =
        futures_util::future::join_all((0..30).map(|i| site.edges[i % 2].host.post("/api/contacts", &token, &body)))
            .await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 29, "{statuses:?}");
    for edge in &site.edges {
        let listed = edge.host.get("/api/contacts", &token).await;
        assert_eq!(listed.json()["pagination"]["total"], 1, "{}", listed.text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_link_refuses_writes_at_once_keeps_reads_and_heals_without_a_restart() {
    let site = Site::new(ONE_WAY).await;
    let (_, token) = site.write_host.org_with_token(json!({ "name": "Acme" })).await;
    let edge = site.edge();
    let created = edge.post("/api/contacts", &token, &json!({ "email": "before@acme.co" })).await;
    assert_eq!(created.status, 201);
    let id = created.json()["data"]["id"].as_str().unwrap().to_string();

    site.cut();
    // A write sent the moment the link goes answers within 2 s, never hangs.
    let started = Instant::now();
    // Its outcome is unknown, as on any lost connection: its bytes may
    // reach the write host once the link is back.
    let r = edge.post("/api/contacts", &token, &json!({ "email": "in-flight@acme.co" })).await;
    assert!(started.elapsed() < Duration::from_secs(5), "answered in {:?}", started.elapsed());
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (503, json!("STORE_UNAVAILABLE")), "{}", r.text);
    assert_eq!(r.header("retry-after"), Some("1"));
    let until = Instant::now() + Duration::from_secs(10);
    while store_state(edge).await["mode"] != "edge-read-only" {
        assert!(Instant::now() < until, "the primary is known lost: {}", store_state(edge).await);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let started = Instant::now();
    let r = edge.post("/api/contacts", &token, &json!({ "email": "refused@acme.co" })).await;
    assert_eq!(r.status, 503);
    assert!(started.elapsed() < Duration::from_secs(1), "refused at once once the primary is known lost");
    // Reads answer from the replica, saying how far behind it may be.
    let read = edge.get(&format!("/api/contacts/{id}"), &token).await;
    assert_eq!(read.status, 200, "{}", read.text);
    let staleness: u64 = read.header("crm-staleness-ms").expect("a staleness header").parse().unwrap();
    assert!(staleness >= 1000, "{staleness}");
    assert_eq!(edge.get("/api/me", &token).await.status, 200);

    site.mend();
    let mended = Instant::now();
    loop {
        let r = edge.post("/api/contacts", &token, &json!({ "email": "after@acme.co" })).await;
        if r.status == 201 {
            break;
        }
        assert_eq!(r.status, 503, "{}", r.text);
        assert!(mended.elapsed() < Duration::from_secs(10), "writes resume once the link is back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let listed = site.write_host.get("/api/contacts?limit=100", &token).await.json();
    let emails: HashSet<&str> =
        listed["data"].as_array().unwrap().iter().map(|c| c["email"].as_str().unwrap()).collect();
    assert!(emails.contains("before@acme.co") && emails.contains("after@acme.co"), "{emails:?}");
    assert!(!emails.contains("refused@acme.co"), "a write refused at once was never sent");
    assert_eq!(listed["pagination"]["total"], emails.len(), "the count is exact");
    let state = store_state(edge).await;
    assert_eq!((state["primary"].clone(), state["replica"].clone()), (json!("up"), json!("up")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_its_replica_down_an_edge_host_reads_the_primary() {
    let site = Site::new(ONE_WAY).await;
    let (_, token) = site.write_host.org_with_token(json!({ "name": "Acme" })).await;
    let edge = site.edge();
    assert_eq!(edge.post("/api/contacts", &token, &json!({ "email": "a@acme.co" })).await.status, 201);
    site.edges[0].standby.crash().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while store_state(edge).await["mode"] != "edge-primary-only" {
        assert!(Instant::now() < until, "the replica is known down: {}", store_state(edge).await);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let before = reads_on(edge, "primary").await;
    let listed = edge.get("/api/contacts", &token).await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    assert_eq!(listed.json()["pagination"]["total"], 1);
    assert!(listed.header("crm-staleness-ms").is_none());
    assert_eq!(reads_on(edge, "primary").await - before, 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_edge_host_loses_no_write_it_acknowledged() {
    let mut site = Site::new(ONE_WAY).await;
    let (_, token) = site.write_host.org_with_token(json!({ "name": "Acme" })).await;
    let client = reqwest::Client::new();
    let api = site.edge().api.clone();
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let (client, api, token) = (client.clone(), api.clone(), token.clone());
            tokio::spawn(async move {
                let mut acknowledged = Vec::new();
                for i in 0.. {
                    let body = json!({ "email": format!("w{w}-{i}@acme.co") });
                    let sent = client.post(format!("{api}/api/contacts")).bearer_auth(&token).json(&body).send();
                    match sent.await {
                        Ok(r) if r.status() == 201 => {
                            let v: Value = r.json().await.unwrap();
                            acknowledged.push(v["data"]["id"].as_str().unwrap().to_string());
                        }
                        _ => break,
                    }
                }
                acknowledged
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    site.edges[0].host.kill9();
    let mut acknowledged = HashSet::new();
    for writer in writers {
        acknowledged.extend(writer.await.unwrap());
    }
    assert!(acknowledged.len() >= 20, "the writers wrote: {}", acknowledged.len());
    for id in &acknowledged {
        let r = site.write_host.get(&format!("/api/contacts/{id}"), &token).await;
        assert_eq!(r.status, 200, "acknowledged {id} is kept");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_of_a_host_on_postgresql_carries_a_bookmark_and_a_host_on_sled_none() {
    let site = Site::new(ONE_WAY).await;
    let (_, token) = site.write_host.org_with_token(json!({ "name": "Acme" })).await;
    let first = site.write_host.post("/api/contacts", &token, &json!({ "email": "a@acme.co" })).await;
    let second = site.write_host.post("/api/contacts", &token, &json!({ "email": "b@acme.co" })).await;
    let (first, second) = (first.header("crm-bookmark").unwrap(), second.header("crm-bookmark").unwrap());
    assert!(second > first, "a later write's bookmark is later: {first} {second}");
    assert!(site.write_host.get("/api/me", &token).await.header("crm-bookmark").is_some());
    if !backend::is_postgres() {
        let sled = Host::start().await;
        let token = sled.demo_token.clone().unwrap();
        assert!(sled.get("/api/me", &token).await.header("crm-bookmark").is_none(), "sled has no replicas");
    }
}

/// Without a write host, an edge host still serves writes, on the primary
/// alone: what a write reads to decide (is this email known?) is what it
/// writes against, never the replica.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_write_host_an_edge_host_writes_on_the_primary_itself() {
    let mut site = Site::new(ONE_WAY).await;
    // Its standby 400 ms behind: a write that read it would decide on old data.
    site.add_edge(Duration::from_millis(400), false).await;
    let (org, token) = site.write_host.org_with_token(json!({ "name": "Acme" })).await;
    let other = site.write_host.create_token(&org, &["*"]).await;
    let edge = &site.edges[1].host;
    let created = edge.post("/api/contacts", &token, &json!({ "email": "ana@acme.co", "firstName": "Ana" })).await;
    assert_eq!(created.status, 201, "{}", created.text);
    let id = created.json()["data"]["id"].as_str().unwrap().to_string();
    let path = format!("/api/contacts/{id}");
    tokio::time::sleep(Duration::from_secs(1)).await; // the standby holds the contact and both tokens
    // Two clients edit one contact, one right after the other, before the
    // standby holds the first edit: neither edit is lost.
    let first = edge.call(Method::PUT, &path, Some(&token), Some(&json!({ "firstName": "Ana María" }))).await;
    assert_eq!(first.status, 200, "{}", first.text);
    let second = edge.call(Method::PUT, &path, Some(&other), Some(&json!({ "lastName": "Gómez" }))).await;
    assert_eq!(second.status, 200, "{}", second.text);
    let kept = site.write_host.get(&path, &token).await.json()["data"].clone();
    assert_eq!((&kept["firstName"], &kept["lastName"]), (&json!("Ana María"), &json!("Gómez")), "{kept}");
    // Each client reads its own write through the host (remembered, as a forwarded one is).
    let read = edge.get(&path, &other).await;
    assert_eq!(read.json()["data"]["lastName"], "Gómez", "{}", read.text);
}

/// `n` requests at once that each declare a 16 MiB import and wait to be
/// asked for it (`Expect: 100-continue`), with `headers`: what the edge
/// host answers each, read within 10 s (`100 Continue` when it would read
/// the body).
async fn heads_of_imports(edge: &Host, n: usize, headers: &str) -> Vec<String> {
    let uploads = (0..n).map(|_| {
        let (api, headers) = (edge.api.clone(), format!("{headers}Expect: 100-continue\r\n"));
        tokio::task::spawn_blocking(move || post_head_only(&api, "/api/import/contacts", &headers, 16 << 20))
    });
    futures_util::future::join_all(uploads).await.into_iter().map(Result::unwrap).collect()
}

/// What a client without a valid token can make an edge host do: nothing
/// it holds, forwards or waits on. Twenty unauthenticated 16 MiB imports
/// are refused on their heads (none of their bytes held or sent across the
/// WAN) while an authenticated client's import goes through; a far-future
/// bookmark without a token is refused at once instead of waited on; a
/// made-up token is asked of the primary once, then refused locally; a
/// public form id nobody published is answered here, not forwarded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edge_host_checks_a_caller_before_it_holds_forwards_or_waits() {
    let site = Site::new(ONE_WAY).await;
    let (org, token) = site.write_host.org_with_token(json!({ "name": "Acme" })).await;
    let reader = site.write_host.create_token(&org, &["contacts:read"]).await;
    let edge = site.edge();
    let forwarded = || edge.labelled_metric("crm_http_requests_total", r#"route="(forwarded to the write host)""#);
    tokio::time::sleep(Duration::from_secs(1)).await; // the standby holds both tokens

    let (refusals, ours) = tokio::join!(heads_of_imports(edge, 20, ""), async {
        let rows: Vec<Value> = (0..200).map(|i| json!({ "email": format!("row{i}@acme.co") })).collect();
        edge.post("/api/import/contacts", &token, &json!({ "rows": rows })).await
    });
    for answer in &refusals {
        assert!(answer.starts_with("HTTP/1.1 401"), "refused on its head, its body never waited for: {answer}");
        assert!(answer.contains("API_TOKEN_MISSING"), "{answer}");
    }
    assert_eq!(ours.status, 200, "the authenticated import is served as before: {}", ours.text);
    assert_eq!(ours.json()["data"]["created"], 200, "{}", ours.text);
    // A token without the route's permission is refused before its body too.
    for answer in heads_of_imports(edge, 3, &format!("Authorization: Bearer {reader}\r\n")).await {
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    }
    assert_eq!(forwarded().await, 1.0, "only the authenticated import crossed the WAN");

    // A far-future bookmark without a token: refused, not waited on (the
    // wait is 100 ms, then a read on the primary a WAN round trip away).
    let mut took = Vec::new();
    for _ in 0..9 {
        let started = Instant::now();
        let r = send_request(edge.request(Method::GET, "/api/me").header("crm-bookmark", "ffffffffffffffff")).await;
        took.push(started.elapsed());
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (401, json!("API_TOKEN_MISSING")), "{}", r.text);
    }
    took.sort();
    assert!(took[4] < Duration::from_millis(20), "refused at once: {took:?}");

    // A made-up token: the primary is asked once, then the refusal is kept.
    let made_up = "crm_6b0f44ff000002b586ae01db_9d42fbfa1089b8dc6b8e93c43ee4aa362ec2322696f5fe00";
    assert_eq!(edge.get("/api/me", made_up).await.status, 401);
    let gets = edge.store_operations("get").await;
    for _ in 0..20 {
        let r = edge.get("/api/me", made_up).await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (401, json!("API_TOKEN_INVALID")), "{}", r.text);
    }
    let asked = edge.store_operations("get").await - gets;
    assert!(asked <= 20.0, "one lookup each, on the replica alone: {asked} for 20");

    // A public form id nobody published is answered here, unbound.
    let before = forwarded().await;
    for _ in 0..5 {
        let path = "/api/v1/forms/submit/0123456789abcdef01234567?key=pk_nobody";
        let r = edge.call(Method::POST, path, None, Some(&json!({ "email": "x@y.co" }))).await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("FORM_NOT_FOUND")), "{}", r.text);
    }
    assert_eq!(forwarded().await, before, "none of them crossed the WAN");
}

async fn send_request(req: reqwest::RequestBuilder) -> Reply {
    let r = req.send().await.expect("sent");
    let (status, headers) = (r.status(), r.headers().clone());
    Reply { status, headers, text: r.text().await.unwrap() }
}

/// A real form's submits cross the WAN within the form's rate, counted on
/// the edge host too: once a client is over it, its submits are refused
/// there, the write host never hearing of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edge_host_counts_a_public_form_s_rate_before_it_forwards() {
    let primary = Throwaway::start(SERVER).expect("start the primary");
    let url = primary.database("crm").unwrap();
    let env = [("CRM_STORE_URL", url.as_str()), ("CRM_FORM_RATE_PER_MINUTE", "3")];
    let write_host = Host::start_with(&env).await;
    let standby = Throwaway::standby_of(&primary, primary.port(), SERVER).expect("start a standby");
    let (read_url, write_url) = (standby.url("crm"), write_host.api.clone());
    let edge = Host::start_with(&[
        ("CRM_STORE_URL", url.as_str()),
        ("CRM_STORE_READ_URL", read_url.as_str()),
        ("CRM_WRITE_HOST_URL", write_url.as_str()),
        ("CRM_FORM_RATE_PER_MINUTE", "3"),
    ])
    .await;
    let (org, _) = write_host.org_with_token(json!({ "name": "Tienda" })).await;
    let form = write_host.admin(Method::POST, &format!("/admin/orgs/{org}/forms"), Some(&json!({ "name": "F" }))).await;
    let (id, key) =
        (form.json()["id"].as_str().unwrap().to_string(), form.json()["publicKey"].as_str().unwrap().to_string());
    well_inside_a_minute().await;
    let path = format!("/api/v1/forms/submit/{id}?key={key}");
    let mut statuses = Vec::new();
    for i in 0..6 {
        let r = edge.call(Method::POST, &path, None, Some(&json!({ "email": format!("lead{i}@x.co") }))).await;
        statuses.push(r.status.as_u16());
    }
    assert_eq!(statuses, [201, 201, 201, 429, 429, 429], "the form's made a moment ago is found on the primary");
    let forwards = edge.labelled_metric("crm_http_requests_total", r#"route="(forwarded to the write host)""#).await;
    assert_eq!(forwards, 3.0, "the refused ones never crossed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edge_host_tries_its_write_hosts_in_order_and_skips_a_dead_one() {
    let site = Site::new(ONE_WAY).await;
    let (_, token) = site.write_host.org_with_token(json!({ "name": "Acme" })).await;
    // A second edge host whose first write host is a port nobody listens on.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let primary_url = format!("postgres://postgres@127.0.0.1:{}/crm", site.to_database.port());
    let read_url = site.edges[0].standby.url("crm");
    let hosts = format!("http://127.0.0.1:{dead},http://127.0.0.1:{}", site.to_write_host.port());
    let edge = Host::start_with(&[
        ("CRM_STORE_URL", primary_url.as_str()),
        ("CRM_STORE_READ_URL", read_url.as_str()),
        ("CRM_WRITE_HOST_URL", hosts.as_str()),
    ])
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await; // the standby holds the token
    for i in 0..5 {
        let r = edge.post("/api/contacts", &token, &json!({ "email": format!("w{i}@acme.co") })).await;
        assert_eq!(r.status, 201, "the next write host took it: {}", r.text);
    }
    let listed = site.write_host.get("/api/contacts", &token).await;
    assert_eq!(listed.json()["pagination"]["total"], 5, "{}", listed.text);
}
