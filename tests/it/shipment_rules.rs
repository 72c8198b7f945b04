//! The shipment error table: prerequisites, the destination city rules,
//! track and cancel by state, permissions, the plan module and tenancy.

use crm_tests::envia_sim::{API_KEY, EnviaSim};
use crm_tests::shop::{self, Shop, package};
use crm_tests::*;

#[tokio::test]
async fn without_an_integration_or_an_origin_the_prerequisite_errors_answer() {
    let host = Host::start_with(&[("CRM_TRACKING_REFRESH_MS", "0")]).await;
    let sim = EnviaSim::start().await;
    let (org, token) = host.org_with_token(json!({ "name": "Nueva" })).await;
    let contact = shop::create_contact(&host, &token, "a@b.co").await;
    let quote = json!({ "contactId": contact, "packages": [package()] });
    let r = host.post("/api/shipments/rates", &token, &quote).await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert_eq!(r.json()["code"], "ENVIA_NOT_CONFIGURED");
    assert_eq!(r.json()["success"], false);

    let put = |body: Value| {
        let host = &host;
        let org = org.clone();
        async move { host.admin(Method::PUT, &format!("/admin/orgs/{org}/integrations/envia"), Some(&body)).await }
    };
    assert_eq!(put(json!({ "baseUrl": sim.url })).await.status, 400, "the key is required");
    assert_eq!(put(json!({ "apiKey": API_KEY, "baseUrl": "ftp://x" })).await.status, 400);
    let r = put(json!({ "apiKey": "short-k", "baseUrl": sim.url })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["data"]["apiKeyLast4"], "", "four characters of a short key are too much of it");
    let r = put(json!({ "apiKey": API_KEY, "baseUrl": sim.url })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(!r.text.contains(API_KEY), "the key is never shown again");
    assert_eq!(r.json()["data"]["apiKeyLast4"], &API_KEY[API_KEY.len() - 4..]);
    let r = host.admin(Method::PUT, &format!("/admin/orgs/{org}/integrations/dhl"), Some(&json!({}))).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("PROVIDER_NOT_FOUND")));

    let r = host.post("/api/shipments/rates", &token, &quote).await;
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["code"], "ORIGIN_NOT_CONFIGURED");
    let mut label = quote.clone();
    label["carrier"] = json!("coordinadora");
    label["service"] = json!("ground");
    assert_eq!(host.post("/api/shipments", &token, &label).await.json()["code"], "ORIGIN_NOT_CONFIGURED");

    let bad_origin = json!({ "name": "B", "phone": "1", "street": "x", "cityCode": "99999" });
    let r = host.admin(Method::PUT, &format!("/admin/orgs/{org}/shipping/origin"), Some(&bad_origin)).await;
    assert_eq!(r.status, 400, "{}", r.text);
    let r = host.admin(Method::PUT, &format!("/admin/orgs/{org}/shipping/origin"), Some(&shop::origin())).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(host.post("/api/shipments/rates", &token, &quote).await.status, 200);
    assert_eq!(sim.calls("generate"), 0);
}

#[tokio::test]
async fn the_destination_city_must_resolve_in_colombia_with_candidates_to_pick_from() {
    let shop = Shop::open().await;
    let rates = |destination: Value| {
        let body = json!({ "contactId": shop.contact, "packages": [package()], "destination": destination });
        let shop = &shop;
        async move { shop.post("/api/shipments/rates", &body).await }
    };
    // "Barbosa" exists in Antioquia and in Santander.
    let r = rates(json!({ "city": "Barbosa" })).await;
    assert_eq!(r.status, 422, "{}", r.text);
    let body = r.json();
    assert_eq!(body["code"], "INVALID_CITY");
    assert_eq!(body["reason"], "ambiguous");
    assert_eq!(body["input"], json!({ "city": "Barbosa", "country": "Colombia" }));
    let candidates = body["candidates"].as_array().unwrap();
    assert!(candidates.len() >= 2);
    let antioquia = candidates.iter().find(|c| c["stateCode"] == "05").unwrap();
    assert_eq!(
        *antioquia,
        json!({ "code": "05079", "dane8": "05079000", "name": "Barbosa", "stateCode": "05", "stateName": "Antioquia", "stateIso": "AN" })
    );
    let santander = candidates.iter().find(|c| c["stateCode"] == "68").unwrap();
    assert_eq!(santander["stateIso"], "SN", "Envia's code, not the Geocodes API's");

    let r = rates(json!({ "city": "Medelin" })).await.json();
    assert_eq!((r["reason"].clone(), r["candidates"][0]["code"].clone()), (json!("fuzzy"), json!("05001")));
    let r = rates(json!({ "city": "Qwxyzpolis" })).await.json();
    assert_eq!(r["reason"], "none");
    let r = rates(json!({ "cityCode": "99999" })).await.json();
    assert_eq!((r["reason"].clone(), r["candidates"].clone()), (json!("none"), json!([])));
    let r = rates(json!({ "city": "Quito", "country": "EC" })).await;
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["reason"], "unsupported_country");
    assert_eq!(r.json()["input"]["country"], "EC");
    // The candidate's code, resent, resolves.
    assert_eq!(rates(json!({ "cityCode": "05079" })).await.status, 200);
    assert_eq!(shop.sim.calls("generate"), 0);
}

#[tokio::test]
async fn a_contact_without_a_city_needs_a_destination_and_an_unknown_contact_is_404() {
    let shop = Shop::open().await;
    let r = shop.post("/api/contacts", &json!({ "email": "sin.ciudad@x.co" })).await;
    let bare = r.json()["data"]["id"].as_str().unwrap().to_string();
    let mut body = shop.label_body(Some("bare-1"));
    body["contactId"] = json!(bare);
    let r = shop.post("/api/shipments", &body).await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert_eq!((r.json()["reason"].clone(), r.json()["input"].clone()), (json!("none"), json!({})));
    body["destination"] = json!({ "cityCode": "76001", "street": "Calle 5 # 1-2" });
    let r = shop.post("/api/shipments", &body).await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.json()["data"]["destination"]["city"], "Cali");

    let mut body = shop.label_body(Some("ghost"));
    body["contactId"] = json!("0123456789abcdef01234567");
    let r = shop.post("/api/shipments", &body).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("CONTACT_NOT_FOUND")));
    body["contactId"] = json!("not-an-id");
    assert_eq!(shop.post("/api/shipments", &body).await.json()["code"], "VALIDATION_ERROR");
    for broken in
        [json!({ "packages": [] }), json!({ "packages": [{ "content": "x", "weight": -1 }] }), json!({ "carrier": 5 })]
    {
        let mut body = shop.label_body(Some("broken"));
        for (k, v) in broken.as_object().unwrap() {
            body[k] = v.clone();
        }
        let r = shop.post("/api/shipments", &body).await;
        assert_eq!(r.status, 400, "{broken}: {}", r.text);
        assert_eq!(r.json()["code"], "VALIDATION_ERROR");
    }
    assert_eq!(shop.sim.calls("generate"), 1);
}

#[tokio::test]
async fn track_refreshes_from_the_provider_and_a_draft_is_not_trackable() {
    let shop = Shop::open().await;
    let made = shop.generate(Some("t-1")).await.json();
    let id = made["data"]["id"].as_str().unwrap().to_string();
    let tn = made["data"]["trackingNumber"].as_str().unwrap().to_string();
    shop.sim.set_status(&tn, "Picked Up");
    shop.sim.set_status(&tn, "Out for Delivery");
    let r = shop.post(&format!("/api/shipments/{id}/track"), &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let s = &r.json()["data"];
    assert_eq!(s["status"], "out_for_delivery");
    let events = s["events"].as_array().unwrap();
    assert_eq!(events.len(), 3, "created, then two provider events: {events:?}");
    assert_eq!(
        events[2],
        json!({ "status": "out_for_delivery", "description": "Estado: Out for Delivery", "location": "MEDELLIN", "occurredAt": "2026-11-22 10:01" })
    );
    // Tracking again adds nothing new.
    let again = shop.post(&format!("/api/shipments/{id}/track"), &json!({})).await.json();
    assert_eq!(again["data"]["events"].as_array().unwrap().len(), 3);

    shop.sim.set_balance(0.0);
    let draft = shop.generate(Some("t-2")).await.json();
    let draft_id = draft["shipmentId"].as_str().unwrap();
    let r = shop.post(&format!("/api/shipments/{draft_id}/track"), &json!({})).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (409, json!("SHIPMENT_NOT_TRACKABLE")));
    let r = shop.post("/api/shipments/0123456789abcdef01234567/track", &json!({})).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("SHIPMENT_NOT_FOUND")));
}

#[tokio::test]
async fn cancel_only_from_created_with_the_refund_the_provider_reports() {
    let shop = Shop::open().await;
    let made = shop.generate(Some("c-1")).await.json();
    let id = made["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(shop.sim.balance(), 988_000.0);
    let r = shop.post(&format!("/api/shipments/{id}/cancel"), &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let s = &r.json()["data"];
    assert_eq!(s["status"], "cancelled");
    assert_eq!(s["refund"], json!({ "amount": 12000, "currency": "COP", "returned": true }));
    assert_eq!(s["events"].as_array().unwrap().last().unwrap()["status"], "cancelled");
    assert_eq!(shop.sim.balance(), 1_000_000.0, "refunded by the provider");
    let r = shop.post(&format!("/api/shipments/{id}/cancel"), &json!({})).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (409, json!("SHIPMENT_NOT_CANCELABLE")));
    assert_eq!(shop.sim.calls("cancel"), 1);

    // In transit: not cancelable, and the provider is not asked.
    let moving = shop.generate(Some("c-2")).await.json();
    let (mid, tn) = (moving["data"]["id"].as_str().unwrap(), moving["data"]["trackingNumber"].as_str().unwrap());
    shop.sim.set_status(tn, "Shipped");
    shop.post(&format!("/api/shipments/{mid}/track"), &json!({})).await;
    let r = shop.post(&format!("/api/shipments/{mid}/cancel"), &json!({})).await;
    assert_eq!(r.json()["code"], "SHIPMENT_NOT_CANCELABLE");
    assert_eq!(r.json()["status"], "in_transit");
    assert_eq!(shop.sim.calls("cancel"), 1);
}

#[tokio::test]
async fn shipment_routes_need_their_permission_and_the_shipping_plan_module() {
    let shop = Shop::open().await;
    let reader = shop.host.create_token(&shop.org, &["shipments:read"]).await;
    let r = shop.host.post("/api/shipments", &reader, &shop.label_body(Some("p-1"))).await;
    assert_eq!(r.status, 403);
    assert_eq!(r.json()["code"], "INSUFFICIENT_API_PERMISSIONS");
    assert_eq!(r.json()["requiredPermission"], "shipments:write");
    let quote = json!({ "contactId": shop.contact, "packages": [package()] });
    assert_eq!(shop.host.post("/api/shipments/rates", &reader, &quote).await.status, 200);
    let none = shop.host.create_token(&shop.org, &["contacts:read"]).await;
    assert_eq!(shop.host.get("/api/shipments", &none).await.status, 403);

    let r = shop
        .host
        .admin(Method::PATCH, &format!("/admin/orgs/{}", shop.org), Some(&json!({ "modules": { "shipping": false } })))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = shop.get("/api/shipments").await;
    assert_eq!(r.status, 403);
    assert_eq!(r.json()["code"], "PLAN_MODULE_REQUIRED");
    assert_eq!(r.json()["module"], "shipping");
    assert_eq!(shop.sim.calls("generate"), 0);
}

#[tokio::test]
async fn no_shipment_call_reaches_another_organization() {
    let shop = Shop::open().await;
    let made = shop.generate(Some("shared-key")).await.json();
    let id = made["data"]["id"].as_str().unwrap().to_string();
    let token_b = Shop::on_same_host(&shop).await.token;
    let b = |path: String| {
        let host = &shop.host;
        let token = token_b.clone();
        async move { host.post(&path, &token, &json!({})).await }
    };
    assert_eq!(shop.host.get(&format!("/api/shipments/{id}"), &token_b).await.status, 404);
    assert_eq!(b(format!("/api/shipments/{id}/track")).await.status, 404);
    assert_eq!(b(format!("/api/shipments/{id}/cancel")).await.status, 404);
    let listed = shop.host.get("/api/shipments", &token_b).await.json();
    assert_eq!(listed["pagination"]["total"], 0);
    let listed = shop.host.get(&format!("/api/shipments?contactId={}", shop.contact), &token_b).await.json();
    assert_eq!(listed["pagination"]["total"], 0);
    // A's contact is not B's, even with A's idempotency key.
    let mut body = shop.label_body(Some("shared-key"));
    let r = shop.host.post("/api/shipments", &token_b, &body).await;
    assert_eq!(r.status, 404, "{}", r.text);
    assert_eq!(r.json()["code"], "CONTACT_NOT_FOUND");
    // B's own contact with the same key is B's own first attempt.
    body["contactId"] = json!(shop::create_contact(&shop.host, &token_b, "b@otra.co").await);
    let r = shop.host.post("/api/shipments", &token_b, &body).await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_ne!(r.json()["data"]["id"], id.as_str());
    assert_eq!(shop.get(&format!("/api/shipments/{id}")).await.json()["data"]["status"], "created");
}
