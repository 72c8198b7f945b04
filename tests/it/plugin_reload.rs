//! Swapping components without a restart: `POST /admin/plugins/reload`
//! under load, a refused component, added and removed ones.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crm_tests::*;

async fn reload(host: &Host) -> Reply {
    host.admin(Method::POST, "/admin/plugins/reload", None).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_component_is_swapped_under_load_without_a_failed_request() {
    let temp = tempfile::tempdir().unwrap();
    let plugins = temp.path().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    let greeter = plugins.join("greeter.wasm");
    std::fs::copy(built_component("greeter_v1"), &greeter).unwrap();
    let plugins_text = plugins.display().to_string();
    let host = Host::start_in(&temp.path().join("data"), &[("CRM_PLUGINS_DIR", &plugins_text)]).await;
    let token = host.demo_token.clone().unwrap();
    assert_eq!(host.get("/api/greeter", &token).await.json()["version"], "v1");

    // Eight clients call the greeter back to back while it is swapped.
    let stop = Arc::new(AtomicBool::new(false));
    let mut clients = Vec::new();
    for _ in 0..8 {
        let (client, url, token, stop) =
            (host.client.clone(), format!("{}/api/greeter", host.api), token.clone(), stop.clone());
        clients.push(tokio::spawn(async move {
            let mut seen = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let r = client.get(&url).bearer_auth(&token).send().await.unwrap();
                let status = r.status().as_u16();
                let version = r
                    .json::<Value>()
                    .await
                    .map(|v| v["version"].as_str().unwrap_or("").to_string())
                    .unwrap_or_default();
                seen.push((status, version));
            }
            seen
        }));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    std::fs::copy(built_component("greeter_v2"), &greeter).unwrap();
    let r = reload(&host).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let changes = &r.json()["data"];
    assert_eq!(
        (&changes["replaced"], &changes["added"], &changes["removed"]),
        (&json!(["greeter"]), &json!([]), &json!([]))
    );
    assert!(changes["unchanged"].as_array().unwrap().contains(&json!("contacts")));
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    let mut all = Vec::new();
    for c in clients {
        all.extend(c.await.unwrap());
    }
    assert!(all.len() > 50, "the clients ran: {}", all.len());
    assert!(all.iter().all(|(status, _)| *status == 200), "a request failed during the swap");
    assert!(all.iter().any(|(_, v)| v == "v1") && all.iter().any(|(_, v)| v == "v2"));
    assert_eq!(host.get("/api/greeter", &token).await.json()["version"], "v2");
    let listed = host.admin(Method::GET, "/admin/plugins", None).await.json();
    let entry = listed["data"].as_array().unwrap().iter().find(|p| p["name"] == "greeter").unwrap().clone();
    assert_eq!(entry["version"], "v2");

    // A component that does not load is refused with its file named; the previous set keeps serving.
    std::fs::write(plugins.join("broken.wasm"), b"not a component").unwrap();
    let r = reload(&host).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (422, json!("PLUGIN_REFUSED")), "{}", r.text);
    assert!(r.json()["message"].as_str().unwrap().contains("broken.wasm"), "{}", r.text);
    assert_eq!(host.get("/api/greeter", &token).await.json()["version"], "v2");
    std::fs::remove_file(plugins.join("broken.wasm")).unwrap();

    // Added and removed components, and their routes with them.
    std::fs::copy(built_component("contacts_client"), plugins.join("contacts_client.wasm")).unwrap();
    std::fs::remove_file(&greeter).unwrap();
    let r = reload(&host).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        (&r.json()["data"]["added"], &r.json()["data"]["removed"]),
        (&json!(["contacts-client"]), &json!(["greeter"]))
    );
    assert_eq!(host.get("/api/greeter", &token).await.status, 404);
    let r = host.post("/api/contacts-client/upsert", &token, &json!({ "email": "reload@x.co" })).await;
    assert_eq!((r.status.as_u16(), r.json()["status"].clone()), (200, json!(201)), "{}", r.text);
}
