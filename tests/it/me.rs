//! `GET /api/me`.

use crm_tests::*;

#[tokio::test]
async fn me_describes_organization_user_token_and_plan() {
    let host = Host::start().await;
    let org = host.create_org(json!({ "name": "Acme", "plan": "pro", "modules": { "shipping": false } })).await;
    let user = host
        .admin(
            Method::POST,
            &format!("/admin/orgs/{org}/users"),
            Some(&json!({ "email": "ana@acme.co", "firstName": "Ana", "lastName": "Gómez", "role": "empleado" })),
        )
        .await
        .json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (token_id, token) = host
        .create_token_with(
            &org,
            json!({ "name": "crm sync", "permissions": ["contacts:read", "shipments:*"], "userId": user }),
        )
        .await;
    let r = host.get("/api/me", &token).await;
    assert_eq!(r.status, 200);
    let body = r.json();
    assert_eq!(body["success"], true);
    let data = &body["data"];
    assert_eq!(data["organization"], json!({ "id": org, "name": "Acme" }));
    assert_eq!(
        data["user"],
        json!({ "id": user, "email": "ana@acme.co", "firstName": "Ana", "lastName": "Gómez", "role": "empleado" })
    );
    assert_eq!(data["token"]["id"], token_id);
    assert_eq!(data["token"]["name"], "crm sync");
    assert_eq!(data["token"]["permissions"], json!(["contacts:read", "shipments:*"]));
    assert_eq!(data["token"]["expiresAt"], Value::Null);
    let created = data["token"]["createdAt"].as_str().unwrap();
    assert!(created.ends_with('Z') && created.len() == 24, "RFC 3339 UTC with milliseconds: {created}");
    assert_eq!(data["plan"]["name"], "pro");
    assert_eq!(data["plan"]["displayName"], "Pro");
    assert_eq!(
        data["plan"]["modules"],
        json!({ "api": true, "contacts": true, "forms": true, "import": true, "shipping": false })
    );
}

#[tokio::test]
async fn a_token_without_a_user_has_user_null() {
    let host = Host::start().await;
    let (_, token) = host.org_with_token(json!({ "name": "Acme", "plan": "unlimited" })).await;
    let data = host.get("/api/me", &token).await.json()["data"].clone();
    assert_eq!(data["user"], Value::Null);
    assert_eq!(data["plan"]["name"], "unlimited");
}

#[tokio::test]
async fn the_demo_token_is_the_owner_with_every_permission() {
    let host = Host::start().await;
    let data = host.get("/api/me", host.demo_token.as_deref().unwrap()).await.json()["data"].clone();
    assert_eq!(data["token"]["permissions"], json!(["*"]));
    assert_eq!(data["user"]["role"], "propietario");
    assert_eq!(data["organization"]["id"], host.demo_org.clone().unwrap());
}
