//! The admin API: organizations, users, tokens, and its own authentication.

use crm_tests::*;

#[tokio::test]
async fn the_admin_api_needs_the_admin_token() {
    let host = Host::start().await;
    let r = host.client.get(format!("{}/admin/orgs", host.admin)).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "ADMIN_TOKEN_MISSING");
    let r = host.client.get(format!("{}/admin/orgs", host.admin)).bearer_auth("wrong").send().await.unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "ADMIN_TOKEN_INVALID");
    // An API token is not an admin token.
    let demo = host.demo_token.clone().unwrap();
    let r = host.client.get(format!("{}/admin/orgs", host.admin)).bearer_auth(demo).send().await.unwrap();
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn organizations_are_created_read_patched_and_deleted() {
    let host = Host::start().await;
    let r = host.admin(Method::POST, "/admin/orgs", Some(&json!({ "name": "Acme" }))).await;
    assert_eq!(r.status, 201);
    let org = r.json();
    let id = org["id"].as_str().unwrap().to_string();
    assert!(id.len() == 24 && id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    assert_eq!(org["name"], "Acme");
    assert_eq!(org["plan"], "pro", "pro is the default plan");
    assert_eq!(org["modules"]["shipping"], true);
    assert_eq!(org["limits"]["contacts"], 100_000);

    let r = host
        .admin(
            Method::PATCH,
            &format!("/admin/orgs/{id}"),
            Some(&json!({ "plan": "free", "limits": { "contacts": 5 } })),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let patched = r.json();
    assert_eq!(patched["plan"], "free");
    assert_eq!(patched["modules"]["api"], false);
    assert_eq!(patched["modules"]["shipping"], false);
    assert_eq!(patched["limits"]["contacts"], 5);

    let r = host.admin(Method::PATCH, &format!("/admin/orgs/{id}"), Some(&json!({ "modules": { "api": true } }))).await;
    assert_eq!(r.json()["modules"]["api"], true);
    let r = host.admin(Method::PATCH, &format!("/admin/orgs/{id}"), Some(&json!({ "modules": { "api": null } }))).await;
    assert_eq!(r.json()["modules"]["api"], false, "null removes the override");

    let got = host.admin(Method::GET, &format!("/admin/orgs/{id}"), None).await;
    assert_eq!(got.status, 200);
    assert_eq!(got.json()["name"], "Acme");

    assert_eq!(host.admin(Method::DELETE, &format!("/admin/orgs/{id}"), None).await.status, 204);
    assert_eq!(host.admin(Method::GET, &format!("/admin/orgs/{id}"), None).await.status, 404);
    assert_eq!(host.admin(Method::DELETE, &format!("/admin/orgs/{id}"), None).await.status, 404);
}

#[tokio::test]
async fn unlimited_has_no_contact_limit() {
    let host = Host::start().await;
    let r = host.admin(Method::POST, "/admin/orgs", Some(&json!({ "name": "Big", "plan": "unlimited" }))).await;
    assert_eq!(r.json()["limits"]["contacts"], Value::Null);
    let r = host.admin(Method::POST, "/admin/orgs", Some(&json!({ "name": "Small", "plan": "free" }))).await;
    assert_eq!(r.json()["limits"]["contacts"], 100);
}

#[tokio::test]
async fn bad_admin_input_is_a_validation_error() {
    let host = Host::start().await;
    for body in [
        json!({}),
        json!({ "name": "" }),
        json!({ "name": "x", "plan": "gold" }),
        json!({ "name": "x", "modules": { "api": "yes" } }),
        json!({ "name": "x", "limits": { "contacts": -1 } }),
        json!({ "name": "x", "surprise": 1 }),
    ] {
        let r = host.admin(Method::POST, "/admin/orgs", Some(&body)).await;
        assert_eq!(r.status, 400, "{body}");
        assert_eq!(r.json()["code"], "VALIDATION_ERROR", "{body}");
    }
    let org = host.create_org(json!({ "name": "Acme" })).await;
    for body in [
        json!({ "name": "t" }),
        json!({ "name": "t", "permissions": [] }),
        json!({ "name": "t", "permissions": ["contacts"] }),
        json!({ "name": "t", "permissions": ["*"], "expiresAt": "tomorrow" }),
        json!({ "name": "t", "permissions": ["*"], "userId": "aaaaaaaaaaaaaaaaaaaaaaaa" }),
    ] {
        let r = host.admin(Method::POST, &format!("/admin/orgs/{org}/tokens"), Some(&body)).await;
        assert_eq!(r.status, 400, "{body}");
        assert_eq!(r.json()["code"], "VALIDATION_ERROR", "{body}");
    }
    for body in [json!({ "email": "not-an-email" }), json!({ "email": "a@b.co", "role": "jefe" })] {
        let r = host.admin(Method::POST, &format!("/admin/orgs/{org}/users"), Some(&body)).await;
        assert_eq!(r.status, 400, "{body}");
    }
}

#[tokio::test]
async fn calls_on_unknown_organizations_are_404() {
    let host = Host::start().await;
    let ghost = "aaaaaaaaaaaaaaaaaaaaaaaa";
    let r = host
        .admin(
            Method::POST,
            &format!("/admin/orgs/{ghost}/tokens"),
            Some(&json!({ "name": "t", "permissions": ["*"] })),
        )
        .await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["code"], "NOT_FOUND");
    let r = host.admin(Method::POST, &format!("/admin/orgs/{ghost}/users"), Some(&json!({ "email": "a@b.co" }))).await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn a_token_can_only_be_revoked_through_its_own_organization() {
    let host = Host::start().await;
    let a = host.create_org(json!({ "name": "A" })).await;
    let b = host.create_org(json!({ "name": "B" })).await;
    let (id, token) = host.create_token_with(&a, json!({ "name": "t", "permissions": ["*"] })).await;
    assert_eq!(host.admin(Method::DELETE, &format!("/admin/orgs/{b}/tokens/{id}"), None).await.status, 404);
    assert_eq!(host.get("/api/me", &token).await.status, 200);
}

#[tokio::test]
async fn the_token_text_is_shown_only_at_creation() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::start_in(dir.path(), &[]).await;
    let org = host.create_org(json!({ "name": "A" })).await;
    let (_, token) = host.create_token_with(&org, json!({ "name": "t", "permissions": ["*"] })).await;
    let secret = token.rsplit_once('_').unwrap().1;
    assert!(secret.len() * 4 >= 128, "at least 128 random bits");
    let listing = host.admin(Method::GET, "/admin/orgs", None).await.text;
    assert!(!listing.contains(secret));
    // Nor is it on disk: only its hash is stored.
    let host_dir = host.data_dir().to_path_buf();
    drop(host);
    let mut found = false;
    for entry in walk(&host_dir) {
        if std::fs::read(&entry).is_ok_and(|bytes| bytes.windows(secret.len()).any(|w| w == secret.as_bytes())) {
            found = true;
        }
    }
    assert!(!found, "the token secret must not be stored in clear");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[tokio::test]
async fn the_admin_cli_is_a_client_of_the_admin_api() {
    let host = Host::start().await;
    let run = |args: &[&str]| {
        std::process::Command::new(host_binary())
            .arg("admin")
            .arg("--url")
            .arg(&host.admin)
            .args(args)
            .env("CRM_ADMIN_TOKEN", ADMIN_TOKEN)
            .output()
            .unwrap()
    };
    let out = run(&["orgs", "create", "--name", "From CLI", "--plan", "unlimited"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let org: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(org["plan"], "unlimited");
    let id = org["id"].as_str().unwrap();
    let out = run(&["tokens", "create", id, "--name", "cli", "--permission", "contacts:read"]);
    let token: Value = serde_json::from_slice(&out.stdout).unwrap();
    let me = host.get("/api/me", token["token"].as_str().unwrap()).await.json();
    assert_eq!(me["data"]["token"]["permissions"], json!(["contacts:read"]));
    let out = run(&["orgs", "show", "aaaaaaaaaaaaaaaaaaaaaaaa"]);
    assert!(!out.status.success(), "a 404 makes the command fail");
}

#[tokio::test]
async fn each_organization_has_a_webhook_secret_that_rotates_with_a_day_of_overlap() {
    let data = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(data.path(), &[]).await;
    let org = host.create_org(json!({ "name": "Firmas" })).await;
    let other = host.create_org(json!({ "name": "Otra" })).await;
    let path = format!("/admin/orgs/{org}/webhook-secret");

    let first = host.admin(Method::GET, &path, None).await;
    assert_eq!(first.status, 200, "{}", first.text);
    let secret = first.json()["secret"].as_str().unwrap().to_string();
    let key = secret.strip_prefix("whsec_").expect("the Standard Webhooks form");
    assert_eq!(key.len(), 44, "base64 of 32 bytes: {secret}");
    assert_eq!((&first.json()["previous"], &first.json()["previousExpiresAt"]), (&Value::Null, &Value::Null));
    assert_eq!(host.admin(Method::GET, &path, None).await.json()["secret"], secret, "made once");
    let theirs = host.admin(Method::GET, &format!("/admin/orgs/{other}/webhook-secret"), None).await;
    assert_ne!(theirs.json()["secret"], secret, "one per organization");

    // Shown once is kept: it survives a crash right after.
    host.kill9();
    let host = Host::start_in(data.path(), &[]).await;
    assert_eq!(host.admin(Method::GET, &path, None).await.json()["secret"], secret);

    let rotated = host.admin(Method::POST, &format!("{path}/rotate"), None).await;
    assert_eq!(rotated.status, 200, "{}", rotated.text);
    let body = rotated.json();
    assert!(body["secret"].as_str().unwrap().starts_with("whsec_") && body["secret"] != json!(secret));
    assert_eq!(body["previous"], json!(secret), "the old one still signs beside the new");
    let expires = chrono::DateTime::parse_from_rfc3339(body["previousExpiresAt"].as_str().unwrap()).unwrap();
    let hours = (expires.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_minutes() as f64 / 60.0;
    assert!((23.9..=24.0).contains(&hours), "{hours} hours");
    assert_eq!(host.admin(Method::GET, &path, None).await.json(), body);

    for path in ["/admin/orgs/0123456789abcdef01234567/webhook-secret", "/admin/orgs/nope/webhook-secret/rotate"] {
        let method = if path.ends_with("rotate") { Method::POST } else { Method::GET };
        assert_eq!(host.admin(method, path, None).await.status, 404, "{path}");
    }
}
