//! The plugin runtime: components from `--plugins-dir` (and what each was
//! built against), containment of misbehaving ones, tenant isolation of the
//! component store, and `crm-host plugin check`.

use std::time::{Duration, Instant};

use crm_tests::*;

#[tokio::test]
async fn a_trap_an_endless_allocation_and_an_endless_loop_are_500_for_that_request_only() {
    let host = Host::start_with_plugins(&["misbehave"], &[]).await;
    let token = host.demo_token.clone().unwrap();
    for path in ["/api/misbehave/trap", "/api/misbehave/alloc", "/api/misbehave/loop"] {
        let started = Instant::now();
        let r = host.get(path, &token).await;
        assert_eq!(r.status, 500, "{path}");
        assert_eq!(
            r.json(),
            json!({ "success": false, "message": "Internal server error", "code": "INTERNAL_SERVER_ERROR" }),
            "{path}"
        );
        assert!(started.elapsed() < Duration::from_secs(3), "{path} took {:?}", started.elapsed());
        // The host and the component go on.
        assert_eq!(host.get("/api/misbehave/ok", &token).await.status, 200, "after {path}");
        assert_eq!(host.get("/api/me", &token).await.status, 200, "after {path}");
    }
}

/// With one compute turn, two looping calls (3 s each) would hold it for
/// 6 s in a row; they pass it on at every epoch tick instead, so the calls
/// queued behind them take a tick's wait each: all five are answered while
/// both loops still run, where waiting behind them would take 3 s at least.
#[tokio::test]
async fn long_calls_pass_their_compute_turn_on_at_every_tick() {
    let host = Host::start_with_plugins(&["misbehave"], &[("CRM_COMPUTE_TURNS", "1")]).await;
    let token = host.demo_token.clone().unwrap();
    let loops: Vec<_> = (0..2)
        .map(|_| {
            let (client, url, token) = (host.client.clone(), format!("{}/api/misbehave/spin", host.api), token.clone());
            tokio::spawn(
                async move { (client.get(url).bearer_auth(token).send().await.unwrap().status(), Instant::now()) },
            )
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = Instant::now();
    for _ in 0..5 {
        assert_eq!(host.get("/api/misbehave/ok", &token).await.status, 200);
    }
    let (answered, took) = (Instant::now(), started.elapsed());
    eprintln!("5 calls took {took:?} beside two loops");
    for looping in loops {
        let (status, ended) = looping.await.unwrap();
        assert_eq!(status, 500);
        assert!(ended > answered, "5 calls took {took:?}: they waited for a loop");
    }
}

/// A loop yields its thread at every tick: calls beside it are answered
/// while it runs (3 s), not after it.
#[tokio::test]
async fn other_requests_keep_their_latency_while_a_component_loops() {
    let host = Host::start_with_plugins(&["misbehave"], &[]).await;
    let token = host.demo_token.clone().unwrap();
    let looping = {
        let (client, url, token) = (host.client.clone(), format!("{}/api/misbehave/spin", host.api), token.clone());
        tokio::spawn(async move { (client.get(url).bearer_auth(token).send().await.unwrap().status(), Instant::now()) })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = Instant::now();
    for _ in 0..5 {
        assert_eq!(host.get("/api/misbehave/ok", &token).await.status, 200);
    }
    let (answered, took) = (Instant::now(), started.elapsed());
    eprintln!("5 calls took {took:?} beside a loop");
    let (status, ended) = looping.await.unwrap();
    assert_eq!(status, 500);
    assert!(ended > answered, "5 calls took {took:?}: they waited for the loop");
}

#[tokio::test]
async fn a_partner_component_adds_a_route_and_replaces_nothing_and_each_says_what_it_was_built_against() {
    let host = Host::start_with_plugins(&["partner_hello"], &[]).await;
    let plugins = host.admin(Method::GET, "/admin/plugins", None).await;
    assert_eq!(plugins.status, 200);
    let list = plugins.json()["data"].as_array().unwrap().clone();
    let hello = list.iter().find(|p| p["name"] == "partner-hello").expect("listed");
    assert_eq!(hello["kind"], "module");
    assert_eq!(hello["version"], "1.0.0");
    assert!(hello["source"].as_str().unwrap().ends_with("partner_hello.wasm"));
    assert_eq!(hello["hash"].as_str().unwrap().len(), 64);
    assert_eq!(hello["routes"][0]["path"], "/hello");
    assert_eq!(hello["routes"][0]["permission"], "hello:read");
    let contacts = list.iter().find(|p| p["name"] == "contacts").expect("the first-party module stays");
    assert_eq!(contacts["source"], "embedded");
    // What each was built against, read from the component itself.
    let (contract, version) = (contract(), crm_contract::Text::today().version());
    assert_eq!((&hello["world"], &hello["contract"]), (&json!("module"), &json!([contract])));
    assert!(hello["imports"].as_array().unwrap().contains(&json!(format!("crm:plugin/runtime@{version}"))), "{hello}");
    assert_eq!(hello["exports"], json!([format!("crm:plugin/handler@{version}")]));
    assert_eq!(contacts["world"], "contacts-provider");
    let shipments = list.iter().find(|p| p["name"] == "shipments").unwrap();
    assert_eq!(shipments["world"], "shipments-module");
    let envia = list.iter().find(|p| p["name"] == "envia").unwrap();
    assert_eq!((&envia["world"], &envia["contract"]), (&json!("provider-component"), &json!([contract])));

    let token = host.demo_token.clone().unwrap();
    let r = host.get("/api/hello", &token).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["calls"], 1);
}

#[tokio::test]
async fn component_routes_get_the_permission_and_plan_checks() {
    let host = Host::start_with_plugins(&["partner_hello"], &[]).await;
    let org = host.create_org(json!({ "name": "Acme" })).await;
    let reader = host.create_token(&org, &["contacts:read"]).await;
    let r = host.get("/api/hello", &reader).await;
    assert_eq!(r.status, 403);
    assert_eq!(
        r.json(),
        json!({
            "success": false,
            "message": "This token lacks the permission hello:read",
            "code": "INSUFFICIENT_API_PERMISSIONS",
            "requiredPermission": "hello:read",
            "availablePermissions": ["contacts:read"],
        })
    );
    let wildcard = host.create_token(&org, &["hello:*"]).await;
    assert_eq!(host.get("/api/hello", &wildcard).await.status, 200, "resource:* grants the resource");
    // The api module comes before the permission.
    let (_, free) = host.org_with_token(json!({ "name": "Free", "plan": "free" })).await;
    let r = host.get("/api/hello", &free).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (403, json!("PLAN_MODULE_REQUIRED")));
    let free_org = host.create_org(json!({ "name": "Free 2", "plan": "free" })).await;
    let free_reader = host.create_token(&free_org, &["contacts:read"]).await;
    assert_eq!(host.get("/api/hello", &free_reader).await.json()["code"], "PLAN_MODULE_REQUIRED");
}

#[tokio::test]
async fn a_component_store_is_scoped_to_the_calling_organization() {
    let host = Host::start_with_plugins(&["partner_hello"], &[]).await;
    let (a, token_a) = host.org_with_token(json!({ "name": "A" })).await;
    let (_, token_b) = host.org_with_token(json!({ "name": "B" })).await;
    assert_eq!(host.get("/api/hello", &token_a).await.json()["calls"], 1);
    assert_eq!(host.get("/api/hello", &token_a).await.json()["calls"], 2);
    let b = host.get("/api/hello", &token_b).await.json();
    assert_eq!(b["calls"], 1, "B does not see A's counter");
    assert_ne!(b["hello"], a);
}

#[tokio::test]
async fn a_component_never_sees_the_callers_credentials() {
    let host = Host::start_with_plugins(&["misbehave"], &[]).await;
    let token = host.demo_token.clone().unwrap();
    let r = host
        .request(Method::GET, "/api/misbehave/ok")
        .bearer_auth(&token)
        .header("X-API-Key", &token)
        .header("X-Custom", "kept")
        .send()
        .await
        .unwrap();
    let body: Value = r.json().await.unwrap();
    let headers: Vec<&str> = body["headers"].as_array().unwrap().iter().map(|h| h.as_str().unwrap()).collect();
    assert!(headers.contains(&"x-custom"), "{headers:?}");
    assert!(!headers.contains(&"authorization") && !headers.contains(&"x-api-key"), "{headers:?}");
}

#[tokio::test]
async fn an_invalid_component_stops_the_start_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::write(plugins.join("broken.wasm"), b"not wasm at all").unwrap();
    let out = std::process::Command::new(host_binary())
        .args(["serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path().join("data"))
        .arg("--plugins-dir")
        .arg(&plugins)
        .env("CRM_ADMIN_TOKEN", ADMIN_TOKEN)
        .env("CRM_CACHE_DIR", shared_cache_dir())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.wasm"), "{stderr}");
}

#[tokio::test]
async fn a_host_that_does_not_start_fails_its_test_with_its_own_last_lines() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::write(plugins.join("broken.wasm"), b"not wasm at all").unwrap();
    let plugins_text = plugins.display().to_string();
    let data = dir.path().join("data");
    let start = tokio::spawn(async move { Host::start_in(&data, &[("CRM_PLUGINS_DIR", &plugins_text)]).await });
    let failed = start.await.err().expect("the harness refuses a host that exits").into_panic();
    let message = failed.downcast_ref::<String>().expect("a formatted panic message");
    assert!(message.starts_with("crm-host exited before it printed its addresses; its last lines:"), "{message}");
    assert!(message.contains("broken.wasm: not a valid component"), "the host's own words: {message}");
}

#[tokio::test]
async fn a_module_reaches_the_contacts_rules_through_the_contacts_interface() {
    let host = Host::start_with_plugins(&["contacts_client"], &[]).await;
    let token = host.demo_token.clone().unwrap();
    let r =
        host.post("/api/contacts-client/upsert", &token, &json!({ "email": "via@wit.co", "city": "Medellin" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let outcome = r.json();
    assert_eq!(outcome["status"], 201);
    assert_eq!(outcome["body"]["data"]["cityCode"], "05001", "the contacts module's own city rule ran");
    let id = outcome["contactId"].as_str().unwrap().to_string();
    // Same rules, same answers: an ambiguous city is refused the same way.
    let r =
        host.post("/api/contacts-client/upsert", &token, &json!({ "email": "x@wit.co", "city": "Villanueva" })).await;
    assert_eq!((r.json()["status"].clone(), r.json()["body"]["code"].clone()), (json!(422), json!("CITY_UNRESOLVED")));
    // The contact exists for the public API, and get works across modules.
    let listed = host.get(&format!("/api/contacts/{id}"), &token).await;
    assert_eq!(listed.json()["data"]["email"], "via@wit.co");
    let got = host.get(&format!("/api/contacts-client/{id}"), &token).await;
    assert_eq!(got.json()["email"], "via@wit.co");
    // Bound to the caller's organization: another one does not see it.
    let (_, other) = host.org_with_token(json!({ "name": "Other" })).await;
    assert_eq!(host.get(&format!("/api/contacts-client/{id}"), &other).await.status, 404);
}

/// `contacts-joined`: the contact's writes are made by the caller's next
/// commit and by nothing else; a create that lost its email meanwhile is
/// refused with that commit, and runs again as an update of the winner.
#[tokio::test]
async fn a_joined_upsert_is_written_with_the_callers_commit_or_not_at_all() {
    let host = Host::start_with_plugins(&["contacts_client"], &[]).await;
    let token = host.demo_token.clone().unwrap();
    let joined = |then: &str, email: &str| {
        let (path, body) = (format!("/api/contacts-client/joined?then={then}"), json!({ "email": email }));
        let (host, token) = (&host, &token);
        async move {
            let r = host.post(&path, token, &body).await;
            assert_eq!(r.status, 200, "{}", r.text);
            r.json()
        }
    };
    let found = |id: Value| {
        let (host, token) = (&host, &token);
        async move { host.get(&format!("/api/contacts/{}", id.as_str().unwrap()), token).await.status }
    };

    // No commit after the upsert: nothing of it is written, the email is free.
    let none = joined("none", "held@wit.co").await;
    assert_eq!((none["status"].clone(), none["committed"].clone()), (json!(201), Value::Null));
    assert_eq!(found(none["contactId"].clone()).await, 404);
    // The caller's commit does not apply: neither does the contact.
    let failed = joined("fail", "held@wit.co").await;
    assert_eq!((failed["status"].clone(), failed["committed"].clone()), (json!(201), json!(false)));
    assert_eq!(found(failed["contactId"].clone()).await, 404);
    assert_eq!(host.get("/api/contacts?email=held@wit.co&matchMode=exact", &token).await.json()["data"], json!([]));

    // The caller's commit applies: the contact is there, counted once.
    let committed = joined("commit", "held@wit.co").await;
    assert_eq!((committed["status"].clone(), committed["committed"].clone()), (json!(201), json!(true)));
    assert_eq!(found(committed["contactId"].clone()).await, 200);
    let again = joined("commit", "held@wit.co").await;
    assert_eq!((again["status"].clone(), again["contactId"].clone()), (json!(200), committed["contactId"].clone()));

    // A plain upsert creates the same email between the joined upsert and
    // the commit: the commit is refused whole, and the second round updates
    // the winner instead of making a duplicate.
    let race = joined("race", "race@wit.co").await;
    assert_eq!((race["first"]["status"].clone(), race["first"]["committed"].clone()), (json!(201), json!(false)));
    assert_eq!(found(race["first"]["contactId"].clone()).await, 404);
    assert_eq!((race["second"]["status"].clone(), race["second"]["committed"].clone()), (json!(200), json!(true)));
    let listed = host.get("/api/contacts?email=race@wit.co&matchMode=exact", &token).await.json();
    assert_eq!(listed["data"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed["data"][0]["id"], race["second"]["contactId"]);
}

/// One joined upsert waits for a commit at a time: two creates held together
/// would both be checked against the store as it was before either. A second
/// one before the caller's commit is refused, and without a commit nothing of
/// the first is written.
#[tokio::test]
async fn a_second_joined_upsert_before_a_commit_is_refused() {
    let host = Host::start_with_plugins(&["contacts_client"], &[]).await;
    let token = host.demo_token.clone().unwrap();
    let r = host.post("/api/contacts-client/joined?times=3", &token, &json!({ "email": "same@wit.co" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json(), json!({ "201": 1, "500": 2 }));
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 0);
}

/// `crm-host plugin check`: what a component was built against and whether
/// this host loads it, with no host running.
#[test]
fn plugin_check_says_what_a_component_was_built_against_and_whether_it_loads() {
    let check = |file: &std::path::Path| {
        std::process::Command::new(host_binary()).args(["plugin", "check"]).arg(file).output().unwrap()
    };
    let hello = built_component("partner_hello");
    let out = check(&hello);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let built_against = format!("world: module, built against {}", contract());
    for line in [
        "name: partner-hello 1.0.0 (module)",
        &built_against,
        "route: GET /hello (hello:read)",
        "loads on this host: yes",
    ] {
        assert!(text.lines().any(|l| l == line), "no {line:?} in:\n{text}");
    }
    let courier = String::from_utf8_lossy(&check(&built_component("flat_rate_courier")).stdout).into_owned();
    assert!(courier.contains(&format!("world: provider-component, built against {}", contract())), "{courier}");
    let exports =
        format!("\nexports: {}\ncarriers: mensajero-local\n", contract().replace("plugin@", "plugin/provider@"));
    assert!(courier.contains(&exports), "{courier}");

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.wasm");
    std::fs::write(&bad, b"not wasm").unwrap();
    let out = check(&bad);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("\nproblem: not a valid component: "), "{said}");
    assert!(said.ends_with("loads on this host: no\n"), "{said}");
    let why = String::from_utf8_lossy(&out.stderr);
    assert!(why.contains(&format!("{} cannot be loaded (the problems above)", bad.display())), "{why}");
}

/// `route-options` (since 1.1.0): a module sets one route's body limit, and
/// the host refuses a larger body before the component runs.
#[tokio::test]
async fn a_route_sets_its_own_body_limit_through_route_options() {
    let host = Host::start_with_plugins(&["misbehave"], &[]).await;
    let token = host.demo_token.clone().unwrap();
    let plugins = host.admin(Method::GET, "/admin/plugins", None).await.json();
    let misbehave = plugins["data"].as_array().unwrap().iter().find(|p| p["name"] == "misbehave").unwrap().clone();
    assert_eq!(misbehave["world"], "module-with-options");
    let small = misbehave["routes"].as_array().unwrap().iter().find(|r| r["path"] == "/misbehave/small").unwrap();
    assert_eq!((&small["method"], &small["maxBodyBytes"]), (&json!("POST"), &json!(64)));

    let post = |bytes: usize| {
        let (client, url, token) = (host.client.clone(), format!("{}/api/misbehave/small", host.api), token.clone());
        async move {
            let r = client.post(url).bearer_auth(token).body(vec![b'x'; bytes]).send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    assert_eq!(post(64).await, (200, json!({ "ok": true, "bytes": 64 })));
    let (status, body) = post(65).await;
    assert_eq!((status, &body["code"]), (413, &json!("PAYLOAD_TOO_LARGE")), "{body}");
}
