//! Totals stay exact through `kill -9`: the host is killed repeatedly while
//! contacts are being created, and after every restart each total a list shows
//! (the organization's, each city's, each state's) equals a full recount, and
//! every acknowledged create is there.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crm_tests::*;

const CITIES: [&str; 4] = ["05001", "05088", "11001", "76001"];
const STATES: [&str; 2] = ["05", "11"];

async fn total(host: &Host, token: &str, query: &str) -> u64 {
    let r = host.get(&format!("/api/contacts?limit=1&{query}"), token).await;
    assert_eq!(r.status, 200, "{query}: {}", r.text);
    r.json()["pagination"]["total"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn totals_equal_a_recount_after_every_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(dir.path(), &[]).await;
    let (_, token) = host.org_with_token(json!({ "name": "Crashy", "plan": "unlimited" })).await;
    let acked = Arc::new(AtomicU64::new(0));
    for run in 0..5 {
        let writers: Vec<_> = (0..16)
            .map(|w| {
                let (client, url, token, acked) =
                    (host.client.clone(), format!("{}/api/contacts", host.api), token.clone(), acked.clone());
                tokio::spawn(async move {
                    for i in 0.. {
                        let body =
                            json!({ "email": format!("r{run}w{w}n{i}@crash.co"), "cityCode": CITIES[(w + i) % 4] });
                        match client.post(&url).bearer_auth(&token).json(&body).send().await {
                            Ok(r) if r.status() == 201 => {
                                acked.fetch_add(1, Ordering::SeqCst);
                            }
                            Ok(r) => panic!("create answered {}", r.status()),
                            Err(_) => return, // the host was killed
                        }
                    }
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(700 + 300 * run as u64)).await;
        host.kill9();
        for w in writers {
            w.await.unwrap();
        }
        host = Host::start_in(dir.path(), &[]).await;
        // The counters against a walk of the index entries (the date bound
        // makes the list count entries instead of reading a counter).
        let all = total(&host, &token, "").await;
        let recount = total(&host, &token, "createdFrom=2000-01-01").await;
        assert_eq!(all, recount, "run {run}: the total is off after kill -9");
        assert!(recount >= acked.load(Ordering::SeqCst), "run {run}: an acknowledged create was lost");
        for code in CITIES {
            let counted = total(&host, &token, &format!("cityCode={code}")).await;
            let walked = total(&host, &token, &format!("cityCode={code}&createdFrom=2000-01-01")).await;
            assert_eq!(counted, walked, "run {run}: city {code}");
        }
        for code in STATES {
            let counted = total(&host, &token, &format!("stateCode={code}")).await;
            let walked = total(&host, &token, &format!("stateCode={code}&createdFrom=2000-01-01")).await;
            assert_eq!(counted, walked, "run {run}: state {code}");
        }
        eprintln!("run {run}: {recount} contacts, {} acknowledged", acked.load(Ordering::SeqCst));
    }
}
