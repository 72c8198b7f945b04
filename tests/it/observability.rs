//! What operators see: Prometheus metrics on the admin listener, and JSON
//! logs (`CRM_LOG_FORMAT=json`) with the request id, organization, route,
//! status and latency, where no secret ever appears.

use crm_tests::*;

/// The value of the first sample of `metric` whose labels contain every
/// `label="value"` pair given (0 when there is none).
fn sample(text: &str, metric: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|l| l.starts_with(metric) && l[metric.len()..].starts_with(['{', ' ']))
        .filter(|l| labels.iter().all(|pair| l.contains(pair)))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .next()
        .unwrap_or(0.0)
}

async fn metrics(host: &Host) -> String {
    let r = host.client.get(format!("{}/metrics", host.admin)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
    r.text().await.unwrap()
}

#[tokio::test]
async fn metrics_count_requests_components_and_the_store() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let before = metrics(&host).await;
    assert_eq!(sample(&before, "crm_build_info", &[&format!("version=\"{}\"", env!("CARGO_PKG_VERSION"))]), 1.0);
    let created = r#"route="/api/contacts",method="POST",status="201""#;
    let start = sample(&before, "crm_http_requests_total", &[created]);
    for i in 0..3 {
        let r = host.post("/api/contacts", &token, &json!({ "email": format!("m{i}@x.co") })).await;
        assert_eq!(r.status, 201);
    }
    assert_eq!(host.get("/api/contacts/0123456789abcdef01234567", &token).await.status, 404);
    assert_eq!(host.get("/api/me", "crm_nope").await.status, 401);
    let after = metrics(&host).await;
    assert_eq!(sample(&after, "crm_http_requests_total", &[created]) - start, 3.0);
    assert_eq!(sample(&after, "crm_http_requests_total", &[r#"route="/api/contacts/{id}""#, r#"status="404""#]), 1.0);
    assert!(sample(&after, "crm_http_requests_total", &[r#"route="unmatched""#, r#"status="401""#]) >= 1.0, "{after}");
    assert!(sample(&after, "crm_http_request_seconds_count", &[r#"route="/api/contacts""#]) >= 3.0);
    assert!(sample(&after, "crm_component_calls_total", &[r#"component="contacts""#, r#"outcome="ok""#]) >= 4.0);
    assert!(sample(&after, "crm_component_call_seconds_count", &[r#"component="contacts""#]) >= 4.0);
    // Every component call waited (or not) for a compute turn.
    assert!(
        sample(&after, "crm_compute_turn_wait_seconds_count", &[])
            >= sample(&after, "crm_component_calls_total", &[r#"component="contacts""#, r#"outcome="ok""#])
    );
    assert!(sample(&after, "crm_store_operations_total", &[r#"op="batch_if""#]) >= 3.0);
    // Group commit is the embedded store's; on PostgreSQL each commit is durable.
    if !backend::is_postgres() {
        assert!(sample(&after, "crm_store_flush_seconds_count", &[]) >= 1.0);
        assert!(sample(&after, "crm_store_flush_batch_size_count", &[]) >= 1.0);
    }
    // No organization id, token or raw path is a label.
    assert!(!after.contains(host.demo_org.as_deref().unwrap()) && !after.contains(&token));
}

#[tokio::test]
async fn metrics_count_traps_deadlines_and_memory_caps_by_component() {
    // The loop has its own deadline (300 ms); the allocation gets the time to reach its cap on a loaded machine.
    let host = Host::start_with_plugins(&["misbehave"], &[("CRM_COMPONENT_DEADLINE_MS", "10000")]).await;
    let token = host.demo_token.clone().unwrap();
    assert_eq!(host.get("/api/misbehave/trap", &token).await.status, 500);
    assert_eq!(host.get("/api/misbehave/loop", &token).await.status, 500);
    assert_eq!(host.get("/api/misbehave/alloc", &token).await.status, 500);
    let text = metrics(&host).await;
    assert_eq!(
        sample(&text, "crm_component_calls_total", &[r#"component="misbehave""#, r#"outcome="trap""#]),
        1.0,
        "{text}"
    );
    assert_eq!(sample(&text, "crm_component_calls_total", &[r#"component="misbehave""#, r#"outcome="deadline""#]), 1.0);
    assert_eq!(
        sample(&text, "crm_component_calls_total", &[r#"component="misbehave""#, r#"outcome="memory_cap""#]),
        1.0
    );
}

#[tokio::test]
async fn json_logs_carry_each_request_and_never_a_secret() {
    let host = Host::start_logging(&[("CRM_LOG_FORMAT", "json"), ("RUST_LOG", "debug")]).await;
    let org = host.demo_org.clone().unwrap();
    let token = host.demo_token.clone().unwrap();
    assert_eq!(host.get("/api/me", &token).await.status, 200);
    let r = host
        .request(Method::GET, "/api/me")
        .header("x-api-key", &token)
        .header("x-request-id", "trace-me-1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(host.post("/api/contacts", &token, &json!({ "email": "log@x.co" })).await.status, 201);
    let form =
        host.admin(Method::POST, &format!("/admin/orgs/{org}/forms"), Some(&json!({ "name": "F" }))).await.json();
    let key = form["publicKey"].as_str().unwrap().to_string();
    let url = format!("/api/v1/forms/submit/{}?key={key}", form["id"].as_str().unwrap());
    assert_eq!(host.call(Method::POST, &url, None, Some(&json!({ "email": "web@x.co" }))).await.status, 201);
    let envia_key = "envia-secret-key-4242-abcdef";
    let r = host
        .admin(Method::PUT, &format!("/admin/orgs/{org}/integrations/envia"), Some(&json!({ "apiKey": envia_key })))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(host.get("/api/me", "crm_0123456789abcdef01234567_wrongsecret").await.status, 401);
    let rotated = host.admin(Method::POST, &format!("/admin/orgs/{org}/webhook-secret/rotate"), None).await.json();
    let (webhook_secret, previous) =
        (rotated["secret"].as_str().unwrap().to_string(), rotated["previous"].as_str().unwrap().to_string());
    // Each request's line is written as it ends: wait for those asserted
    // (not a fixed 300 ms), and read only whole lines.
    let logged = crm_tests::shop::eventually(std::time::Duration::from_secs(20), || async {
        let log = host.log();
        ["trace-me-1", "/api/v1/forms/submit/{id}", "\"route\":\"/api/contacts\""].iter().all(|l| log.contains(l))
    })
    .await;
    assert!(logged, "the requests' lines were not logged: {}", host.log());
    let log = host.log();
    let log = &log[..log.rfind('\n').map_or(0, |end| end + 1)];
    let lines: Vec<Value> =
        log.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))).collect();
    let traced = lines
        .iter()
        .find(|l| l["request_id"] == "trace-me-1")
        .unwrap_or_else(|| panic!("no line of the request: {log}"));
    assert_eq!(
        (&traced["message"], &traced["route"], &traced["org"], &traced["status"], &traced["method"]),
        (&json!("request"), &json!("/api/me"), &json!(org), &json!(200), &json!("GET"))
    );
    assert!(traced["micros"].is_u64() && traced["level"] == "DEBUG" && traced["timestamp"].is_string());
    assert!(lines.iter().any(|l| l["route"] == "/api/v1/forms/submit/{id}" && l["status"] == 201));
    assert!(lines.iter().any(|l| l["route"] == "/api/contacts" && l["status"] == 201 && l["org"] == org.as_str()));
    for secret in [token.as_str(), ADMIN_TOKEN, key.as_str(), envia_key, "wrongsecret", &webhook_secret, &previous] {
        assert!(!log.contains(secret), "a secret reached the log: {secret}");
    }
}

#[tokio::test]
async fn a_generated_admin_token_is_written_to_its_file_and_never_printed() {
    let host = Host::start_with(&[("CRM_ADMIN_TOKEN", "")]).await;
    let file = host.data_dir().join("admin-token");
    let token = std::fs::read_to_string(&file).expect("the token's file").trim().to_string();
    assert!(token.starts_with("adm_"), "{token}");
    let said = host.stdout.join("\n");
    assert!(said.contains(&format!("it is in {}", file.display())), "stdout says where: {said}");
    assert!(!said.contains(&token), "stdout never shows it: {said}");
    let r = host.client.get(format!("{}/admin/routes", host.admin)).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), 200, "the file's token is the admin API's");
}
