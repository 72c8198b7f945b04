//! Authentication and tenancy: every 401 and 403 row, with its exact body.

use crm_tests::*;

fn assert_error(r: &Reply, status: u16, code: &str) {
    assert_eq!(r.status.as_u16(), status, "{}", r.text);
    let body = r.json();
    assert_eq!(body["code"], code, "{}", r.text);
    assert_eq!(body["success"], false);
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
}

#[tokio::test]
async fn bearer_and_api_key_headers_both_authenticate() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    assert_eq!(host.get("/api/me", &token).await.status, 200);
    let r = host.request(Method::GET, "/api/me").header("X-API-Key", &token).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r =
        host.request(Method::GET, "/api/me").header("Authorization", format!("bearer {token}")).send().await.unwrap();
    assert_eq!(r.status(), 200, "the scheme is case-insensitive");
}

#[tokio::test]
async fn missing_token_is_api_token_missing() {
    let host = Host::start().await;
    let r = host.call(Method::GET, "/api/me", None, None).await;
    assert_error(&r, 401, "API_TOKEN_MISSING");
    let r = host.call(Method::GET, "/api/catalogs/states", None, None).await;
    assert_error(&r, 401, "API_TOKEN_MISSING");
    let basic =
        host.request(Method::GET, "/api/me").header("Authorization", "Basic dXNlcjpwdw==").send().await.unwrap();
    assert_eq!(basic.status(), 401);
    assert_eq!(basic.json::<Value>().await.unwrap()["code"], "API_TOKEN_MISSING");
}

#[tokio::test]
async fn unknown_or_tampered_tokens_are_api_token_invalid() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let (id_part, secret) = token.rsplit_once('_').unwrap();
    let tampered = format!("{id_part}_{}", "0".repeat(secret.len()));
    for bad in ["nope", "crm_", "crm_123_456", &tampered, "crm_aaaaaaaaaaaaaaaaaaaaaaaa_00"] {
        assert_error(&host.get("/api/me", bad).await, 401, "API_TOKEN_INVALID");
    }
}

#[tokio::test]
async fn expired_tokens_are_api_token_expired() {
    let host = Host::start().await;
    let org = host.create_org(json!({ "name": "Acme" })).await;
    let (_, past) = host
        .create_token_with(&org, json!({ "name": "old", "permissions": ["*"], "expiresAt": "2020-01-01T00:00:00Z" }))
        .await;
    assert_error(&host.get("/api/me", &past).await, 401, "API_TOKEN_EXPIRED");
    let (_, future) = host
        .create_token_with(&org, json!({ "name": "new", "permissions": ["*"], "expiresAt": "2999-01-01T00:00:00Z" }))
        .await;
    let r = host.get("/api/me", &future).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["data"]["token"]["expiresAt"], "2999-01-01T00:00:00.000Z");
}

#[tokio::test]
async fn revoked_tokens_are_api_token_revoked() {
    let host = Host::start().await;
    let org = host.create_org(json!({ "name": "Acme" })).await;
    let (id, token) = host.create_token_with(&org, json!({ "name": "t", "permissions": ["*"] })).await;
    assert_eq!(host.get("/api/me", &token).await.status, 200);
    let r = host.admin(Method::DELETE, &format!("/admin/orgs/{org}/tokens/{id}"), None).await;
    assert_eq!(r.status, 204);
    assert_error(&host.get("/api/me", &token).await, 401, "API_TOKEN_REVOKED");
}

#[tokio::test]
async fn tokens_of_a_deleted_organization_are_organization_not_found() {
    let host = Host::start().await;
    let (org, token) = host.org_with_token(json!({ "name": "Gone" })).await;
    assert_eq!(host.admin(Method::DELETE, &format!("/admin/orgs/{org}"), None).await.status, 204);
    assert_error(&host.get("/api/me", &token).await, 401, "ORGANIZATION_NOT_FOUND");
}

#[tokio::test]
async fn naming_another_organization_is_organization_id_mismatch() {
    let host = Host::start().await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    let other = host.create_org(json!({ "name": "Other" })).await;
    let r = host
        .request(Method::GET, "/api/me")
        .bearer_auth(&token)
        .header("X-Organization-Id", &other)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "ORGANIZATION_ID_MISMATCH");
    let r = host.get(&format!("/api/catalogs/states?organizationId={other}"), &token).await;
    assert_error(&r, 403, "ORGANIZATION_ID_MISMATCH");
    // Naming its own organization is fine.
    let r = host
        .request(Method::GET, "/api/me")
        .bearer_auth(&token)
        .header("X-Organization-Id", &org)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(host.get(&format!("/api/me?organizationId={org}"), &token).await.status, 200);
}

#[tokio::test]
async fn a_plan_without_the_api_module_is_refused_except_on_me() {
    let host = Host::start().await;
    let (_, token) = host.org_with_token(json!({ "name": "Free", "plan": "free" })).await;
    let r = host.get("/api/catalogs/states", &token).await;
    assert_error(&r, 403, "PLAN_MODULE_REQUIRED");
    assert_eq!(r.json()["module"], "api");
    let me = host.get("/api/me", &token).await;
    assert_eq!(me.status, 200, "a blocked integrator still sees its plan");
    assert_eq!(me.json()["data"]["plan"]["modules"]["api"], false);
}

#[tokio::test]
async fn an_organization_override_turns_the_api_module_on() {
    let host = Host::start().await;
    let (_, token) = host.org_with_token(json!({ "name": "Free+", "plan": "free", "modules": { "api": true } })).await;
    assert_eq!(host.get("/api/catalogs/states", &token).await.status, 200);
}

#[tokio::test]
async fn api_module_enforcement_can_be_switched_off() {
    let host = Host::start_with(&[("CRM_ENFORCE_API_MODULE", "false")]).await;
    let (_, token) = host.org_with_token(json!({ "name": "Free", "plan": "free" })).await;
    assert_eq!(host.get("/api/catalogs/states", &token).await.status, 200);
}

#[tokio::test]
async fn the_token_is_checked_before_the_organization_and_the_plan() {
    let host = Host::start().await;
    let other = host.create_org(json!({ "name": "Other" })).await;
    // No token and a foreign organization id: the token check answers first.
    let r = host.request(Method::GET, "/api/catalogs/states").header("X-Organization-Id", &other).send().await.unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "API_TOKEN_MISSING");
    // Organization id before the api module.
    let (_, free_token) = host.org_with_token(json!({ "name": "Free", "plan": "free" })).await;
    let r = host.get(&format!("/api/catalogs/states?organizationId={other}"), &free_token).await;
    assert_error(&r, 403, "ORGANIZATION_ID_MISMATCH");
}

#[tokio::test]
async fn unknown_routes_are_404_after_authentication() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    assert_error(&host.get("/api/nothing-here", &token).await, 404, "NOT_FOUND");
    assert_error(&host.call(Method::GET, "/api/nothing-here", None, None).await, 401, "API_TOKEN_MISSING");
    let r = host.call(Method::DELETE, "/api/me", Some(&token), None).await;
    assert_error(&r, 405, "METHOD_NOT_ALLOWED");
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
}

/// HEAD is the GET without its body (RFC 9110): what a cache revalidating
/// the catalog or an uptime monitor sends.
#[tokio::test]
async fn head_answers_the_get_headers_without_the_body() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    for path in ["/api/catalogs/states", "/api/contacts?limit=1", "/api/me"] {
        let get = host.call(Method::GET, path, Some(&token), None).await;
        let head = host.call(Method::HEAD, path, Some(&token), None).await;
        assert_eq!((head.status, head.text.as_str()), (get.status, ""), "{path}");
        assert_eq!(head.header("content-length"), Some(get.text.len().to_string().as_str()), "{path}");
        assert_eq!(
            (head.header("content-type"), head.header("etag")),
            (get.header("content-type"), get.header("etag"))
        );
    }
    // The same guards: no token is 401, a POST-only route is 405.
    assert_eq!(host.call(Method::HEAD, "/api/contacts", None, None).await.status, 401);
    let r = host.call(Method::HEAD, "/api/shipments/rates", Some(&token), None).await;
    assert_eq!((r.status.as_u16(), r.header("allow")), (405, Some("POST")));
}

#[tokio::test]
async fn a_route_module_the_plan_lacks_is_403_after_the_permission_check() {
    let host = Host::start().await;
    let (org, token) = host.org_with_token(json!({ "name": "No contacts", "modules": { "contacts": false } })).await;
    let r = host.get("/api/contacts", &token).await;
    assert_error(&r, 403, "PLAN_MODULE_REQUIRED");
    assert_eq!(r.json()["module"], "contacts");
    // The permission is checked before the route's module.
    let weak = host.create_token(&org, &["shipments:read"]).await;
    assert_error(&host.get("/api/contacts", &weak).await, 403, "INSUFFICIENT_API_PERMISSIONS");
    // /me and the catalog need no module besides api.
    assert_eq!(host.get("/api/catalogs/states", &token).await.status, 200);
}

/// Repeated or conflicting credentials and organization ids are refused, never
/// resolved by taking the first.
#[tokio::test]
async fn ambiguous_credentials_and_organization_ids_are_refused() {
    let host = Host::start().await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    let (other, other_token) = host.org_with_token(json!({ "name": "Other" })).await;
    let me = || host.request(Method::GET, "/api/me");
    let status_and_code = |r: reqwest::Response| async move {
        let status = r.status().as_u16();
        (status, r.json::<Value>().await.unwrap()["code"].as_str().unwrap_or_default().to_string())
    };
    let bad = (400, "VALIDATION_ERROR".to_string());
    let mismatch = (403, "ORGANIZATION_ID_MISMATCH".to_string());

    // Two Authorization headers, even with one valid token.
    let r = me()
        .header("Authorization", format!("Bearer {token}"))
        .header("Authorization", format!("Bearer {other_token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(status_and_code(r).await, bad);
    let r = me().header("X-API-Key", &token).header("X-API-Key", &token).send().await.unwrap();
    assert_eq!(status_and_code(r).await, bad);
    // A Bearer token and an API key that differ; the same token twice is fine.
    let r = me().bearer_auth(&token).header("X-API-Key", &other_token).send().await.unwrap();
    assert_eq!(status_and_code(r).await, bad);
    let r = me().bearer_auth(&token).header("X-API-Key", &token).send().await.unwrap();
    assert_eq!(r.status(), 200);

    // Organization ids: any value naming another organization is a mismatch.
    let r = host.get(&format!("/api/me?organizationId={other}&organizationId={org}"), &token).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].as_str().unwrap().to_string()), mismatch);
    let r = host.get(&format!("/api/me?organizationId={org}&organizationId={other}"), &token).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].as_str().unwrap().to_string()), mismatch);
    let r = me()
        .bearer_auth(&token)
        .header("X-Organization-Id", &org)
        .header("X-Organization-Id", &other)
        .send()
        .await
        .unwrap();
    assert_eq!(status_and_code(r).await, mismatch);
    // Repeated, all naming the caller's organization: still ambiguous.
    let r = host.get(&format!("/api/me?organizationId={org}&organizationId={org}"), &token).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].as_str().unwrap().to_string()), bad);
    // A header that is not ASCII text is a mismatch, not ignored.
    let r = me()
        .bearer_auth(&token)
        .header("X-Organization-Id", reqwest::header::HeaderValue::from_bytes("orgañ".as_bytes()).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(status_and_code(r).await, mismatch);
    // The admin API refuses two Authorization headers too.
    let r = host
        .client
        .get(format!("{}/admin/orgs", host.admin))
        .header("Authorization", format!("Bearer {ADMIN_TOKEN}"))
        .header("Authorization", "Bearer nope")
        .send()
        .await
        .unwrap();
    assert_eq!(status_and_code(r).await, bad);
}
