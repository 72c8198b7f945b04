//! Tenant isolation: another organization's token never reads, updates, links,
//! filters or counts these contacts, companies or conversations.

use crm_tests::*;

#[tokio::test]
async fn another_organization_sees_none_of_it() {
    let host = Host::start().await;
    let (org_a, a) = host.org_with_token(json!({ "name": "A" })).await;
    let (_, b) = host.org_with_token(json!({ "name": "B" })).await;
    let contact =
        host.post("/api/contacts", &a, &json!({ "email": "ana@a.co", "cityCode": "05001" })).await.json()["data"]["id"]
            .as_str()
            .unwrap()
            .to_string();
    let company = host.post("/api/companies", &a, &json!({ "name": "A Corp" })).await.json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let conv =
        host.admin(Method::POST, &format!("/admin/orgs/{org_a}/conversations"), Some(&json!({}))).await.json()["id"]
            .as_str()
            .unwrap()
            .to_string();

    // Read, list, filter, count.
    assert_eq!(host.get(&format!("/api/contacts/{contact}"), &b).await.status, 404);
    assert_eq!(host.get(&format!("/api/companies/{company}"), &b).await.status, 404);
    for path in [
        "/api/contacts",
        "/api/contacts?cityCode=05001",
        "/api/contacts?search=ana",
        "/api/companies",
        "/api/conversations",
    ] {
        let r = host.get(path, &b).await.json();
        assert_eq!((r["data"].clone(), r["pagination"]["total"].clone()), (json!([]), json!(0)), "{path}");
    }
    // Update.
    let r = host
        .call(Method::PUT, &format!("/api/contacts/{contact}"), Some(&b), Some(&json!({ "firstName": "Mallory" })))
        .await;
    assert_eq!(r.status, 404);
    let r =
        host.call(Method::PUT, &format!("/api/companies/{company}"), Some(&b), Some(&json!({ "name": "Mine" }))).await;
    assert_eq!(r.status, 404);
    // The same email in B is a new contact of B, not an update of A's.
    let r = host.post("/api/contacts", &b, &json!({ "email": "ana@a.co", "firstName": "Other Ana" })).await;
    assert_eq!(r.status, 201);
    // Link.
    let r = host.post("/api/contacts", &b, &json!({ "email": "x@b.co", "linkedConversationId": conv })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("CONVERSATION_NOT_FOUND")));
    let r = host.post("/api/contacts", &b, &json!({ "email": "y@b.co", "companyId": company })).await;
    assert_eq!(r.json()["error"], "Company not found or does not belong to this organization");

    // A's data is untouched.
    let mine = host.get(&format!("/api/contacts/{contact}"), &a).await.json();
    assert_eq!(mine["data"]["firstName"], "");
    assert_eq!(host.get("/api/contacts", &a).await.json()["pagination"]["total"], 1);
}

#[tokio::test]
async fn plan_limits_count_only_the_organizations_own_contacts() {
    let host = Host::start().await;
    let (_, a) = host.org_with_token(json!({ "name": "A", "limits": { "contacts": 1 } })).await;
    let (_, b) = host.org_with_token(json!({ "name": "B", "limits": { "contacts": 1 } })).await;
    assert_eq!(host.post("/api/contacts", &a, &json!({ "email": "1@a.co" })).await.status, 201);
    assert_eq!(host.post("/api/contacts", &b, &json!({ "email": "1@b.co" })).await.status, 201);
    assert_eq!(host.post("/api/contacts", &a, &json!({ "email": "2@a.co" })).await.status, 403);
}
