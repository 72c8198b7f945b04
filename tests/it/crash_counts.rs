//! Totals stay exact through `kill -9`: the host is killed repeatedly while
//! contacts are being created, and after every restart each total a list shows
//! (the organization's, each city's, each state's) equals a full recount, and
//! every acknowledged create is there.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crm_tests::*;

const CITIES: [&str; 4] = ["05001", "05088", "11001", "76001"];
const STATES: [&str; 2] = ["05", "11"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn totals_equal_a_recount_after_every_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(dir.path(), &[]).await;
    let (_, token) = host.org_with_token(json!({ "name": "Crashy", "plan": "unlimited" })).await;
    let acked = Arc::new(Mutex::new(Vec::new()));
    for run in 0..5 {
        let body = move |w, i| json!({ "email": format!("r{run}w{w}n{i}@crash.co"), "cityCode": CITIES[(w + i) % 4] });
        let writers = host.create_until_gone(&token, 16, body, &acked);
        tokio::time::sleep(Duration::from_millis(700 + 300 * run as u64)).await;
        host.kill9();
        for w in writers {
            w.await.unwrap();
        }
        host = Host::start_in(dir.path(), &[]).await;
        // The counters against a walk of the index entries (the date bound
        // makes the list count entries instead of reading a counter).
        let all = host.contacts_total(&token, "").await;
        let recount = host.contacts_total(&token, "createdFrom=2000-01-01").await;
        assert_eq!(all, recount, "run {run}: the total is off after kill -9");
        assert!(recount >= acked.lock().unwrap().len() as u64, "run {run}: an acknowledged create was lost");
        for code in CITIES {
            let counted = host.contacts_total(&token, &format!("cityCode={code}")).await;
            let walked = host.contacts_total(&token, &format!("cityCode={code}&createdFrom=2000-01-01")).await;
            assert_eq!(counted, walked, "run {run}: city {code}");
        }
        for code in STATES {
            let counted = host.contacts_total(&token, &format!("stateCode={code}")).await;
            let walked = host.contacts_total(&token, &format!("stateCode={code}&createdFrom=2000-01-01")).await;
            assert_eq!(counted, walked, "run {run}: state {code}");
        }
        eprintln!("run {run}: {recount} contacts, {} acknowledged", acked.lock().unwrap().len() as u64);
    }
}
