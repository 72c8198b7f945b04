//! Automations through the real host: read and saved only as drafts through
//! the API, activated and paused by the app, their webhook URLs held to the
//! host's rules (public https only unless the operator allows private).

use crm_tests::*;

fn automation(url: &str) -> Value {
    json!({
        "name": "Avisar al ERP",
        "trigger": { "type": "deal.stage_changed", "toStage": "won" },
        "actions": [{ "type": "http_request", "url": url, "headers": { "X-Tenant": "acme" } }]
    })
}

/// A public address that needs no lookup.
const PUBLIC_URL: &str = "https://8.8.8.8/hooks/crm";

#[tokio::test]
async fn automations_are_saved_as_drafts_and_only_the_app_activates_them() {
    let host = Host::start().await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;

    let r = host.post("/api/automations", &token, &automation(PUBLIC_URL)).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let saved = r.json()["data"].clone();
    let id = saved["id"].as_str().unwrap().to_string();
    assert_eq!((&saved["status"], &saved["trigger"]["toStage"]), (&json!("draft"), &json!("won")));
    assert_eq!(
        saved["actions"][0],
        json!({ "type": "http_request", "url": PUBLIC_URL, "headers": { "X-Tenant": "acme" } })
    );
    assert_eq!(host.get(&format!("/api/automations/{id}"), &token).await.json()["data"], saved);

    // Asking for another status is refused, and nothing is written.
    for status in ["active", "paused", "ACTIVE"] {
        let mut body = automation(PUBLIC_URL);
        body["status"] = json!(status);
        let r = host.post("/api/automations", &token, &body).await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (403, json!("AUTOMATION_DRAFT_ONLY")), "{status}");
        let r = host.call(Method::PUT, &format!("/api/automations/{id}"), Some(&token), Some(&body)).await;
        assert_eq!(r.status, 403);
    }
    let mut body = automation(PUBLIC_URL);
    body["status"] = json!("draft");
    assert_eq!(host.post("/api/automations", &token, &body).await.status, 201, "draft may be said");
    assert_eq!(host.get("/api/automations", &token).await.json()["pagination"]["total"], 2);
    assert_eq!(host.get(&format!("/api/automations/{id}"), &token).await.json()["data"], saved);

    // The app activates and pauses; saving through the API makes it a draft again.
    let activate = format!("/admin/orgs/{org}/automations/{id}/activate");
    let r = host.admin(Method::POST, &activate, None).await;
    assert_eq!((r.status.as_u16(), r.json()["status"].clone()), (200, json!("active")), "{}", r.text);
    assert_eq!(host.get(&format!("/api/automations/{id}"), &token).await.json()["data"]["status"], "active");
    let r = host.admin(Method::POST, &format!("/admin/orgs/{org}/automations/{id}/pause"), None).await;
    assert_eq!(r.json()["status"], "paused");
    host.admin(Method::POST, &activate, None).await;
    let mut renamed = automation(PUBLIC_URL);
    renamed["name"] = json!("Otro nombre");
    let r = host.call(Method::PUT, &format!("/api/automations/{id}"), Some(&token), Some(&renamed)).await;
    assert_eq!((r.status.as_u16(), r.json()["data"]["status"].clone()), (200, json!("draft")), "{}", r.text);
    assert_eq!(r.json()["data"]["createdAt"], saved["createdAt"]);

    // Permissions and organizations.
    let reader = host.create_token(&org, &["automations:read"]).await;
    let r = host.post("/api/automations", &reader, &automation(PUBLIC_URL)).await;
    assert_eq!((r.status.as_u16(), r.json()["requiredPermission"].clone()), (403, json!("automations:write")));
    assert_eq!(host.get("/api/automations", &reader).await.status, 200);
    let (other_org, other) = host.org_with_token(json!({ "name": "Otra" })).await;
    assert_eq!(host.get("/api/automations", &other).await.json()["pagination"]["total"], 0);
    let r = host.get(&format!("/api/automations/{id}"), &other).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("AUTOMATION_NOT_FOUND")));
    let r = host.admin(Method::POST, &format!("/admin/orgs/{other_org}/automations/{id}/activate"), None).await;
    assert_eq!(r.status, 404, "the app cannot reach another organization's automation");
}

#[tokio::test]
async fn a_body_that_breaks_a_rule_is_refused_by_name() {
    let host = Host::start().await;
    let (_, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    let with = |path: &str, value: Value| {
        let mut body = automation(PUBLIC_URL);
        let mut target = &mut body;
        let parts: Vec<&str> = path.split('.').collect();
        for p in &parts[..parts.len() - 1] {
            target = match p.parse::<usize>() {
                Ok(i) => &mut target[i],
                Err(_) => &mut target[*p],
            };
        }
        target[parts[parts.len() - 1]] = value;
        body
    };
    for (body, field) in [
        (with("name", json!("")), "name"),
        (with("trigger.type", json!("quotation.arrived")), "trigger.type"),
        (with("trigger.toStage", json!("ganado")), "trigger.toStage"),
        (with("trigger.formId", json!("0123456789abcdef01234567")), "trigger.formId"),
        (with("actions", json!([])), "actions"),
        (with("actions.0.type", json!("email")), "actions[0].type"),
        (with("actions.0.headers", json!({ "Webhook-Signature": "v1,forged" })), "actions[0].headers"),
        (with("actions.0.headers", json!({ "X-Bad": "a\nb" })), "actions[0].headers"),
        (with("enabled", json!(true)), "enabled"),
    ] {
        let r = host.post("/api/automations", &token, &body).await;
        assert_eq!(
            (r.status.as_u16(), r.json()["details"]["field"].clone()),
            (400, json!(field)),
            "{body}: {}",
            r.text
        );
    }
    // Without the operator's leave, only public https addresses; a name is
    // resolved and every address it gives is checked.
    for url in [
        "http://8.8.8.8/hook",
        "https://127.0.0.1/hook",
        "https://10.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://localhost:8443/hook",
        "ftp://8.8.8.8/",
        "https://user:secret@8.8.8.8/",
    ] {
        let r = host.post("/api/automations", &token, &automation(url)).await;
        assert_eq!(
            (r.status.as_u16(), r.json()["code"].clone(), r.json()["details"]["field"].clone()),
            (400, json!("WEBHOOK_URL_NOT_ALLOWED"), json!("actions[0].url")),
            "{url}: {}",
            r.text
        );
    }
    assert_eq!(host.get("/api/automations", &token).await.json()["pagination"]["total"], 0, "nothing written");

    // The operator may allow private addresses (tests, private deployments).
    let private = Host::start_with(&[("CRM_WEBHOOK_ALLOW_PRIVATE", "true")]).await;
    let (_, token) = private.org_with_token(json!({ "name": "Acme" })).await;
    let r = private.post("/api/automations", &token, &automation("http://127.0.0.1:9/hook")).await;
    assert_eq!(r.status, 201, "{}", r.text);
}
