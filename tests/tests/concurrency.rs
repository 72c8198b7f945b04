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
