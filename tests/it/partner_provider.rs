//! A partner's provider (`plugins/examples/flat-rate-courier`, written from
//! the WIT alone) loaded from `--plugins-dir` beside Envia.

use crm_tests::envia_sim::EnviaSim;
use crm_tests::shop::{self, Shop, package};
use crm_tests::*;

async fn two_provider_shop() -> Shop {
    let sim = EnviaSim::start().await;
    let host = Host::start_with_plugins(
        &["flat_rate_courier"],
        &[("CRM_PROVIDER_TIMEOUT_MS", shop::PROVIDER_TIMEOUT_MS), ("CRM_TRACKING_REFRESH_MS", "0")],
    )
    .await;
    let shop = Shop::on(host, sim).await;
    let r = shop
        .host
        .admin(Method::PUT, &format!("/admin/orgs/{}/integrations/flat-rate-courier", shop.org), Some(&json!({})))
        .await;
    assert_eq!(r.status, 200, "a provider without a key is enabled with an empty body: {}", r.text);
    shop
}

#[tokio::test]
async fn the_partner_provider_is_listed_with_no_hosts() {
    let shop = two_provider_shop().await;
    let plugins = shop.host.admin(Method::GET, "/admin/plugins", None).await.json();
    let courier = plugins["data"].as_array().unwrap().iter().find(|p| p["name"] == "flat-rate-courier").unwrap();
    assert_eq!(courier["kind"], "provider");
    assert_eq!(courier["hosts"], json!([]));
    let envia = plugins["data"].as_array().unwrap().iter().find(|p| p["name"] == "envia").unwrap();
    assert_eq!(envia["kind"], "provider");
    assert!(envia["hosts"].as_array().unwrap().contains(&json!("api.envia.com")));
}

#[tokio::test]
async fn its_rates_appear_beside_envias_and_its_label_is_generated_tracked_and_cancelled() {
    let shop = two_provider_shop().await;
    let r = shop.post("/api/shipments/rates", &json!({ "contactId": shop.contact, "packages": [package()] })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let rates = r.json()["rates"].as_array().unwrap().clone();
    let providers: std::collections::BTreeSet<&str> = rates.iter().map(|r| r["provider"].as_str().unwrap()).collect();
    assert_eq!(providers, ["envia", "flat-rate-courier"].into_iter().collect());
    let next_day = rates.iter().find(|r| r["service"] == "next_day").unwrap();
    assert_eq!(next_day["price"], 8000, "6,000 + 1,000 per kg");
    assert_eq!(rates[0], *next_day, "the cheapest of all, first");

    let mut body = shop.label_body(Some("local-1"));
    body["carrier"] = json!("mensajero-local");
    body["service"] = json!("next_day");
    let r = shop.post("/api/shipments", &body).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let s = r.json()["data"].clone();
    let id = s["id"].as_str().unwrap();
    assert_eq!(s["provider"], "flat-rate-courier");
    assert_eq!(s["trackingNumber"], format!("MLC{id}"));
    assert_eq!(s["price"], 8000);
    assert_eq!(shop.sim.calls("generate"), 0, "Envia was not involved");

    let r = shop.post(&format!("/api/shipments/{id}/track"), &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["data"]["events"].as_array().unwrap().last().unwrap()["description"], "Esperando recogida");
    let r = shop.post(&format!("/api/shipments/{id}/cancel"), &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["data"]["status"], "cancelled");
    assert_eq!(r.json()["data"]["refund"], json!({ "amount": 0, "currency": "COP", "returned": false }));

    // Envia's carriers still go to Envia.
    assert_eq!(shop.generate(Some("envia-1")).await.json()["data"]["provider"], "envia");
    // A service the courier does not offer is its rejection: a draft and 422.
    body["idempotencyKey"] = json!("local-2");
    body["service"] = json!("teleport");
    let r = shop.post("/api/shipments", &body).await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert_eq!(r.json()["error"]["code"], "UNKNOWN_SERVICE");
}
