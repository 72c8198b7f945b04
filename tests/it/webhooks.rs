//! Outbound events through the real host and a real receiver on loopback (so
//! the host runs with `CRM_WEBHOOK_ALLOW_PRIVATE=true`): an active
//! automation's trigger delivers one signed call, a draft's does not; failed
//! attempts are retried with the same `webhook-id`; nothing is lost to a
//! `kill -9`, and a status listed is kept through one; a hanging receiver
//! holds up nobody else; redirects are not followed; the deliveries are listed and a failed one is sent again; an
//! import announces each contact it creates once, even when a chunk of its
//! rows runs again; the failed deliveries of a window are recovered once a
//! receiver is back; a test send answers what the receiver did; an
//! organization switched to `v1a` signs with ed25519 and both schemes sign
//! through the overlap; a paced target drains a backlog at its pace; an
//! ordered target gets each resource's events in order through a retry;
//! every type the host sends is in the OpenAPI document's `webhooks` and in
//! `GET /api/webhooks/event-types`, its body as that says.

use std::time::{Duration, Instant};

use crm_tests::receiver::{Answer, Receiver};
use crm_tests::shop::eventually;
use crm_tests::*;

const ALLOW_PRIVATE: &[(&str, &str)] = &[("CRM_WEBHOOK_ALLOW_PRIVATE", "true")];

/// Saves an automation (a draft) and, when `active`, has the app activate it.
async fn automation(host: &Host, org: &str, token: &str, trigger: Value, url: &str, active: bool) -> String {
    let body = json!({
        "name": "Avisar",
        "trigger": trigger,
        "actions": [{ "type": "http_request", "url": url, "headers": { "X-Tenant": "acme" } }]
    });
    let r = host.post("/api/automations", token, &body).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    if active {
        let r = host.admin(Method::POST, &format!("/admin/orgs/{org}/automations/{id}/activate"), None).await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    id
}

async fn move_deal(host: &Host, token: &str, deal: &str, stage: &str) {
    let r = host.call(Method::PUT, &format!("/api/deals/{deal}"), Some(token), Some(&json!({ "stage": stage }))).await;
    assert_eq!(r.status, 200, "{}", r.text);
}

async fn secret(host: &Host, org: &str) -> String {
    let r = host.admin(Method::GET, &format!("/admin/orgs/{org}/webhook-secret"), None).await;
    r.json()["secret"].as_str().unwrap().to_string()
}

async fn deliveries(host: &Host, token: &str) -> Value {
    let r = host.get("/api/webhooks/deliveries", token).await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.json()
}

#[tokio::test]
async fn a_deal_move_runs_the_active_automation_once_signed_and_not_the_draft() {
    let receiver = Receiver::start().await;
    let host = Host::start_with(ALLOW_PRIVATE).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    let url = |path: &str| format!("{}{path}", receiver.url);
    automation(&host, &org, &token, json!({ "type": "deal.stage_changed", "toStage": "won" }), &url("/won"), true)
        .await;
    automation(&host, &org, &token, json!({ "type": "deal.stage_changed", "toStage": "won" }), &url("/draft"), false)
        .await;
    automation(&host, &org, &token, json!({ "type": "deal.stage_changed", "toStage": "lost" }), &url("/lost"), true)
        .await;
    let any = automation(&host, &org, &token, json!({ "type": "deal.stage_changed" }), &url("/any"), true).await;
    let deal = shop::open_deal(&host, &org, &token, "ana@acme.co").await;

    move_deal(&host, &token, &deal, "qualified").await;
    move_deal(&host, &token, &deal, "won").await;
    assert!(receiver.wait_for("/won", 1, Duration::from_secs(10)).await, "the active automation ran");
    assert!(receiver.wait_for("/any", 2, Duration::from_secs(10)).await, "an unfiltered trigger sees both moves");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.received_at("/won").len(), 1, "one call per event");
    assert!(receiver.received_at("/draft").is_empty(), "a draft never runs");
    assert!(receiver.received_at("/lost").is_empty(), "another stage's trigger does not run");

    let call = &receiver.received_at("/won")[0];
    let event = call.json();
    assert_eq!((&event["type"], &event["organizationId"]), (&json!("deal.stage_changed"), &json!(org)));
    assert_eq!(call.header("webhook-id"), event["id"].as_str().unwrap());
    assert_eq!(
        (&event["data"]["id"], &event["data"]["fromStage"], &event["data"]["toStage"], &event["data"]["stage"]),
        (&json!(deal), &json!("qualified"), &json!("won"), &json!("won"))
    );
    assert!(chrono::DateTime::parse_from_rfc3339(event["occurredAt"].as_str().unwrap()).is_ok());
    let sent_at: i64 = call.header("webhook-timestamp").parse().unwrap();
    assert!((chrono::Utc::now().timestamp() - sent_at).abs() < 30);
    assert!(call.signed_with(&secret(&host, &org).await), "signed with the organization's secret");
    assert!(!call.signed_with("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), "and not with any other");
    assert_eq!((call.header("content-type"), call.header("x-tenant")), ("application/json", "acme"));

    // Pausing stops it; the delivery is listed, without the target's headers.
    host.admin(Method::POST, &format!("/admin/orgs/{org}/automations/{any}/pause"), None).await;
    move_deal(&host, &token, &deal, "lost").await;
    assert!(receiver.wait_for("/lost", 1, Duration::from_secs(10)).await);
    // The receiver counts the call before the host records its answer.
    assert!(
        eventually(Duration::from_secs(5), || async {
            deliveries(&host, &token).await["data"].as_array().unwrap().iter().all(|d| d["status"] == "delivered")
        })
        .await
    );
    assert_eq!(receiver.received_at("/any").len(), 2, "a paused automation does not run");
    let listed = deliveries(&host, &token).await;
    assert_eq!(listed["pagination"]["total"], 4, "{listed}");
    let newest = &listed["data"][0];
    assert_eq!(
        (&newest["url"], &newest["status"], &newest["attempts"]),
        (&json!(url("/lost")), &json!("delivered"), &json!(1))
    );
    assert_eq!(
        (&newest["lastStatusCode"], &newest["eventType"], &newest["nextAttemptAt"]),
        (&json!(200), &json!("deal.stage_changed"), &Value::Null)
    );
    assert!(newest.get("headers").is_none(), "{newest}");

    // Paging as every list pages.
    let page = host.get("/api/webhooks/deliveries?limit=1&page=4", &token).await.json();
    assert_eq!(
        (page["data"][0]["id"].clone(), page["pagination"].clone()),
        (listed["data"][3]["id"].clone(), json!({ "total": 4, "page": 4, "limit": 1, "pages": 4 }))
    );
    assert_eq!(host.get("/api/webhooks/deliveries?page=9", &token).await.json()["data"], json!([]));
    for (query, field) in [("page=two", "page"), ("limit=1.5", "limit"), ("page=9007199254740992", "page")] {
        let r = host.get(&format!("/api/webhooks/deliveries?{query}"), &token).await;
        assert_eq!((r.status.as_u16(), r.json()["details"]["field"].clone()), (400, json!(field)), "{query}");
    }

    // Another organization sees none of it.
    let (_, other) = host.org_with_token(json!({ "name": "Otra" })).await;
    assert_eq!(deliveries(&host, &other).await["pagination"]["total"], 0);
    let id = newest["id"].as_str().unwrap();
    let r = host.post(&format!("/api/webhooks/deliveries/{id}/retry"), &other, &json!({})).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("DELIVERY_NOT_FOUND")));
    let reader = host.create_token(&org, &["automations:read"]).await;
    let r = host.post(&format!("/api/webhooks/deliveries/{id}/retry"), &reader, &json!({})).await;
    assert_eq!((r.status.as_u16(), r.json()["requiredPermission"].clone()), (403, json!("automations:write")));
    let r = host.post(&format!("/api/webhooks/deliveries/{id}/retry"), &token, &json!({})).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (409, json!("DELIVERY_NOT_FAILED")), "{}", r.text);
}

#[tokio::test]
async fn contacts_and_submissions_trigger_their_automations_with_the_object() {
    let receiver = Receiver::start().await;
    let host = Host::start_with(ALLOW_PRIVATE).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    let url = |path: &str| format!("{}{path}", receiver.url);
    automation(&host, &org, &token, json!({ "type": "contact.created" }), &url("/contact"), true).await;
    let form =
        host.admin(Method::POST, &format!("/admin/orgs/{org}/forms"), Some(&json!({ "name": "Contacto" }))).await;
    let form = form.json()["id"].as_str().unwrap().to_string();
    let other_form =
        host.admin(Method::POST, &format!("/admin/orgs/{org}/forms"), Some(&json!({ "name": "Otro" }))).await;
    let other_form = other_form.json()["id"].as_str().unwrap().to_string();
    automation(&host, &org, &token, json!({ "type": "form.submitted", "formId": form }), &url("/form"), true).await;

    let contact = shop::create_contact(&host, &token, "luz@acme.co").await;
    let r = host
        .post(&format!("/api/forms/{form}/submit"), &token, &json!({ "correo": "pedro@acme.co", "ciudad": "Medellín" }))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let submission = r.json()["data"]["submissionId"].clone();
    let r = host.post(&format!("/api/forms/{other_form}/submit"), &token, &json!({ "correo": "otro@acme.co" })).await;
    assert_eq!(r.status, 201, "{}", r.text);
    // An update is not a creation.
    let r = host.post("/api/contacts", &token, &json!({ "email": "luz@acme.co", "firstName": "Luz" })).await;
    assert_eq!(r.status, 200, "{}", r.text);

    assert!(receiver.wait_for("/contact", 3, Duration::from_secs(10)).await, "three contacts were created");
    assert!(receiver.wait_for("/form", 1, Duration::from_secs(10)).await);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let created: Vec<Value> = receiver.received_at("/contact").iter().map(|r| r.json()).collect();
    assert_eq!(created.len(), 3, "not the update");
    assert!(created.iter().all(|event| event["type"] == "contact.created"));
    // Deliveries run concurrently, so they may arrive in any order.
    let luz = created.iter().find(|event| event["data"]["id"] == json!(contact)).expect("luz's creation");
    assert_eq!(luz["data"]["email"], "luz@acme.co");
    assert_eq!(luz["data"]["cityCode"], "05001", "the contact as the API shows it");
    let forms = receiver.received_at("/form");
    assert_eq!(forms.len(), 1, "only the form the trigger names");
    let event = forms[0].json();
    assert_eq!(
        (&event["type"], &event["data"]["id"], &event["data"]["formId"]),
        (&json!("form.submitted"), &submission, &json!(form))
    );
    assert_eq!(event["data"]["fields"]["correo"], "pedro@acme.co");
}

#[tokio::test]
async fn every_contact_an_import_creates_is_announced_once_while_requests_race_it() {
    let receiver = Receiver::start().await;
    // The contacts module says (at debug) when a chunk of an import found
    // the store changed and ran its rows again one by one.
    let logging = [ALLOW_PRIVATE[0], ("RUST_LOG", "warn,crm_runtime::imports::basics=debug")];
    let host = Host::start_logging(&logging).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    const ROWS: usize = 1000;
    const RACED: usize = 10;
    for k in 0..RACED {
        host.post("/api/contacts", &token, &json!({ "email": format!("p{k}@acme.co") })).await;
    }
    automation(&host, &org, &token, json!({ "type": "contact.created" }), &format!("{}/contact", receiver.url), true)
        .await;
    // An import commits its rows a chunk at a time. One row in a hundred
    // updates a contact that API calls keep updating meanwhile: one changed
    // after its chunk read it makes that chunk's commit fail, and its rows
    // run again. Each contact the import creates is announced once, whether
    // its chunk committed or ran again. Each caller updates its contact every
    // 50 ms or so, about a chunk's time on fjall, a tenth of it on
    // PostgreSQL: callers in a tight loop took the machine from the import
    // (on PostgreSQL beside a debug host, past two minutes).
    let rows: Vec<Value> = (0..ROWS)
        .map(|i| match i % 100 {
            50 => json!({ "email": format!("p{}@acme.co", i / 100), "lastName": "Importado" }),
            _ => json!({ "email": format!("i{i}@acme.co") }),
        })
        .collect();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let started = std::sync::Arc::new(tokio::sync::Barrier::new(RACED + 1));
    let mut racers = Vec::new();
    for k in 0..RACED {
        let (api, client, token, done) = (host.api.clone(), host.client.clone(), token.clone(), done.clone());
        let started = started.clone();
        racers.push(tokio::spawn(async move {
            let mut round = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let body = json!({ "email": format!("p{k}@acme.co"), "firstName": format!("Vuelta {round}") });
                let r = client.post(format!("{api}/api/contacts")).bearer_auth(&token).json(&body).send().await;
                assert_eq!(r.unwrap().status(), 200);
                if round == 0 {
                    started.wait().await;
                }
                round += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }));
    }
    // The import begins once every caller has updated its contact once.
    tokio::time::timeout(Duration::from_secs(60), started.wait()).await.expect("every caller updated once");
    let import = host.post("/api/import/contacts", &token, &json!({ "rows": rows })).await;
    assert_eq!(import.status, 200, "{}", import.text);
    let import = import.json();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    for racer in racers {
        racer.await.unwrap();
    }
    let d = &import["data"];
    assert_eq!(
        (&d["created"], &d["updated"], &d["rejected"]),
        (&json!(ROWS - RACED), &json!(RACED), &json!(0)),
        "{import}"
    );
    // About half the chunks meet a changed contact; none would make this test
    // prove nothing. Each such chunk runs its update again alone and its
    // creates in one chunk again, which nothing else changes: never each row
    // alone, a commit a row.
    let log = host.log();
    assert!(log.contains("found the store changed; its updates run again alone"), "no chunk ran again");
    assert!(!log.contains("its rows run again alone"), "a chunk's creates were refused twice");

    assert!(receiver.wait_for("/contact", ROWS - RACED, Duration::from_secs(60)).await, "every creation announced");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut announced: Vec<String> =
        receiver.received_at("/contact").iter().map(|r| r.json()["data"]["email"].to_string()).collect();
    assert_eq!(announced.len(), ROWS - RACED, "one announcement a contact the import created");
    announced.sort();
    announced.dedup();
    assert_eq!(announced.len(), ROWS - RACED, "none twice");
}

#[tokio::test]
async fn a_failed_attempt_is_retried_with_the_same_id_and_gone_stops_at_once() {
    let receiver = Receiver::start().await;
    let host = Host::start_with(ALLOW_PRIVATE).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    receiver.answer_path("/gone", Answer::Status(410));
    automation(
        &host,
        &org,
        &token,
        json!({ "type": "deal.stage_changed", "toStage": "won" }),
        &format!("{}/hook", receiver.url),
        true,
    )
    .await;
    automation(
        &host,
        &org,
        &token,
        json!({ "type": "deal.stage_changed", "toStage": "won" }),
        &format!("{}/gone", receiver.url),
        true,
    )
    .await;
    receiver.answer_next([Answer::Status(500)]);
    let deal = shop::open_deal(&host, &org, &token, "ana@acme.co").await;
    move_deal(&host, &token, &deal, "won").await;

    assert!(receiver.wait_for("/hook", 2, Duration::from_secs(15)).await, "retried after about 5 s");
    let calls = receiver.received_at("/hook");
    assert_eq!(calls[0].header("webhook-id"), calls[1].header("webhook-id"), "the same id on every retry");
    assert_eq!(calls[0].body, calls[1].body);
    let waited = calls[1].at - calls[0].at;
    // The schedule's 5 s (its jitter only stretches); late by up to 7 s on
    // a loaded machine, where the next would be 300 s.
    assert!(waited >= Duration::from_millis(4500) && waited < Duration::from_secs(12), "{waited:?}");
    // The receiver counts the call before the host records its answer.
    assert!(
        eventually(Duration::from_secs(5), || async {
            deliveries(&host, &token).await["data"].as_array().unwrap().iter().all(|d| d["status"] != "pending")
        })
        .await
    );
    let listed = deliveries(&host, &token).await;
    let by_url = |suffix: &str| {
        listed["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["url"].as_str().unwrap().ends_with(suffix))
            .unwrap()
            .clone()
    };
    let ok = by_url("/hook");
    assert_eq!(
        (&ok["status"], &ok["attempts"], &ok["lastStatusCode"]),
        (&json!("delivered"), &json!(2), &json!(200)),
        "{ok}"
    );
    let gone = by_url("/gone");
    assert_eq!(
        (&gone["status"], &gone["attempts"], &gone["lastStatusCode"]),
        (&json!("failed"), &json!(1), &json!(410)),
        "{gone}"
    );
    assert_eq!(receiver.received_at("/gone").len(), 1, "410 stops retries at once");
    // The failed ones are found without paging through the others.
    let in_status = |status: &str| {
        let path = format!("/api/webhooks/deliveries?status={status}");
        let (host, token) = (&host, &token);
        async move {
            let page = host.get(&path, token).await.json();
            let ids: Vec<Value> = page["data"].as_array().unwrap().iter().map(|d| d["id"].clone()).collect();
            (ids, page["pagination"]["total"].clone())
        }
    };
    assert_eq!(in_status("failed").await, (vec![gone["id"].clone()], json!(1)));
    assert_eq!(in_status("delivered").await, (vec![ok["id"].clone()], json!(1)));
    assert_eq!(in_status("pending").await, (vec![], json!(0)));
    let r = host.get("/api/webhooks/deliveries?status=lost", &token).await;
    assert_eq!((r.status.as_u16(), r.json()["details"].clone()), (400, json!({ "field": "status" })));

    // The app's customer fixes the endpoint and sends the failed one again.
    receiver.answer_path("/gone", Answer::Status(204));
    let r = host
        .post(&format!("/api/webhooks/deliveries/{}/retry", gone["id"].as_str().unwrap()), &token, &json!({}))
        .await;
    assert_eq!((r.status.as_u16(), r.json()["data"]["status"].clone()), (200, json!("pending")), "{}", r.text);
    assert!(receiver.wait_for("/gone", 2, Duration::from_secs(10)).await);
    let again = receiver.received_at("/gone");
    assert_eq!(again[0].header("webhook-id"), again[1].header("webhook-id"));
    assert!(
        eventually(Duration::from_secs(5), || async {
            deliveries(&host, &token).await["data"].as_array().unwrap().iter().all(|d| d["status"] == "delivered")
        })
        .await
    );
    assert_eq!(in_status("failed").await, (vec![], json!(0)));
    let (both, total) = in_status("delivered").await;
    assert_eq!((both.len(), total), (2, json!(2)));
    assert_eq!(
        in_status("delivered&limit=1&page=2").await,
        (vec![both[1].clone()], json!(2)),
        "pages count matches only"
    );
}

#[tokio::test]
async fn a_redirect_is_not_followed_and_a_busy_receiver_sets_the_wait() {
    let receiver = Receiver::start().await;
    let host = Host::start_with(ALLOW_PRIVATE).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    receiver.answer_path("/moved", Answer::With(302, vec![("location", format!("{}/elsewhere", receiver.url))]));
    receiver.answer_path("/busy", Answer::With(429, vec![("retry-after", "1".into())]));
    automation(&host, &org, &token, json!({ "type": "contact.created" }), &format!("{}/moved", receiver.url), true)
        .await;
    automation(&host, &org, &token, json!({ "type": "contact.created" }), &format!("{}/busy", receiver.url), true)
        .await;
    shop::create_contact(&host, &token, "ana@acme.co").await;

    assert!(receiver.wait_for("/busy", 3, Duration::from_secs(10)).await, "Retry-After: 1 is honoured");
    let busy = receiver.received_at("/busy");
    // The schedule's second attempt comes 5 s or more after the first (its
    // jitter only stretches); 4 s leaves room for a loaded machine.
    assert!(busy[1].at - busy[0].at < Duration::from_millis(4500), "not the 5 s of the schedule");
    assert_eq!(receiver.received_at("/moved").len(), 1);
    assert!(receiver.received_at("/elsewhere").is_empty(), "a redirect is not followed");
    let listed = deliveries(&host, &token).await;
    let moved = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["url"].as_str().unwrap().ends_with("/moved"))
        .unwrap()
        .clone();
    assert_eq!((&moved["status"], &moved["lastStatusCode"]), (&json!("pending"), &json!(302)), "{moved}");
    assert!(moved["nextAttemptAt"].is_string());
}

#[tokio::test]
async fn every_event_arrives_after_a_kill_9_while_the_receiver_was_down() {
    // A port with nobody on it yet.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(data.path(), ALLOW_PRIVATE).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    automation(&host, &org, &token, json!({ "type": "contact.created" }), &format!("http://{port}/hook"), true).await;
    let mut contacts = Vec::new();
    for i in 0..5 {
        contacts.push(shop::create_contact(&host, &token, &format!("c{i}@acme.co")).await);
    }
    host.kill9();

    let receiver = Receiver::start_on(port).await;
    let host = Host::start_in(data.path(), ALLOW_PRIVATE).await;
    assert!(receiver.wait_for("/hook", 5, Duration::from_secs(20)).await, "{} arrived", receiver.received().len());
    let mut arrived: Vec<String> =
        receiver.received_at("/hook").iter().map(|r| r.json()["data"]["id"].as_str().unwrap().to_string()).collect();
    arrived.sort();
    arrived.dedup();
    contacts.sort();
    assert_eq!(arrived, contacts, "every acknowledged creation, once or more");
    assert!(
        eventually(Duration::from_secs(5), || async {
            let listed = deliveries(&host, &token).await;
            listed["data"].as_array().unwrap().iter().all(|d| d["status"] == "delivered")
        })
        .await
    );
}

/// What the list says is kept: a delivery listed `delivered` is still
/// delivered after a `kill -9` right after, and is not sent again.
#[tokio::test]
async fn a_delivery_listed_delivered_stays_delivered_after_a_kill_9() {
    let receiver = Receiver::start().await;
    let data = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(data.path(), ALLOW_PRIVATE).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    automation(&host, &org, &token, json!({ "type": "contact.created" }), &format!("{}/hook", receiver.url), true)
        .await;
    const CONTACTS: usize = 20;
    for i in 0..CONTACTS {
        shop::create_contact(&host, &token, &format!("c{i}@acme.co")).await;
    }
    // Listed as soon as the worker records the answers, then the crash.
    let listed = loop {
        let r = host.get("/api/webhooks/deliveries?status=delivered&limit=100", &token).await;
        let delivered = r.json()["data"].as_array().unwrap().len();
        if delivered > 0 {
            break delivered;
        }
    };
    host.kill9();

    let host = Host::start_in(data.path(), ALLOW_PRIVATE).await;
    let after = host.get("/api/webhooks/deliveries?status=delivered&limit=100", &token).await.json();
    assert!(after["data"].as_array().unwrap().len() >= listed, "{listed} were listed delivered: {after}");
    // A bound for a loaded CI machine, not a speed goal: waiting returns as
    // soon as every event arrived. What the host says of each is the message.
    let arrived = receiver.wait_for("/hook", CONTACTS, Duration::from_secs(60)).await;
    assert!(
        arrived,
        "{} arrived; the host lists {}",
        receiver.received_at("/hook").len(),
        deliveries(&host, &token).await
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    let sent: Vec<String> = receiver.received_at("/hook").iter().map(|r| r.header("webhook-id").to_string()).collect();
    let mut once = sent.clone();
    once.sort();
    once.dedup();
    // Those not yet listed may go again (at least once); those listed may not.
    assert!(
        sent.len() - once.len() <= CONTACTS - listed,
        "{} sent for {} events, {listed} listed",
        sent.len(),
        once.len()
    );
}

#[tokio::test]
async fn a_hanging_receiver_holds_up_no_other_organization() {
    let slow = Receiver::start().await;
    slow.answer_path("/hang", Answer::Hang);
    let fast = Receiver::start().await;
    let host = Host::start_with(ALLOW_PRIVATE).await;
    let (stuck_org, stuck) = host.org_with_token(json!({ "name": "Lenta" })).await;
    automation(&host, &stuck_org, &stuck, json!({ "type": "contact.created" }), &format!("{}/hang", slow.url), true)
        .await;
    let (org, token) = host.org_with_token(json!({ "name": "Rápida" })).await;
    automation(&host, &org, &token, json!({ "type": "contact.created" }), &format!("{}/hook", fast.url), true).await;

    for i in 0..30 {
        shop::create_contact(&host, &stuck, &format!("s{i}@lenta.co")).await;
    }
    assert!(slow.wait_for("/hang", 8, Duration::from_secs(5)).await, "the stuck organization's slots are taken");
    let started = Instant::now();
    shop::create_contact(&host, &token, "ana@rapida.co").await;
    let api = started.elapsed();
    // Waiting on the hanging attempts would take their 15 s.
    assert!(fast.wait_for("/hook", 1, Duration::from_secs(10)).await, "delivered while the other hangs");
    let delivered = started.elapsed();
    assert!(api < Duration::from_secs(5), "the API is not slowed: {api:?}");
    assert!(delivered < Duration::from_secs(10), "{delivered:?}");
    assert_eq!(slow.received_at("/hang").len(), 8, "one organization has at most 8 attempts in flight");
}

#[tokio::test]
async fn without_the_setting_private_targets_are_refused_when_saved() {
    let host = Host::start().await;
    let (_, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    for url in [
        "https://127.0.0.1/hook",
        "https://10.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://localhost/hook",
        "http://8.8.8.8/hook",
    ] {
        let body = json!({ "name": "x", "trigger": { "type": "contact.created" },
                           "actions": [{ "type": "http_request", "url": url }] });
        let r = host.post("/api/automations", &token, &body).await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("WEBHOOK_URL_NOT_ALLOWED")), "{url}");
    }
}

/// Sends one event of each type the host has (an automation's for contacts,
/// submissions and deals; a stage's webhook for conversations) and checks
/// each against both lists of event types: a type the host sends that
/// either lacks, or a body without what its schema requires, fails.
#[tokio::test]
async fn every_event_type_the_host_sends_is_listed_in_the_document_and_by_the_api() {
    let receiver = Receiver::start().await;
    let host = Host::start_with(ALLOW_PRIVATE).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    let hook = format!("{}/hook", receiver.url);
    for trigger in ["contact.created", "form.submitted", "deal.stage_changed"] {
        automation(&host, &org, &token, json!({ "type": trigger }), &hook, true).await;
    }
    let stages = json!([{ "name": "Recibido" }, { "name": "Escalado", "webhookUrl": hook }]);
    let body = json!({ "kind": "conversations", "name": "Soporte", "stages": stages });
    let pipeline = crate::pipelines::create_pipeline(&host, &org, body).await.json();
    let conversation = crate::pipelines::conversation(&host, &org).await;
    let r =
        crate::pipelines::move_to(&host, &token, &conversation, &pipeline["id"], &pipeline["stages"][1]["id"]).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let deal = shop::open_deal(&host, &org, &token, "ana@acme.co").await;
    move_deal(&host, &token, &deal, "qualified").await;
    // The deal's form made a contact and a submission: one of each type at least.
    let kinds = || -> std::collections::BTreeSet<String> {
        receiver.received_at("/hook").iter().map(|r| r.json()["type"].as_str().unwrap().to_string()).collect()
    };
    assert!(eventually(Duration::from_secs(10), || async { kinds().len() == 4 }).await, "sent: {:?}", kinds());
    let sent = kinds();

    let document = host.call(Method::GET, "/api/openapi.json", None, None).await.json();
    let listed = host.get("/api/webhooks/event-types", &token).await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    let listed = listed.json()["data"].as_array().unwrap().clone();
    for kind in &sent {
        assert!(document["webhooks"].get(kind).is_some(), "the document's webhooks lack {kind}");
        let entry = listed.iter().find(|t| t["type"] == json!(kind));
        let entry = entry.unwrap_or_else(|| panic!("GET /api/webhooks/event-types lacks {kind}"));
        let schema = &entry["schema"];
        for call in receiver.received_at("/hook").iter().map(|r| r.json()).filter(|e| e["type"] == json!(kind)) {
            for field in schema["required"].as_array().unwrap() {
                assert!(call.get(field.as_str().unwrap()).is_some(), "{kind} without {field}: {call}");
            }
            assert_eq!(call["type"], schema["properties"]["type"]["const"]);
            assert_eq!(call["organizationId"], json!(org));
        }
    }
    let r = host.get("/api/webhooks/event-types", &host.create_token(&org, &["contacts:read"]).await).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (403, json!("INSUFFICIENT_API_PERMISSIONS")));
}

/// A receiver that was gone (410: each delivery failed at once) comes back;
/// one call sends again every failed delivery of the window, to the URL
/// named, each with its event's id, and nothing else.
#[tokio::test]
async fn the_failed_deliveries_of_a_window_are_sent_again_once_the_receiver_is_back() {
    let receiver = Receiver::start().await;
    let host = Host::start_with(ALLOW_PRIVATE).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    let (down, other) = (format!("{}/down", receiver.url), format!("{}/other", receiver.url));
    receiver.answer_path("/down", Answer::Status(410));
    receiver.answer_path("/other", Answer::Status(410));
    automation(&host, &org, &token, json!({ "type": "contact.created" }), &down, true).await;
    automation(&host, &org, &token, json!({ "type": "contact.created" }), &other, true).await;
    let before = chrono::Utc::now() - chrono::Duration::seconds(1);
    for i in 0..3 {
        shop::create_contact(&host, &token, &format!("c{i}@acme.co")).await;
    }
    let failed = || async {
        let listed = host.get("/api/webhooks/deliveries?status=failed", &token).await.json();
        listed["pagination"]["total"].as_u64().unwrap()
    };
    assert!(eventually(Duration::from_secs(10), || async { failed().await == 6 }).await, "six failed at once");
    let first_ids: Vec<String> =
        receiver.received_at("/down").iter().map(|r| r.header("webhook-id").to_string()).collect();

    receiver.answer_path("/down", Answer::Status(200));
    let recover = |body: Value| {
        let host = &host;
        let token = token.clone();
        async move { host.post("/api/webhooks/deliveries/recover", &token, &body).await }
    };
    let r = recover(json!({ "since": chrono::Utc::now().to_rfc3339() })).await;
    assert_eq!(r.json()["data"], json!({ "queued": 0, "more": false }), "nothing failed since now");
    let r = recover(json!({ "since": before.to_rfc3339(), "url": down })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["data"], json!({ "queued": 3, "more": false }));
    assert!(receiver.wait_for("/down", 6, Duration::from_secs(10)).await, "each sent again");
    let again: Vec<String> =
        receiver.received_at("/down")[3..].iter().map(|r| r.header("webhook-id").to_string()).collect();
    let (mut first_sorted, mut again_sorted) = (first_ids.clone(), again.clone());
    first_sorted.sort();
    again_sorted.sort();
    assert_eq!(first_sorted, again_sorted, "each with its event's id");
    assert!(eventually(Duration::from_secs(5), || async { failed().await == 3 }).await, "the other URL's stay failed");
    let r = recover(json!({ "since": before.to_rfc3339(), "url": down })).await;
    assert_eq!(r.json()["data"]["queued"], 0, "delivered ones are not sent again");

    for (body, field) in [
        (json!({}), Value::Null),
        (json!({ "since": "yesterday" }), json!("since")),
        (json!({ "since": before.to_rfc3339(), "until": before.to_rfc3339() }), json!("until")),
    ] {
        let r = recover(body.clone()).await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("VALIDATION_ERROR")), "{body}");
        if !field.is_null() {
            assert_eq!(r.json()["details"]["field"], field, "{body}");
        }
    }
    let reader = host.create_token(&org, &["automations:read"]).await;
    let r = host.post("/api/webhooks/deliveries/recover", &reader, &json!({ "since": before.to_rfc3339() })).await;
    assert_eq!(r.status, 403);
}

/// A test send reaches the receiver signed as a delivery is, with the
/// document's sample of the type, and answers the receiver's status, the
/// latency and the start of its answer; nothing is listed as a delivery.
#[tokio::test]
async fn a_test_send_answers_what_the_receiver_did() {
    let receiver = Receiver::start().await;
    let host = Host::start_with(ALLOW_PRIVATE).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    receiver.answer_path("/busy", Answer::Status(503));
    let url = format!("{}/hook", receiver.url);
    let r = host.post("/api/webhooks/test", &token, &json!({ "url": url, "type": "deal.stage_changed" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let data = r.json()["data"].clone();
    assert_eq!((&data["status"], &data["body"]), (&json!(200), &json!("ok")));
    assert!(data["latencyMs"].as_u64().is_some() && data.get("error").is_none(), "{data}");
    let calls = receiver.received_at("/hook");
    assert_eq!(calls.len(), 1);
    let event = calls[0].json();
    assert_eq!((&event["type"], &event["organizationId"]), (&json!("deal.stage_changed"), &json!(org)));
    assert_eq!(event["data"]["toStage"], "qualified", "the document's sample");
    assert_eq!(calls[0].header("webhook-id"), event["id"].as_str().unwrap());
    assert!(calls[0].signed_with(&secret(&host, &org).await));

    let r = host.post("/api/webhooks/test", &token, &json!({ "url": format!("{}/busy", receiver.url) })).await;
    assert_eq!(
        (r.json()["data"]["status"].clone(), receiver.received_at("/busy")[0].json()["type"].clone()),
        (json!(503), json!("contact.created"))
    );
    // Nothing listens on port 9 of loopback: no answer, and why.
    let r = host.post("/api/webhooks/test", &token, &json!({ "url": "http://127.0.0.1:9/hook" })).await;
    assert_eq!(r.json()["data"]["status"], Value::Null, "{}", r.text);
    assert!(r.json()["data"]["error"].as_str().is_some_and(|e| e.contains("connection")), "{}", r.text);
    assert_eq!(deliveries(&host, &token).await["pagination"]["total"], 0, "a test send is no delivery");

    let r = host.post("/api/webhooks/test", &token, &json!({ "url": url, "type": "order.shipped" })).await;
    assert_eq!((r.status.as_u16(), r.json()["details"]["field"].clone()), (400, json!("type")));
    let strict = Host::start().await;
    let (_, strict_token) = strict.org_with_token(json!({ "name": "Acme" })).await;
    let r = strict.post("/api/webhooks/test", &strict_token, &json!({ "url": url })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("WEBHOOK_URL_NOT_ALLOWED")), "{}", r.text);
    let reader = host.create_token(&org, &["automations:read"]).await;
    assert_eq!(host.post("/api/webhooks/test", &reader, &json!({ "url": url })).await.status, 403);
}

#[tokio::test]
async fn a_switch_to_v1a_signs_with_ed25519_and_both_schemes_sign_through_the_overlap() {
    let receiver = Receiver::start().await;
    let host = Host::start_with(ALLOW_PRIVATE).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    automation(&host, &org, &token, json!({ "type": "contact.created" }), &format!("{}/c", receiver.url), true).await;
    let hmac_secret = secret(&host, &org).await;
    let rotate = format!("/admin/orgs/{org}/webhook-secret/rotate");

    let switched = host.admin(Method::POST, &rotate, Some(&json!({ "scheme": "v1a" }))).await;
    assert_eq!(switched.status, 200, "{}", switched.text);
    let keys = switched.json();
    let public_key = keys["publicKey"].as_str().unwrap().to_string();
    assert_eq!(public_key.strip_prefix("whpk_").map(str::len), Some(44), "base64 of 32 bytes: {public_key}");
    assert_eq!(
        (&keys["scheme"], &keys["secret"], &keys["previous"]),
        (&json!("v1a"), &Value::Null, &json!(hmac_secret))
    );
    assert!(!switched.text.contains("whsk_"), "the private key is never shown: {}", switched.text);
    let shown = host.admin(Method::GET, &format!("/admin/orgs/{org}/webhook-secret"), None).await;
    assert_eq!(shown.json(), keys);

    // Through the switch's overlap, a receiver holding either verifies.
    shop::create_contact(&host, &token, "luz@acme.co").await;
    assert!(receiver.wait_for("/c", 1, Duration::from_secs(10)).await);
    let first = &receiver.received_at("/c")[0];
    assert!(first.signed_by(&public_key), "{}", first.header("webhook-signature"));
    assert!(first.signed_with(&hmac_secret), "{}", first.header("webhook-signature"));

    // A rotation inside v1a: the new key and the one before sign.
    let rotated = host.admin(Method::POST, &rotate, None).await.json();
    let new_key = rotated["publicKey"].as_str().unwrap().to_string();
    assert_eq!((&rotated["scheme"], &rotated["previousPublicKey"]), (&json!("v1a"), &json!(public_key)));
    assert_ne!(new_key, public_key);
    shop::create_contact(&host, &token, "pedro@acme.co").await;
    assert!(receiver.wait_for("/c", 2, Duration::from_secs(10)).await);
    let second = &receiver.received_at("/c")[1];
    assert!(second.signed_by(&new_key) && second.signed_by(&public_key), "{}", second.header("webhook-signature"));
    assert!(!second.signed_with(&hmac_secret), "the HMAC secret no longer signs");
    let tampered = crm_tests::receiver::Received { body: b"{}".to_vec(), ..second.clone() };
    assert!(!tampered.signed_by(&new_key), "the signature covers the body");

    let bad = host.admin(Method::POST, &rotate, Some(&json!({ "scheme": "v2" }))).await;
    assert_eq!(bad.status, 400, "{}", bad.text);
}

/// Saves and activates an automation of `trigger` with one action, whose
/// fields besides `type` are `action`.
async fn automation_with(host: &Host, org: &str, token: &str, trigger: Value, action: Value) -> Value {
    let mut action = action;
    action["type"] = json!("http_request");
    let r = host
        .post("/api/automations", token, &json!({ "name": "Con reglas", "trigger": trigger, "actions": [action] }))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let saved = r.json()["data"].clone();
    let id = saved["id"].as_str().unwrap();
    let r = host.admin(Method::POST, &format!("/admin/orgs/{org}/automations/{id}/activate"), None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    saved
}

/// When each paced attempt (of `per_second`) left, from the host's debug log
/// (`CRM_LOG_FORMAT=json`), oldest first.
fn departures(log: &str, per_second: usize) -> Vec<chrono::DateTime<chrono::Utc>> {
    let lines = log.lines().filter_map(|line| serde_json::from_str::<Value>(line).ok());
    let paced = lines.filter(|l| l["message"] == "a webhook attempt leaves" && l["per_second"] == per_second);
    let stamp = |l: &Value| chrono::DateTime::parse_from_rfc3339(l["timestamp"].as_str()?).ok();
    let mut at: Vec<_> = paced.filter_map(|l| stamp(&l)).map(|t| t.with_timezone(&chrono::Utc)).collect();
    at.sort();
    at
}

/// Where the most of `stamps` (sorted) fall within a second of each other:
/// how many, from which, and the offsets (ms from the first stamp) around it.
fn busiest_second<T: Copy + Ord>(
    stamps: &[T],
    within_a_second: impl Fn(T, T) -> bool,
    ms: impl Fn(T) -> i64,
) -> (usize, usize, Vec<i64>) {
    let (mut most, mut from) = (0, 0);
    for (i, at) in stamps.iter().enumerate() {
        let n = stamps[i..].iter().take_while(|later| within_a_second(*at, **later)).count();
        if n > most {
            (most, from) = (n, i);
        }
    }
    let around = stamps[from.saturating_sub(3)..(from + most + 3).min(stamps.len())].iter().map(|t| ms(*t)).collect();
    (most, from, around)
}

/// A backlog to a target paced at ten a second drains at that pace, and
/// never faster. Never faster is the host's promise, checked on its own
/// stamps (its log says when each attempt left): no second holds more than
/// ten, and one at its edge. On the receiver's stamps, which the machine's
/// load can move (the host's send, the receiver's own threads), one more is
/// allowed for 100 ms of such jitter. At its pace: in the 20 s after the
/// unpaced target (same events, as fast as it answers) has had all of its
/// own, which meanwhile hold the worker, at least four fifths of the pace
/// arrive (a turn that comes up late is not caught up on: that would go
/// faster than the pace).
#[tokio::test]
async fn a_paced_target_drains_a_backlog_at_its_pace_and_never_faster() {
    const PACE: usize = 10;
    const ROWS: usize = 400;
    const WINDOW: Duration = Duration::from_secs(20);
    let receiver = Receiver::start().await;
    let logging = [ALLOW_PRIVATE[0], ("RUST_LOG", "warn,crm_events::worker=debug"), ("CRM_LOG_FORMAT", "json")];
    let host = Host::start_logging(&logging).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    let contact = json!({ "type": "contact.created" });
    let paced = json!({ "url": format!("{}/paced", receiver.url), "maxPerSecond": PACE });
    let saved = automation_with(&host, &org, &token, contact.clone(), paced).await;
    assert_eq!(saved["actions"][0]["maxPerSecond"], PACE);
    automation_with(&host, &org, &token, contact, json!({ "url": format!("{}/free", receiver.url) })).await;
    for (bad, field) in [(json!({ "maxPerSecond": 0 }), "maxPerSecond"), (json!({ "ordered": "yes" }), "ordered")] {
        let mut action = json!({ "type": "http_request", "url": format!("{}/x", receiver.url) });
        action.as_object_mut().unwrap().extend(bad.as_object().unwrap().clone());
        let body = json!({ "name": "Mal", "trigger": { "type": "contact.created" }, "actions": [action] });
        let r = host.post("/api/automations", &token, &body).await;
        assert_eq!(
            (r.status.as_u16(), r.json()["details"]["field"].clone()),
            (400, json!(format!("actions[0].{field}")))
        );
    }

    let rows: Vec<Value> = (0..ROWS).map(|i| json!({ "email": format!("c{i}@acme.co") })).collect();
    let r = host.post("/api/import/contacts", &token, &json!({ "rows": rows })).await;
    assert_eq!((r.status.as_u16(), r.json()["data"]["created"].clone()), (200, json!(ROWS)), "{}", r.text);

    // The same events to a target without a pace go as fast as it answers.
    assert!(receiver.wait_for("/free", ROWS, Duration::from_secs(60)).await, "the unpaced target is not held back");
    let from = Instant::now();
    let before = receiver.received_at("/paced").len();
    assert!(before + PACE * WINDOW.as_secs() as usize <= ROWS, "only {} left to send", ROWS - before);
    tokio::time::sleep(WINDOW).await;
    let arrivals: Vec<Instant> = receiver.received_at("/paced").iter().map(|r| r.at).collect();
    let in_window = arrivals.iter().filter(|at| **at >= from && at.duration_since(from) < WINDOW).count();
    let at_pace = PACE * WINDOW.as_secs() as usize;
    assert!((at_pace * 4 / 5..=at_pace + 2).contains(&in_window), "{in_window} in {WINDOW:?} at {PACE} a second");

    // Never faster, on the host's stamps.
    let left = departures(&host.log(), PACE);
    assert!(left.len() >= arrivals.len(), "{} departures logged, {} arrived", left.len(), arrivals.len());
    let second = chrono::TimeDelta::seconds(1);
    let (most, i, around) =
        busiest_second(&left, |at, later| later - at < second, |t| (t - left[0]).num_milliseconds());
    eprintln!("{in_window} arrived in {WINDOW:?}; at most {most} left within a second");
    assert!(most <= PACE + 1, "{most} left within a second, from departure {i}: {around:?} ms");
    // And on the receiver's.
    let (most, i, around) = busiest_second(
        &arrivals,
        |at, later| later.duration_since(at) < Duration::from_secs(1),
        |t| t.duration_since(arrivals[0]).as_millis() as i64,
    );
    eprintln!("at most {most} arrived within a second");
    assert!(most <= PACE + 2, "{most} arrived within a second, from arrival {i}: {around:?} ms");
}

#[tokio::test]
async fn an_ordered_target_gets_each_resources_events_in_order_through_a_retry() {
    let receiver = Receiver::start().await;
    let host = Host::start_with(ALLOW_PRIVATE).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    let ordered = json!({ "url": format!("{}/ordered", receiver.url), "ordered": true });
    let saved = automation_with(&host, &org, &token, json!({ "type": "deal.stage_changed" }), ordered).await;
    assert_eq!(saved["actions"][0]["ordered"], true);
    let first = shop::open_deal(&host, &org, &token, "ana@acme.co").await;
    let second = shop::open_deal(&host, &org, &token, "luz@acme.co").await;

    // The first deal's first move fails once (retried 5 s later); its later
    // moves wait behind it, and the other deal's does not.
    receiver.answer_next([Answer::Status(503)]);
    move_deal(&host, &token, &first, "qualified").await;
    assert!(receiver.wait_for("/ordered", 1, Duration::from_secs(10)).await);
    for stage in ["proposal", "won", "lost"] {
        move_deal(&host, &token, &first, stage).await;
    }
    move_deal(&host, &token, &second, "won").await;

    assert!(receiver.wait_for("/ordered", 6, Duration::from_secs(30)).await, "the retry then the rest");
    let received = receiver.received_at("/ordered");
    // Between the first attempt and its retry, only the other deal's move.
    let deals: Vec<(Value, Value)> =
        received.iter().map(|r| (r.json()["data"]["id"].clone(), r.json()["data"]["toStage"].clone())).collect();
    assert_eq!(
        deals[..3],
        [(json!(first), json!("qualified")), (json!(second), json!("won")), (json!(first), json!("qualified"))],
        "only the other deal's move went meanwhile"
    );
    let stages: Vec<Value> = received
        .iter()
        .map(|r| r.json()["data"].clone())
        .filter(|data| data["id"] == json!(first))
        .map(|data| data["toStage"].clone())
        .collect();
    assert_eq!(stages, [json!("qualified"), json!("qualified"), json!("proposal"), json!("won"), json!("lost")]);
}

/// Whether, within 10 s, exactly one delivery is listed as held by a disabled endpoint.
async fn one_held(host: &Host, token: &str) -> bool {
    eventually(Duration::from_secs(10), || async {
        let held = host.get("/api/webhooks/deliveries?status=disabled", token).await.json();
        held["pagination"]["total"] == 1
    })
    .await
}

#[tokio::test]
async fn an_endpoint_failing_past_the_period_is_disabled_told_of_and_enabled_again() {
    let receiver = Receiver::start().await;
    let settings = [ALLOW_PRIVATE[0], ("CRM_WEBHOOK_DISABLE_AFTER_SECS", "3")];
    let host = Host::start_with(&settings).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme", "plan": "pro" })).await;
    let down = format!("{}/down", receiver.url);
    receiver.answer_path("/down", Answer::Status(503));
    let contacts = automation(&host, &org, &token, json!({ "type": "contact.created" }), &down, true).await;
    let watcher = format!("{}/watch", receiver.url);
    automation(&host, &org, &token, json!({ "type": "webhook.endpoint_disabled" }), &watcher, true).await;
    let endpoints = format!("/admin/orgs/{org}/webhook-endpoints");

    // The first attempt fails, and its retry 5 s later: failing for longer
    // than the period (3 s here, 5 days by default), the endpoint is disabled.
    shop::create_contact(&host, &token, "uno@acme.co").await;
    assert!(receiver.wait_for("/watch", 1, Duration::from_secs(20)).await, "the other endpoint is told");
    assert_eq!(receiver.received_at("/down").len(), 2);
    let told = &receiver.received_at("/watch")[0];
    assert!(told.signed_with(&secret(&host, &org).await));
    let event = told.json();
    assert_eq!((&event["type"], &event["data"]["url"]), (&json!("webhook.endpoint_disabled"), &json!(down)));
    let types = host.get("/api/webhooks/event-types", &token).await.json();
    let listed = types["data"].as_array().unwrap().iter().find(|t| t["type"] == "webhook.endpoint_disabled");
    assert!(listed.is_some(), "the document and the API list what the host sent: {types}");
    let listed = host.admin(Method::GET, &endpoints, None).await.json();
    assert_eq!(listed["data"].as_array().unwrap().len(), 1, "{listed}");
    let endpoint = &listed["data"][0];
    assert_eq!((&endpoint["url"], &endpoint["status"]), (&json!(down), &json!("disabled")));
    assert_eq!(endpoint["lastError"], "answered 503");
    assert_eq!(event["data"]["disabledAt"], endpoint["disabledAt"]);
    let notified = host.get("/api/notifications", &token).await.json();
    let notice = &notified["data"][0];
    assert_eq!((&notice["type"], &notice["url"]), (&json!("webhook_endpoint_disabled"), &json!(down)), "{notified}");
    assert!(notice["message"].as_str().unwrap().contains(&down));

    // Held: a new event to it is not attempted, and is listed as such.
    shop::create_contact(&host, &token, "dos@acme.co").await;
    assert!(one_held(&host, &token).await, "the new event's delivery is held");
    assert_eq!(receiver.received_at("/down").len(), 2, "a disabled endpoint is not attempted");

    // The app activates the automation again: the endpoint is enabled and
    // what it held goes out.
    receiver.answer_path("/down", Answer::Status(200));
    let r = host.admin(Method::POST, &format!("/admin/orgs/{org}/automations/{contacts}/activate"), None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(receiver.wait_for("/down", 3, Duration::from_secs(10)).await, "the held delivery went out");
    assert_eq!(receiver.received_at("/down")[2].json()["data"]["email"], "dos@acme.co");
    assert_eq!(host.admin(Method::GET, &endpoints, None).await.json()["data"], json!([]));

    // Disabled again, then enabled by the admin call.
    receiver.answer_path("/down", Answer::Status(503));
    shop::create_contact(&host, &token, "tres@acme.co").await;
    assert!(receiver.wait_for("/watch", 2, Duration::from_secs(20)).await, "disabled again");
    shop::create_contact(&host, &token, "cuatro@acme.co").await;
    assert!(one_held(&host, &token).await, "the new event's delivery is held");
    receiver.answer_path("/down", Answer::Status(200));
    let enable = format!("{endpoints}/enable");
    let r = host.admin(Method::POST, &enable, Some(&json!({ "url": down }))).await;
    assert_eq!((r.status.as_u16(), r.json()["status"].clone()), (200, json!("healthy")), "{}", r.text);
    assert!(
        eventually(Duration::from_secs(10), || async {
            receiver.received_at("/down").iter().any(|r| r.json()["data"]["email"] == "cuatro@acme.co")
        })
        .await,
        "the held delivery went out"
    );
    assert_eq!(host.admin(Method::POST, &enable, Some(&json!({}))).await.status, 400);
    let nobody = "/admin/orgs/0123456789abcdef01234567/webhook-endpoints";
    assert_eq!(host.admin(Method::GET, nobody, None).await.status, 404);
}
