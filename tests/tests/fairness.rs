//! One organization cannot starve the others: its requests beyond its share
//! wait briefly, then get 429, while another organization's calls stay prompt.
//! Per-token quotas answer 429 with the RateLimit headers.

use std::time::{Duration, Instant};

use crm_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flooding_organization_does_not_starve_another() {
    let host = Host::start_with(&[("CRM_ORG_MAX_IN_FLIGHT", "4"), ("CRM_ORG_QUEUE_MS", "50")]).await;
    let (_, flood_token) = host.org_with_token(json!({ "name": "Runaway" })).await;
    let (_, calm_token) = host.org_with_token(json!({ "name": "Calm" })).await;
    for i in 0..50 {
        let r = host.post("/api/contacts", &flood_token, &json!({ "email": format!("f{i}@x.co") })).await;
        assert_eq!(r.status, 201);
    }
    // The calm organization's latency alone.
    let mut alone = Vec::new();
    for _ in 0..30 {
        let t = Instant::now();
        assert_eq!(host.get("/api/contacts?limit=5", &calm_token).await.status, 200);
        alone.push(t.elapsed());
    }
    // 64 connections of the runaway organization, back to back.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let floods: Vec<_> = (0..64)
        .map(|_| {
            let (client, url, token, stop) =
                (host.client.clone(), format!("{}/api/contacts?limit=50", host.api), flood_token.clone(), stop.clone());
            tokio::spawn(async move {
                let (mut ok, mut limited) = (0u32, 0u32);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let r = client.get(&url).bearer_auth(&token).send().await.unwrap();
                    match r.status().as_u16() {
                        200 => ok += 1,
                        429 => {
                            assert!(r.headers().get("retry-after").is_some(), "429 without Retry-After");
                            assert_eq!(r.json::<Value>().await.unwrap()["code"], "RATE_LIMITED");
                            limited += 1;
                        }
                        other => panic!("flood answered {other}"),
                    }
                }
                (ok, limited)
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut loaded = Vec::new();
    for _ in 0..30 {
        let t = Instant::now();
        let r = host.get("/api/contacts?limit=5", &calm_token).await;
        assert_eq!(r.status, 200, "the calm organization was refused: {}", r.text);
        loaded.push(t.elapsed());
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (mut ok, mut limited) = (0, 0);
    for f in floods {
        let (o, l) = f.await.unwrap();
        ok += o;
        limited += l;
    }
    alone.sort();
    loaded.sort();
    let p90 = |v: &[Duration]| v[v.len() * 9 / 10];
    eprintln!(
        "calm p90 alone {:?}, under the flood {:?}; flood: {ok} answered, {limited} limited",
        p90(&alone),
        p90(&loaded)
    );
    assert!(ok > 0 && limited > 0, "the flood was not limited ({ok} answered, {limited} limited)");
    assert!(
        p90(&loaded) < Duration::from_millis(500),
        "the calm organization's p90 under the flood was {:?}",
        p90(&loaded)
    );
}

#[tokio::test]
async fn token_quotas_answer_429_with_rate_limit_headers() {
    let host = Host::start_with(&[("CRM_RATE_PER_SECOND", "5")]).await;
    let (org, token) = host.org_with_token(json!({ "name": "Metered" })).await;
    let other = host.create_token(&org, &["*"]).await;
    let r = host.get("/api/me", &token).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("ratelimit-limit"), Some("10"));
    let mut refused = None;
    for i in 0..30 {
        let r = host.get("/api/me", &token).await;
        if r.status == 429 {
            refused = Some((i, r));
            break;
        }
    }
    let (i, r) = refused.expect("a burst of 31 requests was never limited");
    assert!(i >= 5, "limited after only {i} requests");
    assert_eq!(r.json()["code"], "RATE_LIMITED");
    assert_eq!(r.header("ratelimit-limit"), Some("10"));
    assert_eq!(r.header("ratelimit-remaining"), Some("0"));
    assert!(r.header("ratelimit-reset").is_some_and(|s| s.parse::<u64>().is_ok_and(|n| n >= 1)));
    assert!(r.header("retry-after").is_some());
    // Another token of the same organization has its own bucket.
    assert_eq!(host.get("/api/me", &other).await.status, 200);
    // The bucket refills.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(host.get("/api/me", &token).await.status, 200);
}
