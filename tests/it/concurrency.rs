//! Exactly one winner: concurrent upserts and links, at least 50 at once.

use crm_tests::*;

async fn burst(host: &Host, token: &str, bodies: Vec<Value>) -> Vec<Reply> {
    let calls = bodies.into_iter().map(|body| {
        let (client, url, token) = (host.client.clone(), format!("{}/api/contacts", host.api), token.to_string());
        tokio::spawn(async move {
            let r = client.post(url).bearer_auth(token).json(&body).send().await.unwrap();
            let status = r.status();
            let headers = r.headers().clone();
            Reply { status, headers, text: r.text().await.unwrap() }
        })
    });
    let mut out = Vec::new();
    for c in calls.collect::<Vec<_>>() {
        out.push(c.await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_upserts_of_one_email_make_one_contact() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let replies =
        burst(&host, &token, (0..60).map(|i| json!({ "email": "same@x.co", "tier": format!("t{i}") })).collect()).await;
    let created = replies.iter().filter(|r| r.status == 201).count();
    let updated = replies.iter().filter(|r| r.status == 200).count();
    assert_eq!((created, updated), (1, 59), "{:?}", replies.iter().map(|r| r.status).collect::<Vec<_>>());
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_upserts_of_one_mobile_make_one_contact() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let replies =
        burst(&host, &token, (0..60).map(|i| json!({ "mobile": "+57 300 000 0001", "n": i })).collect()).await;
    assert_eq!(replies.iter().filter(|r| r.status == 201).count(), 1);
    assert!(replies.iter().all(|r| r.status == 200 || r.status == 201));
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_contacts_racing_for_one_conversation_leave_one_link() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let org = host.demo_org.clone().unwrap();
    let conv =
        host.admin(Method::POST, &format!("/admin/orgs/{org}/conversations"), Some(&json!({}))).await.json()["id"]
            .clone();
    let replies = burst(
        &host,
        &token,
        (0..50).map(|i| json!({ "email": format!("c{i}@x.co"), "linkedConversationId": conv })).collect(),
    )
    .await;
    let winners: Vec<&Reply> = replies.iter().filter(|r| r.status == 201).collect();
    assert_eq!(winners.len(), 1);
    let winner = winners[0].json()["data"]["id"].clone();
    for r in replies.iter().filter(|r| r.status != 201) {
        assert_eq!(r.status, 409, "{}", r.text);
        assert_eq!(r.json()["contactId"], winner);
    }
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 1, "the losers wrote nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_creates_never_pass_the_plan_limit() {
    let host = Host::start().await;
    let (_, token) = host.org_with_token(json!({ "name": "Tiny", "limits": { "contacts": 10 } })).await;
    let replies = burst(&host, &token, (0..50).map(|i| json!({ "email": format!("p{i}@x.co") })).collect()).await;
    assert_eq!(replies.iter().filter(|r| r.status == 201).count(), 10);
    assert!(replies.iter().filter(|r| r.status != 201).all(|r| r.status == 403));
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 10);
}

/// Fifty updates of one contact at once, half `PUT`s and half upserts by its
/// email, each moving it to one of five cities: every update applies to the
/// record as it is when it commits, so the contact is listed once, under its
/// final city only, and every city's and state's total says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_updates_of_one_contact_leave_its_lists_and_totals_exact() {
    const CITIES: [(&str, &str); 5] =
        [("05001", "05"), ("05088", "05"), ("11001", "11"), ("76001", "76"), ("08001", "08")];
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let created = host.post("/api/contacts", &token, &json!({ "email": "moving@x.co", "cityCode": "05001" })).await;
    assert_eq!(created.status, 201, "{}", created.text);
    let id = created.json()["data"]["id"].as_str().unwrap().to_string();
    let calls = (0..50).map(|i| {
        let (method, path) = match i % 2 {
            0 => (Method::PUT, format!("/api/contacts/{id}")),
            _ => (Method::POST, "/api/contacts".to_string()),
        };
        let body = json!({ "email": "moving@x.co", "cityCode": CITIES[i % 5].0, "round": i });
        let request = host.request(method, &path).bearer_auth(&token).json(&body);
        tokio::spawn(async move {
            let r = request.send().await.unwrap();
            (r.status(), r.text().await.unwrap())
        })
    });
    for call in calls.collect::<Vec<_>>() {
        let (status, text) = call.await.unwrap();
        assert_eq!(status, 200, "{text}");
    }

    let contact = host.get(&format!("/api/contacts/{id}"), &token).await.json()["data"].clone();
    let last_city = contact["cityCode"].as_str().unwrap().to_string();
    for (city, state) in CITIES {
        let expected = usize::from(city == last_city);
        let listed = host.get(&format!("/api/contacts?cityCode={city}"), &token).await.json();
        assert_eq!(
            (listed["pagination"]["total"].as_u64(), listed["data"].as_array().unwrap().len()),
            (Some(expected as u64), expected),
            "city {city}, the contact's last city being {last_city}"
        );
        let in_state = CITIES.iter().any(|(c, s)| *c == last_city && *s == state);
        let listed = host.get(&format!("/api/contacts?stateCode={state}"), &token).await.json();
        assert_eq!(listed["pagination"]["total"].as_u64(), Some(u64::from(in_state)), "state {state}");
    }
    for sort in ["createdAt", "updatedAt"] {
        let listed = host.get(&format!("/api/contacts?sortBy={sort}&limit=100"), &token).await.json();
        assert_eq!(listed["pagination"]["total"], 1, "sortBy={sort}");
        assert_eq!(listed["data"].as_array().unwrap().len(), 1, "sortBy={sort}: {}", listed["data"]);
    }
}
