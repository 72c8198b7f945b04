//! The loss of the PostgreSQL primary's machine, under writes: a
//! pg_auto_failover cluster (a monitor, two data nodes, synchronous
//! replication) promotes the standby, and the hosts follow without a
//! restart. Two write hosts are given the manager's multi-host URL as it
//! hands it out; an edge host reads the standby and forwards its writes to
//! both write hosts. Every answer in the gap is a 2xx or a 503 with
//! `Retry-After`, nothing acknowledged is lost, background work resumes, and
//! the old primary's return as a standby changes nothing, three times over.
//! The same hosts follow a standby promoted by hand (`pg_ctl promote`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crm_store_testkit::throwaway::Throwaway;
use crm_tests::failover::Cluster;
use crm_tests::receiver::{Answer, Receiver};
use crm_tests::*;
use tokio::task::JoinHandle;

/// What one request of a writer or reader got.
#[derive(Debug)]
struct Answered {
    at: Instant,
    status: u16,
    retry_after: bool,
    /// The created contact's id, for a 201.
    id: Option<String>,
    /// The request got no answer at all (a connection error, or none within 10 s).
    failed: Option<String>,
}

/// A client that gives up after 10 s: a hang to its timeout is a failure.
fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap()
}

async fn answered(at: Instant, sent: reqwest::RequestBuilder) -> Answered {
    match sent.send().await {
        Ok(r) => {
            let (status, retry_after) = (r.status().as_u16(), r.headers().contains_key("retry-after"));
            let body: Value = r.json().await.unwrap_or(Value::Null);
            let id = body["data"]["id"].as_str().map(str::to_string);
            Answered { at, status, retry_after, id, failed: None }
        }
        Err(e) => Answered { at, status: 0, retry_after: false, id: None, failed: Some(e.to_string()) },
    }
}

/// Creates contacts through `api` until `stop`, each with an email of its own.
fn writer(api: String, token: String, name: String, stop: Arc<AtomicBool>) -> JoinHandle<Vec<Answered>> {
    tokio::spawn(async move {
        let client = client();
        let mut answers = Vec::new();
        for i in 0.. {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let body = json!({ "email": format!("{name}-{i}@acme.co") });
            let sent = client.post(format!("{api}/api/contacts")).bearer_auth(&token).json(&body);
            let answer = answered(Instant::now(), sent).await;
            if answer.status == 503 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            answers.push(answer);
        }
        answers
    })
}

/// Reads through `api` until `stop`: a page of contacts, and `/me`.
fn reader(api: String, token: String, stop: Arc<AtomicBool>) -> JoinHandle<Vec<Answered>> {
    tokio::spawn(async move {
        let client = client();
        let mut answers = Vec::new();
        while !stop.load(Ordering::SeqCst) {
            for path in ["/api/contacts?limit=5", "/api/me"] {
                answers.push(answered(Instant::now(), client.get(format!("{api}{path}")).bearer_auth(&token)).await);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        answers
    })
}

/// Every answer that is neither a 2xx nor a 503 with `Retry-After`.
fn wrong(answers: &[Answered]) -> Vec<String> {
    answers
        .iter()
        .filter(|a| !((200..300).contains(&a.status) || (a.status == 503 && a.retry_after)))
        .map(|a| format!("{} {:?}", a.status, a.failed))
        .collect()
}

/// Seconds after `lost` of the first 201 in `answers` sent after it.
fn first_write_after(answers: &[Answered], lost: Instant) -> Option<f64> {
    answers.iter().find(|a| a.at >= lost && a.status == 201).map(|a| (a.at - lost).as_secs_f64())
}

/// Seconds after `lost` (a Unix time) of the first event after it whose
/// description says `what`.
fn event_after(cluster: &Cluster, lost: f64, what: &str) -> Option<f64> {
    cluster.events().into_iter().find(|e| e.at >= lost && e.description.contains(what)).map(|e| e.at - lost)
}

fn unix_now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64()
}

/// Waits until `host`'s `/readyz` store mode is `mode`; whether it was
/// within `within` (the modes seen meanwhile go to the test's output).
async fn mode_becomes(host: &Host, mode: &str, within: Duration) -> bool {
    let seen = std::sync::Mutex::new(Vec::new());
    let became = crm_tests::shop::eventually(within, || async {
        let store = host.call(Method::GET, "/readyz", None, None).await.json()["store"].clone();
        let mut seen = seen.lock().unwrap();
        if seen.last() != Some(&store["mode"]) {
            seen.push(store["mode"].clone());
        }
        store["mode"] == mode
    })
    .await;
    if !became {
        eprintln!("waited for {mode}, saw {:?}", seen.lock().unwrap());
    }
    became
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_loss_of_the_primary_s_machine_is_survived_three_times_with_nothing_acknowledged_lost() {
    let cluster = Cluster::start();
    let common = [("CRM_STORE_URL", cluster.url.as_str()), ("CRM_WEBHOOK_ALLOW_PRIVATE", "true")];
    let a = Host::start_with(&[&common[..], &[("CRM_TRUST_FORWARDED_FOR", "127.0.0.1")]].concat()).await;
    let b = Host::start_with(&[&common[..], &[("CRM_TRUST_FORWARDED_FOR", "127.0.0.1")]].concat()).await;
    let (standby, write_hosts) = (cluster.standby_url(), format!("{},{}", a.api, b.api));
    let edge = Host::start_with(&[
        ("CRM_STORE_URL", cluster.url.as_str()),
        ("CRM_STORE_READ_URL", standby.as_str()),
        ("CRM_WRITE_HOST_URL", write_hosts.as_str()),
    ])
    .await;
    assert!(mode_becomes(&a, "primary", Duration::from_secs(10)).await, "a host of the cluster's URL sees its primary");
    let (_, token) = a.org_with_token(json!({ "name": "Acme", "plan": "unlimited" })).await;

    // An event staged before the first loss, put off by its receiver until
    // after it (a 429 whose Retry-After the host honours).
    let receiver = Receiver::start().await;
    receiver.answer_path("/hook", Answer::With(429, vec![("retry-after", "15".into())]));
    let (hooked, hook_token) = a.org_with_token(json!({ "name": "Hooked" })).await;
    let automation = json!({ "name": "Avisar", "trigger": { "type": "contact.created" },
                             "actions": [{ "type": "http_request", "url": format!("{}/hook", receiver.url) }] });
    let r = a.post("/api/automations", &hook_token, &automation).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    let activated = a.admin(Method::POST, &format!("/admin/orgs/{hooked}/automations/{id}/activate"), None).await;
    assert_eq!(activated.status, 200, "{}", activated.text);
    assert_eq!(a.post("/api/contacts", &hook_token, &json!({ "email": "hooked@acme.co" })).await.status, 201);
    assert!(receiver.wait_for("/hook", 1, Duration::from_secs(20)).await, "the first attempt was made");

    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let api = if w % 2 == 0 { a.api.clone() } else { b.api.clone() };
            writer(api, token.clone(), format!("w{w}"), stop.clone())
        })
        .collect();
    let edge_writer = writer(edge.api.clone(), token.clone(), "edge".into(), stop.clone());
    let edge_reader = reader(edge.api.clone(), token.clone(), stop.clone());
    tokio::time::sleep(Duration::from_secs(2)).await;

    let mut losses = Vec::new();
    for round in 0..3 {
        let (killed, lost_unix) = cluster.kill_primary();
        // When the machine stopped answering, on this process's clock.
        let lost = Instant::now() - Duration::from_secs_f64((unix_now() - lost_unix).max(0.0));
        losses.push((round, lost, lost_unix, killed.clone()));
        if round == 0 {
            receiver.answer_path("/hook", Answer::Status(200));
        }
        // The hosts see no primary, and say so; then a primary again.
        assert!(mode_becomes(&a, "no-primary-reading-standby", Duration::from_secs(5)).await, "round {round}");
        assert!(mode_becomes(&a, "primary", Duration::from_secs(30)).await, "round {round}: a primary again");
        tokio::time::sleep(Duration::from_secs(2)).await;
        // The old primary comes back, as a standby of the new one.
        cluster.restart(&killed);
        cluster.wait_healthy();
        assert_ne!(cluster.primary(), killed, "round {round}: the old primary came back as a standby");
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    stop.store(true, Ordering::SeqCst);

    let mut per_host: Vec<Vec<Answered>> = vec![Vec::new(), Vec::new()];
    for (w, writer) in writers.into_iter().enumerate() {
        per_host[w % 2].extend(writer.await.unwrap());
    }
    for (host, got) in per_host.iter().enumerate() {
        let wrong = wrong(got);
        assert!(wrong.is_empty(), "write host {host}: answers other than 2xx and 503 with Retry-After: {wrong:?}");
    }
    let edge_writes = edge_writer.await.unwrap();
    let edge_reads = edge_reader.await.unwrap();
    assert!(wrong(&edge_writes).is_empty(), "edge writes: {:?}", wrong(&edge_writes));
    assert!(wrong(&edge_reads).is_empty(), "edge reads: {:?}", wrong(&edge_reads));

    // Writes resumed through the same hosts after each loss; the figures.
    for (round, lost, lost_unix, killed) in &losses {
        let first = |answers: &[Answered]| {
            first_write_after(answers, *lost).unwrap_or_else(|| panic!("round {round}: no write after the loss"))
        };
        let (via_a, via_b, via_edge) = (first(&per_host[0]), first(&per_host[1]), first(&edge_writes));
        let detected = event_after(&cluster, *lost_unix, "unhealthy");
        let promoted = event_after(&cluster, *lost_unix, "\"wait_primary\"");
        eprintln!(
            "failover figure: round {round} lost {killed}: detected {detected:?} s, promoted {promoted:?} s, \
             first acknowledged write through host A {via_a:.2} s, B {via_b:.2} s, the edge host {via_edge:.2} s"
        );
        assert!(via_a.max(via_b).max(via_edge) < 10.0, "round {round}: writes back within 10 s of the loss");
    }
    let answers: Vec<Answered> = per_host.into_iter().flatten().chain(edge_writes).collect();
    // Nothing acknowledged is lost: every 201's contact is there, read on the new primary.
    let acknowledged: Vec<&String> = answers.iter().filter(|a| a.status == 201).filter_map(|a| a.id.as_ref()).collect();
    assert!(acknowledged.len() > 100, "the writers wrote: {}", acknowledged.len());
    let mut missing = Vec::new();
    for id in &acknowledged {
        if a.get(&format!("/api/contacts/{id}"), &token).await.status != 200 {
            missing.push(*id);
        }
    }
    assert!(missing.is_empty(), "{} of {} acknowledged writes lost: {missing:?}", missing.len(), acknowledged.len());
    let listed = a.get("/api/contacts?limit=1", &token).await.json();
    assert!(listed["pagination"]["total"].as_u64().unwrap() >= acknowledged.len() as u64, "{listed}");

    // Background work resumed: the event staged before the first loss was
    // delivered after it, once, with its own webhook id.
    assert!(receiver.wait_for("/hook", 2, Duration::from_secs(60)).await, "delivered after the loss");
    let hooks = receiver.received_at("/hook");
    let ids: std::collections::BTreeSet<&str> = hooks.iter().map(|h| h.header("webhook-id")).collect();
    assert_eq!(ids.len(), 1, "one event, one webhook id: {ids:?}");
    tokio::time::sleep(Duration::from_secs(6)).await;
    let delivered = a.get("/api/webhooks/deliveries", &hook_token).await.json();
    assert_eq!(delivered["data"][0]["status"], "delivered", "{delivered}");
    assert_eq!(receiver.received_at("/hook").len(), hooks.len(), "and never again once delivered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hosts_follow_a_standby_promoted_by_hand() {
    // Synchronous: a commit waits for the standby (so the database is made once it streams).
    let primary = Throwaway::start(&["synchronous_standby_names='*'"]).expect("start the primary");
    let standby = Throwaway::standby_of(&primary, primary.port(), &[]).expect("start a standby");
    primary.database("crm").unwrap();
    let url = format!("postgres://postgres@127.0.0.1:{},127.0.0.1:{}/crm", primary.port(), standby.port());
    let host = Host::start_with(&[("CRM_STORE_URL", url.as_str())]).await;
    let (_, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    assert!(mode_becomes(&host, "primary", Duration::from_secs(10)).await);
    let created = host.post("/api/contacts", &token, &json!({ "email": "before@acme.co" })).await;
    assert_eq!(created.status, 201, "{}", created.text);
    let before = created.json()["data"]["id"].as_str().unwrap().to_string();

    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> =
        (0..4).map(|w| writer(host.api.clone(), token.clone(), format!("w{w}"), stop.clone())).collect();
    let readers = reader(host.api.clone(), token.clone(), stop.clone());
    tokio::time::sleep(Duration::from_secs(1)).await;
    primary.crash().unwrap();
    let lost = Instant::now();
    // While no primary answers: refused in time, and the standby is read.
    assert!(mode_becomes(&host, "no-primary-reading-standby", Duration::from_secs(5)).await);
    let started = Instant::now();
    let refused = host.post("/api/contacts", &token, &json!({ "email": "gap@acme.co" })).await;
    assert!(started.elapsed() < Duration::from_secs(2), "answered in {:?}", started.elapsed());
    assert_eq!((refused.status.as_u16(), refused.json()["code"].clone()), (503, json!("STORE_UNAVAILABLE")));
    assert_eq!(refused.header("retry-after"), Some("1"));
    let read = host.get(&format!("/api/contacts/{before}"), &token).await;
    assert_eq!(read.status, 200, "read from the standby: {}", read.text);
    assert!(read.header("crm-staleness-ms").is_some(), "saying how stale it may be");
    assert_eq!(host.get("/api/me", &token).await.status, 200);

    tokio::time::sleep(Duration::from_secs(2).saturating_sub(lost.elapsed())).await;
    let promoting = Instant::now();
    standby.promote().unwrap();
    let promoted = promoting.elapsed();
    assert!(mode_becomes(&host, "primary", Duration::from_secs(10)).await);
    tokio::time::sleep(Duration::from_secs(1)).await;
    stop.store(true, Ordering::SeqCst);
    let mut answers = Vec::new();
    for writer in writers {
        answers.extend(writer.await.unwrap());
    }
    let reads = readers.await.unwrap();
    assert!(wrong(&answers).is_empty(), "writes: {:?}", wrong(&answers));
    assert!(wrong(&reads).is_empty(), "reads: {:?}", wrong(&reads));
    let first = first_write_after(&answers, promoting).expect("writes resume after the promotion");
    eprintln!(
        "failover figure: by hand: promote took {:.2} s, first acknowledged write {:.2} s after it ({:.2} s after the loss)",
        promoted.as_secs_f64(),
        first,
        (promoting - lost).as_secs_f64() + first
    );
    assert!(first < 1.0 + promoted.as_secs_f64(), "the hosts' own part: {first:.2} s after the promotion began");
    for id in answers.iter().filter(|a| a.status == 201).filter_map(|a| a.id.as_ref()) {
        assert_eq!(host.get(&format!("/api/contacts/{id}"), &token).await.status, 200, "acknowledged {id} is kept");
    }
}
