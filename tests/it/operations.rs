//! Operations: health, request ids, body limits, bad bodies, bootstrap, durability,
//! graceful shutdown.

use crm_tests::*;

#[tokio::test]
async fn health_endpoints_need_no_token() {
    let host = Host::start().await;
    let r = host.call(Method::GET, "/healthz", None, None).await;
    assert_eq!((r.status.as_u16(), r.json()), (200, json!({ "status": "ok" })));
    let r = host.call(Method::GET, "/readyz", None, None).await;
    assert_eq!((r.status.as_u16(), r.json()), (200, json!({ "status": "ready" })));
}

#[tokio::test]
async fn every_answer_carries_a_request_id() {
    let host = Host::start().await;
    let r = host.request(Method::GET, "/api/me").header("X-Request-Id", "trace-123").send().await.unwrap();
    assert_eq!(r.headers()["x-request-id"], "trace-123", "an incoming id is echoed");
    let a = host.call(Method::GET, "/api/me", None, None).await;
    let b = host.call(Method::GET, "/healthz", None, None).await;
    let (a, b) = (a.header("x-request-id").unwrap().to_string(), b.header("x-request-id").unwrap().to_string());
    assert!(!a.is_empty() && a != b, "generated ids are unique");
}

#[tokio::test]
async fn oversized_bodies_are_413() {
    let host = Host::start_with(&[("CRM_MAX_BODY_BYTES", "1000")]).await;
    let big = json!({ "name": "x".repeat(2000) });
    let r = host.admin(Method::POST, "/admin/orgs", Some(&big)).await;
    assert_eq!(r.status, 413);
    assert_eq!(r.json()["code"], "PAYLOAD_TOO_LARGE");
    // Also when streamed without a Content-Length.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = (0..20).map(|_| Ok(vec![b' '; 100])).collect();
    let body = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    let r = host
        .client
        .post(format!("{}/admin/orgs", host.admin))
        .bearer_auth(ADMIN_TOKEN)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
}

#[tokio::test]
async fn malformed_json_and_wrong_content_types_are_400() {
    let host = Host::start().await;
    let post = |ct: &'static str, body: &'static str| {
        host.client
            .post(format!("{}/admin/orgs", host.admin))
            .bearer_auth(ADMIN_TOKEN)
            .header("content-type", ct)
            .body(body)
            .send()
    };
    let r = post("application/json", "{\"name\": ").await.unwrap();
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "INVALID_JSON");
    assert!(body["message"].as_str().unwrap().contains("line 1"), "the message says where: {body}");
    let r = post("text/plain", "{\"name\": \"x\"}").await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "UNSUPPORTED_CONTENT_TYPE");
    let r = post("application/json", "[1,2]").await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "VALIDATION_ERROR");
}

#[tokio::test]
async fn the_first_start_prints_a_demo_token_and_a_curl_line_once() {
    let dir = tempfile::tempdir().unwrap();
    let first = Host::start_in(dir.path(), &[]).await;
    let token = first.demo_token.clone().expect("the first start prints a token");
    assert!(first.stdout.iter().any(|l| l.contains("curl") && l.contains(&token) && l.contains("/api/me")));
    assert_eq!(first.get("/api/me", &token).await.json()["data"]["token"]["permissions"], json!(["*"]));
    let mut first = first;
    assert!(first.terminate().await);
    let second = Host::start_in(dir.path(), &[]).await;
    assert!(second.demo_token.is_none(), "no second demo organization");
    assert_eq!(second.get("/api/me", &token).await.status, 200, "the demo token survives a restart");
    let orgs = second.admin(Method::GET, "/admin/orgs", None).await.json();
    assert_eq!(orgs["data"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn an_acknowledged_write_survives_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(dir.path(), &[]).await;
    let mut created = Vec::new();
    for i in 0..20 {
        let org = host.create_org(json!({ "name": format!("Org {i}") })).await;
        created.push(org);
    }
    let (_, token) = host.org_with_token(json!({ "name": "Last" })).await;
    host.kill9();
    let host = Host::start_in(dir.path(), &[]).await;
    for org in &created {
        assert_eq!(host.admin(Method::GET, &format!("/admin/orgs/{org}"), None).await.status, 200);
    }
    assert_eq!(host.get("/api/me", &token).await.status, 200);
}

#[tokio::test]
async fn sigterm_stops_the_host_cleanly() {
    let mut host = Host::start().await;
    assert!(host.terminate().await, "exit status 0 after SIGTERM");
}

#[tokio::test]
async fn unknown_paths_outside_the_api_are_404_json() {
    let host = Host::start().await;
    let r = host.call(Method::GET, "/nothing", None, None).await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["code"], "NOT_FOUND");
}

#[tokio::test]
async fn a_contact_acknowledged_by_a_component_survives_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(dir.path(), &[]).await;
    let token = host.demo_token.clone().unwrap();
    let mut ids = Vec::new();
    for i in 0..20 {
        let r =
            host.post("/api/contacts", &token, &json!({ "email": format!("k{i}@x.co"), "cityCode": "05001" })).await;
        assert_eq!(r.status, 201);
        ids.push(r.json()["data"]["id"].as_str().unwrap().to_string());
    }
    host.kill9();
    // Restarted with the smallest page cache: reads go to disk and still find everything.
    let host = Host::start_in(dir.path(), &[("CRM_STORE_CACHE_MB", "16")]).await;
    for id in &ids {
        assert_eq!(host.get(&format!("/api/contacts/{id}"), &token).await.status, 200, "{id}");
    }
    let list = host.get("/api/contacts?cityCode=05001", &token).await.json();
    assert_eq!(list["pagination"]["total"], 20, "indexes and counts survived too");
}

/// A start that compiles the components (its cache is empty) gives what the
/// compile used back: it holds about what a restart holds, which only maps
/// them. It held some 100 MB more, for the life of the process, when the
/// compiling engine kept its buffers and the compiling threads their freed pages.
#[tokio::test]
async fn a_first_start_holds_about_what_a_restart_holds() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("own-cache");
    let env = [("CRM_CACHE_DIR", cache.to_str().unwrap())];
    let resident_mb = |host: &Host| {
        let status = std::fs::read_to_string(format!("/proc/{}/status", host.pid().unwrap())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap().to_string();
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
    };
    let mut host = Host::start_in(&dir.path().join("data"), &env).await;
    let compiled = resident_mb(&host);
    assert!(std::fs::read_dir(&cache).unwrap().count() >= 7, "every embedded component was compiled");
    assert!(host.terminate().await);
    let host = Host::start_in(&dir.path().join("data"), &env).await;
    let mapped = resident_mb(&host);
    assert!(compiled <= mapped + 25, "a first start holds {compiled} MB, a restart {mapped} MB");
}
