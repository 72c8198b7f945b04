//! One organization cannot starve the others: its requests beyond its share
//! wait briefly, then get 429, while another organization's calls stay
//! prompt, taking the next compute turn ahead of the flood's queue.
//! Per-token quotas answer 429 with the RateLimit headers.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crm_tests::*;

/// Requests of one organization sent back to back from many connections
/// until stopped.
struct Flood {
    stop: Arc<AtomicBool>,
    connections: Vec<tokio::task::JoinHandle<Sent>>,
}

/// What one flood connection saw: answers, 429s, each answer's latency.
#[derive(Default)]
struct Sent {
    ok: u32,
    limited: u32,
    latencies: Vec<Duration>,
}

impl Flood {
    fn start(host: &Host, token: &str, path: &str, connections: usize) -> Flood {
        let stop = Arc::new(AtomicBool::new(false));
        let connections = (0..connections)
            .map(|_| {
                let (client, url, token, stop) =
                    (host.client.clone(), format!("{}{path}", host.api), token.to_string(), stop.clone());
                tokio::spawn(async move {
                    let mut sent = Sent::default();
                    while !stop.load(Ordering::Relaxed) {
                        let t = Instant::now();
                        let r = client.get(&url).bearer_auth(&token).send().await.unwrap();
                        match r.status().as_u16() {
                            200 => sent.ok += 1,
                            429 => {
                                assert!(r.headers().get("retry-after").is_some(), "429 without Retry-After");
                                assert_eq!(r.json::<Value>().await.unwrap()["code"], "RATE_LIMITED");
                                sent.limited += 1;
                            }
                            other => panic!("flood answered {other}"),
                        }
                        sent.latencies.push(t.elapsed());
                    }
                    sent
                })
            })
            .collect();
        Flood { stop, connections }
    }

    async fn stop(self) -> Sent {
        self.stop.store(true, Ordering::Relaxed);
        let mut all = Sent::default();
        for connection in self.connections {
            let sent = connection.await.unwrap();
            all.ok += sent.ok;
            all.limited += sent.limited;
            all.latencies.extend(sent.latencies);
        }
        all.latencies.sort();
        all
    }
}

/// `n` calls of `path` with `token`, one after another, each answered 200: their latencies, sorted.
async fn timed(host: &Host, token: &str, path: &str, n: usize) -> Vec<Duration> {
    let mut latencies = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        let r = host.get(path, token).await;
        assert_eq!(r.status, 200, "the calm organization was refused: {}", r.text);
        latencies.push(t.elapsed());
    }
    latencies.sort();
    latencies
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q) as usize]
}

async fn seeded_orgs(host: &Host, flood_contacts: usize) -> (String, String) {
    let (_, flood_token) = host.org_with_token(json!({ "name": "Runaway" })).await;
    let (_, calm_token) = host.org_with_token(json!({ "name": "Calm" })).await;
    for i in 0..flood_contacts {
        let r = host.post("/api/contacts", &flood_token, &json!({ "email": format!("f{i}@x.co") })).await;
        assert_eq!(r.status, 201);
    }
    (flood_token, calm_token)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flooding_organization_is_limited_to_its_share_of_requests_in_flight() {
    let host = Host::start_with(&[("CRM_ORG_MAX_IN_FLIGHT", "4"), ("CRM_ORG_QUEUE_MS", "50")]).await;
    let (flood_token, calm_token) = seeded_orgs(&host, 50).await;
    let flood = Flood::start(&host, &flood_token, "/api/contacts?limit=50", 64);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let loaded = timed(&host, &calm_token, "/api/contacts?limit=5", 30).await;
    let sent = flood.stop().await;
    eprintln!(
        "calm p90 under the flood {:?}; flood: {} answered, {} limited",
        quantile(&loaded, 0.9),
        sent.ok,
        sent.limited
    );
    assert!(
        sent.ok > 0 && sent.limited > 0,
        "the flood was not limited ({} answered, {} limited)",
        sent.ok,
        sent.limited
    );
    // Prompt: 95 to 321 ms on a loaded 2-core machine beside two busy loops.
    assert!(
        quantile(&loaded, 0.9) < Duration::from_secs(2),
        "the calm organization's p90 under the flood was {:?}",
        quantile(&loaded, 0.9)
    );
}

/// A request counts in flight until its answer is written: an organization
/// whose clients read large answers slowly holds its own slots, so it
/// cannot make the host hold more answers than it may run requests, and
/// another organization is not slowed.
#[tokio::test]
async fn an_answer_being_read_keeps_its_organizations_slot() {
    let host = Host::start_with(&[("CRM_ORG_MAX_IN_FLIGHT", "2"), ("CRM_ORG_QUEUE_MS", "200")]).await;
    let (org, token) = host.org_with_token(json!({ "name": "Slow readers", "plan": "unlimited" })).await;
    host.big_contacts(&org).await;
    let (_, other) = host.org_with_token(json!({ "name": "Other" })).await;
    // Two pages of about 12 MB asked for, and not read.
    let address = host.api.trim_start_matches("http://").to_string();
    let mut readers: Vec<std::net::TcpStream> = (0..2)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(&address).unwrap();
            let request =
                format!("GET /api/contacts?limit=1000 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n");
            std::io::Write::write_all(&mut s, request.as_bytes()).unwrap();
            s
        })
        .collect();
    let held = crm_tests::shop::eventually(Duration::from_secs(10), || async {
        host.get("/api/me", &token).await.status == StatusCode::TOO_MANY_REQUESTS
    })
    .await;
    assert!(held, "the answers being written did not keep the organization's slots");
    let r = host.get("/api/me", &token).await;
    assert_eq!((r.status, r.json()["code"].clone()), (StatusCode::TOO_MANY_REQUESTS, json!("RATE_LIMITED")));
    assert_eq!(host.get("/api/me", &other).await.status, StatusCode::OK, "another organization");
    // Read, the slots come back.
    for reader in &mut readers {
        reader.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut answer = vec![0u8; answer_head(reader)];
        std::io::Read::read_exact(reader, &mut answer).expect("the whole answer");
    }
    let freed = crm_tests::shop::eventually(Duration::from_secs(10), || async {
        host.get("/api/me", &token).await.status == StatusCode::OK
    })
    .await;
    assert!(freed, "the slots were not given back once the answers were read");
}

/// With one compute turn and no in-flight limit that bites, the flood's
/// requests queue behind each other while the calm organization's take the
/// next turn: the calm median is a small part of the flood's. (With turns
/// off, `CRM_COMPUTE_TURNS=1000000`, both medians are about the same.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_organization_takes_the_next_compute_turn_while_another_floods() {
    let host = Host::start_with(&[("CRM_COMPUTE_TURNS", "1"), ("CRM_ORG_MAX_IN_FLIGHT", "1000")]).await;
    let (flood_token, calm_token) = seeded_orgs(&host, 100).await;
    let alone = timed(&host, &calm_token, "/api/contacts?limit=5", 20).await;
    let flood = Flood::start(&host, &flood_token, "/api/contacts?limit=100", 32);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let loaded = timed(&host, &calm_token, "/api/contacts?limit=5", 40).await;
    let sent = flood.stop().await;
    let (calm, flooding) = (quantile(&loaded, 0.5), quantile(&sent.latencies, 0.5));
    eprintln!("calm p50 alone {:?}, under the flood {calm:?}; the flood's p50 {flooding:?}", quantile(&alone, 0.5));
    assert_eq!(sent.limited, 0, "nothing is refused: the flood only waits");
    assert!(calm * 4 < flooding, "the calm organization waited {calm:?}, the flood {flooding:?}");
}

#[tokio::test]
async fn token_quotas_answer_429_with_rate_limit_headers() {
    let host = Host::start_with(&[("CRM_RATE_PER_SECOND", "5")]).await;
    let (org, token) = host.org_with_token(json!({ "name": "Metered" })).await;
    let other = host.create_token(&org, &["*"]).await;
    let r = host.get("/api/me", &token).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("ratelimit-limit"), Some("10"));
    // Sent at once: one after another, on a machine slow enough to answer
    // five a second, the bucket would refill as fast as they drain it.
    let burst = futures_util::future::join_all((0..30).map(|_| host.get("/api/me", &token))).await;
    let answered = burst.iter().filter(|r| r.status == 200).count();
    assert!(answered >= 5, "limited after only {answered} requests");
    let r = burst.into_iter().find(|r| r.status == 429).expect("a burst of 31 requests was never limited");
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

/// A shipment waiting on the provider (3 s) holds no compute turn: with
/// one turn, another organization's call answers meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_waiting_on_a_provider_gives_its_compute_turn_back() {
    let shop =
        crm_tests::shop::Shop::open_with(&[("CRM_COMPUTE_TURNS", "1"), ("CRM_PROVIDER_TIMEOUT_MS", "10000")]).await;
    let (_, other) = shop.host.org_with_token(json!({ "name": "Otra" })).await;
    shop.sim.set_latency(Duration::ZERO, Duration::from_secs(3));
    let meanwhile = async {
        while shop.sim.calls("generate") == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let t = Instant::now();
        let r = shop.host.get("/api/contacts?limit=5", &other).await;
        (r.status, t.elapsed())
    };
    let (label, (status, waited)) = tokio::join!(shop.generate(Some("slow-provider")), meanwhile);
    assert_eq!(label.status, 201, "{}", label.text);
    assert_eq!(status, 200);
    // Waiting for the provider's call would be 3 s.
    assert!(waited < Duration::from_secs(2), "the other organization waited {waited:?} for the provider's call");
}

/// An import's rows run in a nested call of the contacts module; that call
/// shares the import's turn and passes it on at every tick like any long
/// call, so with one turn another organization's list answers meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_passes_its_compute_turn_on_while_it_runs() {
    let host = Host::start_with(&[("CRM_COMPUTE_TURNS", "1")]).await;
    let (_, importer) = host.org_with_token(json!({ "name": "Importadora" })).await;
    let (_, other) = host.org_with_token(json!({ "name": "Otra" })).await;
    let rows: Vec<Value> = (0..4000).map(|i| json!({ "email": format!("i{i}@x.co"), "firstName": "Ana" })).collect();
    let started = Instant::now();
    let importing = async {
        let r = host.post("/api/import/contacts", &importer, &json!({ "rows": rows })).await;
        (r, started.elapsed())
    };
    let meanwhile = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        timed(&host, &other, "/api/contacts?limit=5", 5).await
    };
    let ((import, took), lists) = tokio::join!(importing, meanwhile);
    assert_eq!(import.status, 200, "{}", import.text);
    assert_eq!(import.json()["data"]["created"], 4000);
    let slowest = *lists.last().unwrap();
    eprintln!("the import took {took:?}; the other organization's slowest list {slowest:?}");
    assert!(took > Duration::from_millis(600), "the import was too quick ({took:?}) to show anything");
    // Waiting for the import would be most of it; on a loaded machine both
    // take longer, so the bound is the import's own length.
    assert!(slowest * 3 < took, "a list waited {slowest:?} beside an import of {took:?}");
}
