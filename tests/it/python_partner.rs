//! A partner's provider written in Python (`plugins/examples/python-courier`,
//! from the WIT alone, built by `scripts/build-python-courier.sh` with
//! componentize-py) loaded from `--plugins-dir` beside Envia: its rates, a
//! label, tracking and a cancel, exactly as for the Rust partner.

use crm_tests::envia_sim::EnviaSim;
use crm_tests::shop::{self, Shop, package};
use crm_tests::*;

fn python_courier() -> std::path::PathBuf {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/plugins/python/python_courier.wasm");
    assert!(path.exists(), "{} is missing: run ./scripts/setup.sh (it builds the Python partner)", path.display());
    path
}

#[tokio::test]
async fn a_python_provider_quotes_beside_envia_and_its_label_is_generated_tracked_and_cancelled() {
    let temp = tempfile::tempdir().unwrap();
    let plugins = temp.path().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::copy(python_courier(), plugins.join("python_courier.wasm")).unwrap();
    let plugins_text = plugins.display().to_string();
    let host = Host::start_in(
        &temp.path().join("data"),
        &[
            ("CRM_PLUGINS_DIR", &plugins_text),
            ("CRM_PROVIDER_TIMEOUT_MS", shop::PROVIDER_TIMEOUT_MS),
            ("CRM_TRACKING_REFRESH_MS", "0"),
        ],
    )
    .await;
    let listed = host.admin(Method::GET, "/admin/plugins", None).await.json();
    let courier = listed["data"].as_array().unwrap().iter().find(|p| p["name"] == "python-courier").unwrap().clone();
    assert_eq!((&courier["kind"], &courier["hosts"]), (&json!("provider"), &json!([])));

    let shop = Shop::on(host, EnviaSim::start().await).await;
    let r = shop
        .host
        .admin(Method::PUT, &format!("/admin/orgs/{}/integrations/python-courier", shop.org), Some(&json!({})))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);

    let r = shop.post("/api/shipments/rates", &json!({ "contactId": shop.contact, "packages": [package()] })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let rates = r.json()["rates"].as_array().unwrap().clone();
    let providers: std::collections::BTreeSet<&str> = rates.iter().map(|r| r["provider"].as_str().unwrap()).collect();
    assert_eq!(providers, ["envia", "python-courier"].into_iter().collect());
    let standard = rates.iter().find(|r| r["carrier"] == "moto-express" && r["service"] == "standard").unwrap();
    assert_eq!((&standard["price"], &standard["currency"]), (&json!(9400), &json!("COP")), "7,000 + 1,200 per kg");
    assert_eq!(standard["serviceDescription"], "Entrega el mismo día");

    let mut body = shop.label_body(Some("moto-1"));
    body["carrier"] = json!("moto-express");
    body["service"] = json!("standard");
    let r = shop.post("/api/shipments", &body).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let s = r.json()["data"].clone();
    let id = s["id"].as_str().unwrap().to_string();
    assert_eq!(
        (&s["provider"], &s["trackingNumber"], &s["price"]),
        (&json!("python-courier"), &json!(format!("MOTO{id}")), &json!(9400))
    );
    assert_eq!(shop.sim.calls("generate"), 0, "Envia was not involved");

    let r = shop.post(&format!("/api/shipments/{id}/track"), &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["data"]["events"].as_array().unwrap().last().unwrap()["description"], "Esperando al mensajero");
    let r = shop.post(&format!("/api/shipments/{id}/cancel"), &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["data"]["status"], "cancelled");
    assert_eq!(r.json()["data"]["refund"], json!({ "amount": 0, "currency": "COP", "returned": false }));

    // A Python exception of the WIT's error type is the provider's rejection: a draft and 422.
    body["idempotencyKey"] = json!("moto-2");
    body["service"] = json!("teleport");
    let r = shop.post("/api/shipments", &body).await;
    assert_eq!((r.status.as_u16(), r.json()["error"]["code"].clone()), (422, json!("UNKNOWN_SERVICE")), "{}", r.text);
}
