//! Shipments through the real host, the shipments module, the Envia
//! component and the Envia simulator: rates, generate, get, list, track,
//! cancel, prerequisites, destination rules, permissions and tenancy.

use crm_tests::envia_sim::CARRIERS;
use crm_tests::shop::{self, Shop, package};
use crm_tests::*;

#[tokio::test]
async fn rates_quote_every_carrier_cheapest_first_and_charge_nothing() {
    let shop = Shop::open().await;
    let balance = shop.sim.balance();
    let r = shop.post("/api/shipments/rates", &json!({ "contactId": shop.contact, "packages": [package()] })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let body = r.json();
    assert_eq!(body["success"], true);
    let rates = body["rates"].as_array().unwrap();
    assert_eq!(rates.len(), CARRIERS.len() * 2, "two services per carrier: {body}");
    let prices: Vec<f64> = rates.iter().map(|r| r["price"].as_f64().unwrap()).collect();
    assert!(prices.windows(2).all(|w| w[0] <= w[1]), "ordered by price: {prices:?}");
    assert_eq!(
        rates[0],
        json!({ "provider": "envia", "carrier": "coordinadora", "service": "ground",
        "serviceDescription": "coordinadora Ground", "price": 12000, "currency": "COP", "deliveryEstimate": "2-3 días" })
    );
    // Deprisa sends prices as strings; they arrive as numbers.
    assert!(rates.iter().any(|r| r["carrier"] == "deprisa" && r["price"].is_number()));
    assert_eq!(body["failed"], json!([]));
    assert_eq!(shop.sim.balance(), balance, "a quote charges nothing");
    assert_eq!(shop.sim.calls("generate"), 0);
    let listed = shop.get("/api/shipments").await.json();
    assert_eq!(listed["pagination"]["total"], 0, "a quote writes nothing");
}

#[tokio::test]
async fn one_failing_carrier_never_fails_the_quote() {
    let shop = Shop::open().await;
    shop.sim.fail_carrier("tcc");
    let r = shop.post("/api/shipments/rates", &json!({ "contactId": shop.contact, "packages": [package()] })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let body = r.json();
    assert_eq!(body["rates"].as_array().unwrap().len(), (CARRIERS.len() - 1) * 2);
    assert!(body["rates"].as_array().unwrap().iter().all(|r| r["carrier"] != "tcc"));
    // Our words for the provider's code: Envia's own text never reaches the caller.
    assert_eq!(
        body["failed"],
        json!([{ "carrier": "tcc", "code": "NO_COVERAGE", "message": "The carrier does not serve this route" }])
    );
    assert!(!r.text.contains("Requested service is not available"), "{}", r.text);
}

#[tokio::test]
async fn a_rejected_label_answers_our_message_never_the_providers_text() {
    let shop = Shop::open().await;
    shop.sim.set_balance(0.0);
    let r = shop.generate(Some("broke-1")).await;
    assert_eq!(r.status, 422, "{}", r.text);
    let body = r.json();
    assert_eq!(body["code"], "ENVIA_GENERATE_FAILED");
    assert_eq!(
        body["error"],
        json!({ "code": "INSUFFICIENT_BALANCE", "message": "The provider account has insufficient balance" })
    );
    // Envia says "Insufficient balance to generate the label": not in any answer.
    let draft = shop.get(&format!("/api/shipments/{}", body["shipmentId"].as_str().unwrap())).await;
    assert_eq!(draft.json()["data"]["error"], body["error"], "{}", draft.text);
    let list = shop.get("/api/shipments").await;
    for text in [&r.text, &draft.text, &list.text] {
        assert!(!text.contains("to generate the label") && !text.contains("providerMessage"), "{text}");
    }
}

#[tokio::test]
async fn generate_makes_one_label_charges_the_balance_and_shows_the_shipment() {
    let shop = Shop::open().await;
    let r = shop.generate(Some("order-1")).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let body = r.json();
    assert_eq!(body["success"], true);
    assert!(body.get("reused").is_none());
    let s = &body["data"];
    let id = s["id"].as_str().unwrap();
    assert_eq!(id.len(), 24);
    assert_eq!(s["status"], "created");
    assert_eq!(s["provider"], "envia");
    assert_eq!((&s["carrier"], &s["service"]), (&json!("coordinadora"), &json!("ground")));
    assert_eq!(s["contactId"], shop.contact);
    assert_eq!(s["idempotencyKey"], "order-1");
    assert_eq!(s["price"], 12000);
    assert_eq!(s["currency"], "COP");
    let tn = s["trackingNumber"].as_str().unwrap();
    assert_eq!(s["trackUrl"], format!("https://envia.com/rastreo?label={tn}"));
    assert_eq!(s["labelUrl"], format!("https://s3.example/labels/{tn}.pdf"));
    assert_eq!(s["destination"]["cityCode"], "05001");
    assert_eq!(s["destination"]["city"], "Medellín");
    assert_eq!(s["destination"]["street"], "Cra 45 # 12-08");
    assert_eq!(s["destination"]["name"], "Ana Gómez");
    assert_eq!(s["packages"], json!([package()]));
    assert_eq!(s["events"][0]["status"], "created");
    assert_eq!(s["refund"], Value::Null);
    assert_eq!(shop.sim.calls("generate"), 1);
    assert_eq!(shop.sim.balance(), 1_000_000.0 - 12000.0);

    let got = shop.get(&format!("/api/shipments/{id}")).await;
    assert_eq!(got.status, 200);
    assert_eq!(got.json()["data"], *s);
}

#[tokio::test]
async fn a_pickup_is_asked_with_the_label_or_the_label_is_refused() {
    let shop = Shop::open().await;
    let pickup = json!({ "date": "2099-01-15", "timeFrom": 9, "timeTo": 13, "instructions": "Portería" });
    let mut body = shop.label_body(Some("p-1"));
    body["pickup"] = pickup.clone();
    let r = shop.post("/api/shipments", &body).await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.json()["data"]["pickup"], pickup);
    let tn = r.json()["data"]["trackingNumber"].as_str().unwrap().to_string();
    assert_eq!(
        shop.sim.pickup_of(&tn),
        json!({ "date": "2099-01-15", "timeFrom": 9, "timeTo": 13, "totalPackages": 1, "totalWeight": 2.0,
                "weightUnit": "KG", "instructions": "Portería" })
    );
    assert_eq!(shop.generate(Some("p-0")).await.json()["data"]["pickup"], Value::Null, "no pickup unless asked");

    // A carrier without pickup at generation: refused before any label is made.
    let generated = shop.sim.calls("generate");
    body["idempotencyKey"] = json!("p-2");
    body["carrier"] = json!("serviEntrega");
    let r = shop.post("/api/shipments", &body).await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert_eq!(r.json()["code"], "ENVIA_GENERATE_FAILED");
    assert_eq!(r.json()["error"]["code"], "PICKUP_NOT_SUPPORTED");
    assert_eq!(shop.sim.calls("generate"), generated, "Envia's generate was not called");

    for (broken, field) in [
        (json!("tomorrow"), "pickup"),
        (json!({ "date": "2099-02-30", "timeFrom": 9, "timeTo": 13 }), "pickup.date"),
        (json!({ "date": "2020-01-15", "timeFrom": 9, "timeTo": 13 }), "pickup.date"),
        (json!({ "date": "2099-01-15", "timeFrom": 14, "timeTo": 13 }), "pickup.timeTo"),
        (json!({ "date": "2099-01-15", "timeFrom": 9, "timeTo": 24 }), "pickup.timeTo"),
        (json!({ "date": "2099-01-15", "timeTo": 13 }), "pickup.timeFrom"),
    ] {
        let mut body = shop.label_body(Some("p-3"));
        body["pickup"] = broken.clone();
        let r = shop.post("/api/shipments", &body).await;
        assert_eq!(r.status, 400, "{broken}: {}", r.text);
        assert_eq!(
            (r.json()["code"].clone(), r.json()["details"]["field"].clone()),
            (json!("VALIDATION_ERROR"), json!(field)),
            "{broken}"
        );
    }
}

#[tokio::test]
async fn list_filters_by_contact_and_status_newest_first_and_clamps_the_limit() {
    let shop = Shop::open().await;
    let other = shop::create_contact(&shop.host, &shop.token, "otro@tienda.co").await;
    let mut ids = Vec::new();
    for i in 0..3 {
        let r = shop.generate(Some(&format!("k{i}"))).await;
        assert_eq!(r.status, 201, "{}", r.text);
        ids.push(r.json()["data"]["id"].as_str().unwrap().to_string());
    }
    let mut body = shop.label_body(Some("k-other"));
    body["contactId"] = json!(other);
    assert_eq!(shop.post("/api/shipments", &body).await.status, 201);
    let r = shop.post(&format!("/api/shipments/{}/cancel", ids[0]), &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);

    let all = shop.get("/api/shipments").await.json();
    assert_eq!(all["pagination"], json!({ "total": 4, "page": 1, "limit": 20, "pages": 1 }));
    let mine = shop.get(&format!("/api/shipments?contactId={}", shop.contact)).await.json();
    let listed: Vec<&str> = mine["data"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(listed, vec![ids[2].as_str(), ids[1].as_str(), ids[0].as_str()], "newest first");
    let cancelled = shop.get("/api/shipments?status=cancelled").await.json();
    assert_eq!(cancelled["pagination"]["total"], 1);
    assert_eq!(cancelled["data"][0]["id"], ids[0]);
    let both = shop.get(&format!("/api/shipments?contactId={}&status=created", shop.contact)).await.json();
    assert_eq!(both["pagination"]["total"], 2);
    let older = shop.get(&format!("/api/shipments?contactId={}&status=created&limit=1&page=2", shop.contact)).await;
    assert_eq!((&older.json()["data"][0]["id"], &older.json()["pagination"]["total"]), (&json!(ids[1]), &json!(2)));
    let created = shop.get("/api/shipments?status=created&limit=2&page=2").await.json();
    assert_eq!((&created["data"][0]["id"], &created["pagination"]["total"]), (&json!(ids[1]), &json!(3)));
    let page = shop.get("/api/shipments?limit=1000&page=1").await.json();
    assert_eq!(page["pagination"]["limit"], 100, "clamped");
    assert_eq!(page["data"][3]["id"], ids[0], "newest first, the first shipment last");
    let page2 = shop.get("/api/shipments?limit=3&page=2").await.json();
    assert_eq!(page2["data"].as_array().unwrap().len(), 1);
    assert_eq!((&page2["data"][0]["id"], &page2["pagination"]["pages"]), (&json!(ids[0]), &json!(2)));
    for status in ["lost", ""] {
        let bad = shop.get(&format!("/api/shipments?status={status}")).await;
        assert_eq!((bad.status.as_u16(), bad.json()["code"].clone()), (400, json!("VALIDATION_ERROR")), "{status:?}");
        assert_eq!(bad.json()["details"], json!({ "field": "status" }));
    }
    for contact_id in ["", "abc", "0123456789ABCDEF01234567"] {
        let bad = shop.get(&format!("/api/shipments?contactId={contact_id}")).await;
        assert_eq!(
            (bad.status.as_u16(), bad.json()["message"].clone(), bad.json()["details"].clone()),
            (400, json!("contactId is not a valid id"), json!({ "field": "contactId" })),
            "{contact_id:?}"
        );
    }
}

/// A listener that counts the connections made to it and closes each: a
/// proxy nobody should use.
fn counting_listener() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = count.clone();
    std::thread::spawn(move || {
        for connection in listener.incoming().flatten() {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            drop(connection);
        }
    });
    (address, count)
}

#[tokio::test]
async fn a_providers_requests_ignore_proxy_variables_unless_the_operator_says() {
    let (proxy, used) = counting_listener();
    let proxies = [("HTTP_PROXY", proxy.as_str()), ("HTTPS_PROXY", proxy.as_str()), ("ALL_PROXY", proxy.as_str())];
    let shop = Shop::open_with(&proxies).await;
    let r = shop.post("/api/shipments/rates", &json!({ "contactId": shop.contact, "packages": [package()] })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(r.json()["failed"].as_array().unwrap().is_empty(), "quoted directly: {}", r.text);
    assert_eq!(used.load(std::sync::atomic::Ordering::SeqCst), 0, "the proxy variables were ignored");

    let told = Shop::open_with(&[&proxies[..], &[("CRM_HTTP_PROXY_FROM_ENV", "true")]].concat()).await;
    let r = told.post("/api/shipments/rates", &json!({ "contactId": told.contact, "packages": [package()] })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(used.load(std::sync::atomic::Ordering::SeqCst) > 0, "with --http-proxy-from-env the proxy is used");
}
