//! Many hosts on one PostgreSQL database (the store's shared backend): what
//! one host's admin API changes every host sees at once; uniqueness and
//! idempotency hold across hosts; the periodic work (tracking refresh,
//! webhook delivery) runs once, not once per host; and losing a host loses
//! nothing it acknowledged.
//!
//! These tests start their hosts on the test PostgreSQL server whichever
//! store the rest of the run uses.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crm_tests::envia_sim::EnviaSim;
use crm_tests::receiver::Receiver;
use crm_tests::shop::{self, Shop};
use crm_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_token_or_a_deleted_organization_is_refused_by_every_host_at_once() {
    let hosts = Host::sharing("revocation", 2, &[]).await;
    let (org, token) = hosts[0].org_with_token(json!({ "name": "Acme" })).await;
    let (id, other) = hosts[0].create_token_with(&org, json!({ "name": "t", "permissions": ["*"] })).await;
    assert_eq!(hosts[1].get("/api/me", &other).await.status, 200, "a token made on one host works on the other");
    let r = hosts[0].admin(Method::DELETE, &format!("/admin/orgs/{org}/tokens/{id}"), None).await;
    assert_eq!(r.status, 204);
    let r = hosts[1].get("/api/me", &other).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (401, json!("API_TOKEN_REVOKED")), "at once");
    assert_eq!(hosts[0].get("/api/me", &token).await.status, 200);
    assert_eq!(hosts[1].admin(Method::DELETE, &format!("/admin/orgs/{org}"), None).await.status, 204);
    let r = hosts[0].get("/api/me", &token).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (401, json!("ORGANIZATION_NOT_FOUND")), "at once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_upserts_of_one_email_over_three_hosts_make_one_contact() {
    let hosts = Host::sharing("one-email", 3, &[]).await;
    let (_, token) = hosts[0].org_with_token(json!({ "name": "Acme" })).await;
    let body = json!({ "email": "ana@acme.co", "firstName": "Ana" });
    let replies =
        futures_util::future::join_all((0..50).map(|i| hosts[i % 3].post("/api/contacts", &token, &body))).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 49, "{statuses:?}");
    // A create answers `data.id`, an update `contact._id` (spec).
    let ids: HashSet<Value> =
        replies.iter().map(|r| r.json()["data"]["id"].clone()).filter(|id| !id.is_null()).collect();
    let updated: HashSet<Value> =
        replies.iter().map(|r| r.json()["contact"]["_id"].clone()).filter(|id| !id.is_null()).collect();
    assert_eq!((ids.len(), updated.len()), (1, 1));
    assert_eq!(ids, updated, "every answer names the one contact");
    for host in &hosts {
        assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 1);
    }
}

/// A shop on the first of `n` hosts sharing a database, and the other hosts.
async fn shop_over(label: &str, n: usize, env: &[(&str, &str)]) -> (Shop, Vec<Host>) {
    let mut all = vec![("CRM_PROVIDER_TIMEOUT_MS", shop::PROVIDER_TIMEOUT_MS), ("CRM_TRACKING_REFRESH_MS", "0")];
    all.extend_from_slice(env);
    let mut hosts = Host::sharing(label, n, &all).await;
    let first = hosts.remove(0);
    (Shop::on(first, EnviaSim::start().await).await, hosts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_generates_with_one_key_over_three_hosts_make_one_provider_call() {
    let (shop, others) = shop_over("one-key", 3, &[]).await;
    shop.sim.set_latency(Duration::ZERO, Duration::from_millis(300));
    let body = shop.label_body(Some("same-key"));
    let replies = futures_util::future::join_all((0..20).map(|i| match i % 3 {
        0 => shop.host.post("/api/shipments", &shop.token, &body),
        n => others[n - 1].post("/api/shipments", &shop.token, &body),
    }))
    .await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1, "{statuses:?}");
    assert!(statuses.iter().all(|s| [200, 201, 409].contains(s)), "{statuses:?}");
    assert_eq!(shop.sim.calls("generate"), 1, "exactly one provider call");
    assert_eq!(others[1].get("/api/shipments", &shop.token).await.json()["pagination"]["total"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_keyless_thirty_second_window_holds_across_hosts() {
    let (shop, others) = shop_over("keyless", 2, &[]).await;
    assert_eq!(shop.generate(None).await.status, 201);
    let second = others[0].post("/api/shipments", &shop.token, &shop.label_body(None)).await;
    assert_eq!((second.status.as_u16(), second.json()["code"].clone()), (409, json!("SHIPMENT_IN_PROGRESS")));
    assert_eq!(shop.sim.calls("generate"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_tracking_refresh_runs_once_per_period_not_once_per_host() {
    const PERIOD_MS: u64 = 300;
    let (shop, _others) = shop_over("tracking", 3, &[("CRM_TRACKING_REFRESH_MS", "300")]).await;
    let made = shop.generate(Some("s-1")).await;
    assert_eq!(made.status, 201, "{}", made.text);
    let tn = made.json()["data"]["trackingNumber"].as_str().unwrap().to_string();
    shop.sim.set_status(&tn, "Shipped");
    let path = format!("/api/shipments/{}", made.json()["data"]["id"].as_str().unwrap());
    let moved = shop::eventually(Duration::from_secs(10), || async {
        shop.get(&path).await.json()["data"]["status"] == "in_transit"
    })
    .await;
    assert!(moved, "a host refreshed the shipment");
    // The shipment stays in transit: every round asks for it once. The
    // periods are counted in the time that really passed (a loaded
    // machine oversleeps); rounds that come late are not caught up on, and
    // a host that stalls past its lease (two periods) hands the rounds over,
    // its round in flight one more. Three hosts running them would make
    // three times the calls.
    let (started, before) = (std::time::Instant::now(), shop.sim.calls("track"));
    tokio::time::sleep(Duration::from_secs(3)).await;
    let calls = shop.sim.calls("track") - before;
    let rounds = (started.elapsed().as_millis() as u64 / PERIOD_MS) as usize;
    assert!(calls >= rounds / 4, "the refresh kept running: {calls} calls in {rounds} periods");
    assert!(calls <= rounds * 3 / 2 + 2, "{calls} track calls in {rounds} periods: more than one host ran the rounds");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn events_committed_on_any_host_are_delivered_once() {
    const CONTACTS: usize = 30;
    let receiver = Receiver::start().await;
    let hosts = Host::sharing("webhooks", 3, &[("CRM_WEBHOOK_ALLOW_PRIVATE", "true")]).await;
    let (org, token) = hosts[0].org_with_token(json!({ "name": "Acme" })).await;
    let body = json!({
        "name": "Avisar",
        "trigger": { "type": "contact.created" },
        "actions": [{ "type": "http_request", "url": format!("{}/created", receiver.url) }]
    });
    let r = hosts[1].post("/api/automations", &token, &body).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    let r = hosts[2].admin(Method::POST, &format!("/admin/orgs/{org}/automations/{id}/activate"), None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    // Subscriptions are trusted for at most a second on the other hosts.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    for i in 0..CONTACTS {
        let r = hosts[i % 3].post("/api/contacts", &token, &json!({ "email": format!("c{i}@acme.co") })).await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    assert!(receiver.wait_for("/created", CONTACTS, Duration::from_secs(20)).await, "every event was delivered");
    // Time for a second host's worker to send anything again, were it to.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let received = receiver.received_at("/created");
    let ids: HashSet<&str> = received.iter().map(|r| r.header("webhook-id")).collect();
    assert_eq!((received.len(), ids.len()), (CONTACTS, CONTACTS), "each event once, by one host");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_host_killed_under_writes_loses_nothing_it_acknowledged_and_the_other_serves_on() {
    let mut hosts = Host::sharing("kill", 2, &[]).await;
    let (_, token) = hosts[0].org_with_token(json!({ "name": "Acme" })).await;
    let urls: Vec<String> = hosts.iter().map(|h| format!("{}/api/contacts", h.api)).collect();
    let client = reqwest::Client::new();
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let (client, url, token) = (client.clone(), urls[w % 2].clone(), token.clone());
            tokio::spawn(async move {
                let mut acked = Vec::new();
                let started = Instant::now();
                for i in 0.. {
                    if started.elapsed() > Duration::from_secs(3) {
                        break;
                    }
                    let body = json!({ "email": format!("w{w}-{i}@acme.co") });
                    match client.post(&url).bearer_auth(&token).json(&body).send().await {
                        Ok(r) if r.status() == 201 => {
                            let v: Value = r.json().await.unwrap();
                            acked.push(v["data"]["id"].as_str().unwrap().to_string());
                        }
                        Ok(r) => assert!(r.status().is_server_error() || r.status() == 201, "{}", r.status()),
                        Err(_) => {} // the killed host's connections
                    }
                }
                acked
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    hosts[1].kill9();
    let mut acked = Vec::new();
    for w in writers {
        acked.extend(w.await.unwrap());
    }
    assert!(acked.len() > 50, "the writers wrote: {}", acked.len());
    let survivor = &hosts[0];
    let total = survivor.get("/api/contacts", &token).await.json()["pagination"]["total"].as_u64().unwrap();
    assert!(total >= acked.len() as u64, "{total} contacts for {} acknowledged", acked.len());
    for id in &acked {
        assert_eq!(survivor.get(&format!("/api/contacts/{id}"), &token).await.status, 200, "{id} was acknowledged");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_form_rate_counts_the_calls_of_every_host() {
    let hosts = Host::sharing("form-rate", 2, &[("CRM_FORM_RATE_PER_MINUTE", "3")]).await;
    let org = hosts[0].create_org(json!({ "name": "Tienda" })).await;
    let form = hosts[0].admin(Method::POST, &format!("/admin/orgs/{org}/forms"), Some(&json!({ "name": "F" }))).await;
    assert_eq!(form.status, 201, "{}", form.text);
    let (id, key) =
        (form.json()["id"].as_str().unwrap().to_string(), form.json()["publicKey"].as_str().unwrap().to_string());
    let path = format!("/api/v1/forms/submit/{id}?key={key}");
    let submit = |i: usize| {
        let (host, path) = (&hosts[i % 2], path.clone());
        async move { host.call(Method::POST, &path, None, Some(&json!({ "email": format!("r{i}@x.co") }))).await }
    };
    well_inside_a_minute().await;
    for i in 0..3 {
        assert_eq!(submit(i).await.status, 201, "call {i} of 3 allowed a minute");
    }
    let r = submit(3).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (429, json!("RATE_LIMITED")), "{}", r.text);
    assert!(r.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hosts_serve_on_after_the_database_restarts() {
    // A server of this test's own: restarting the shared one would cut the others.
    let server = crm_store_testkit::throwaway::Throwaway::start(&["fsync=off"]).unwrap();
    let url = server.database("restarts").unwrap();
    let host = Host::start_with(&[("CRM_STORE_URL", &url)]).await;
    let (_, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    assert_eq!(host.post("/api/contacts", &token, &json!({ "email": "before@acme.co" })).await.status, 201);
    server.restart().unwrap();
    // The pool's connections died with the server: new ones are opened, and a
    // read that met a dead one is tried again.
    let r = host.get("/api/contacts", &token).await;
    assert_eq!((r.status.as_u16(), r.json()["pagination"]["total"].clone()), (200, json!(1)), "{}", r.text);
    for i in 0..20 {
        let r = host.post("/api/contacts", &token, &json!({ "email": format!("after{i}@acme.co") })).await;
        assert_eq!(r.status, 201, "writes go on after the restart: {}", r.text);
    }
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 21);
}

/// A power cut takes the database and the host that called the provider
/// while the provider is buying a label: the idempotency key's claim was
/// made durable before the provider was called, so a retry of the key on
/// another host buys no second label. The server's WAL writer is frozen, so
/// a claim only committed, not flushed, would be lost in the crash.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_label_key_survives_a_power_cut_during_the_provider_call() {
    let server = crm_store_testkit::throwaway::Throwaway::start(&["fsync=off"]).unwrap();
    let url = server.database("claims").unwrap();
    let env = [
        ("CRM_STORE_URL", url.as_str()),
        ("CRM_PROVIDER_TIMEOUT_MS", shop::PROVIDER_TIMEOUT_MS),
        ("CRM_TRACKING_REFRESH_MS", "0"),
    ];
    let mut shop = Shop::on(Host::start_with(&env).await, EnviaSim::start().await).await;
    let other = Host::start_with(&env).await;
    shop.sim.set_latency(Duration::ZERO, Duration::from_millis(1000));
    server.freeze_wal_writer().unwrap();
    let body = shop.label_body(Some("through-a-power-cut"));
    let first =
        tokio::spawn(shop.host.request(Method::POST, "/api/shipments").bearer_auth(&shop.token).json(&body).send());
    while shop.sim.calls("generate") == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.crash().unwrap();
    shop.host.kill9();
    assert!(first.await.unwrap().is_err(), "the host went down before it answered");
    server.recover().unwrap();

    let again = other.post("/api/shipments", &shop.token, &body).await;
    assert_eq!(shop.sim.calls("generate"), 1, "a retry of the key bought a second label: {}", again.text);
    assert_ne!(again.status, 201, "{}", again.text);
}
