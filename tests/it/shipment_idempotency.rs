//! The idempotency rules of `POST /shipments`, one test per rule, against
//! the simulator's call counter: the provider is called exactly as often as
//! the rules say.

use std::time::Duration;

use crm_tests::envia_sim::GenerateMode;
use crm_tests::shop::{self, Shop};
use crm_tests::*;

#[tokio::test]
async fn rule_1_same_key_with_a_label_answers_reused_without_calling_and_ignores_the_body() {
    let shop = Shop::open().await;
    let first = shop.generate(Some("order-7")).await;
    assert_eq!(first.status, 201, "{}", first.text);
    let mut other_body = shop.label_body(Some("order-7"));
    other_body["carrier"] = json!("tcc");
    other_body["packages"] = json!("not even packages");
    let again = shop.post("/api/shipments", &other_body).await;
    assert_eq!(again.status, 200, "{}", again.text);
    let body = again.json();
    assert_eq!(body["success"], true);
    assert_eq!(body["reused"], true);
    assert_eq!(body["data"], first.json()["data"], "the same shipment, untouched");
    assert_eq!(shop.sim.calls("generate"), 1, "the provider was not called again");
}

#[tokio::test]
async fn rule_2_a_rejected_label_leaves_a_draft_that_the_same_key_retries() {
    let shop = Shop::open().await;
    shop.sim.set_balance(100.0);
    let r = shop.generate(Some("order-8")).await;
    assert_eq!(r.status, 422, "{}", r.text);
    let body = r.json();
    assert_eq!(body["success"], false);
    assert_eq!(body["code"], "ENVIA_GENERATE_FAILED");
    // The simulator's error came with HTTP 200 and meta "error"; only the
    // normalised error is shown, in our words, never Envia's.
    assert_eq!(
        body["error"],
        json!({ "code": "INSUFFICIENT_BALANCE", "message": "The provider account has insufficient balance" })
    );
    assert!(!r.text.contains("meta"), "the provider's raw answer never reaches the caller");
    let draft_id = body["shipmentId"].as_str().unwrap().to_string();
    let draft = shop.get(&format!("/api/shipments/{draft_id}")).await.json();
    assert_eq!(draft["data"]["status"], "draft");
    assert_eq!(draft["data"]["trackingNumber"], Value::Null);

    let again = shop.generate(Some("order-8")).await;
    assert_eq!(again.status, 422, "still rejected: {}", again.text);
    assert_eq!(again.json()["shipmentId"], draft_id.as_str(), "the same draft");
    assert_eq!(shop.sim.calls("generate"), 2, "one call per attempt");

    shop.sim.set_balance(1_000_000.0);
    let third = shop.generate(Some("order-8")).await;
    assert_eq!(third.status, 201, "{}", third.text);
    assert_eq!(third.json()["data"]["id"], draft_id.as_str(), "the draft got its label");
    assert_eq!(third.json()["data"]["status"], "created");
    let all = shop.get("/api/shipments").await.json();
    assert_eq!(all["pagination"]["total"], 1, "one shipment for one key");
}

#[tokio::test]
async fn rule_3_and_the_concurrent_case_twenty_requests_with_one_key_make_one_provider_call() {
    let shop = Shop::open().await;
    shop.sim.set_latency(Duration::ZERO, Duration::from_millis(300));
    let requests = (0..20).map(|_| shop.generate(Some("same-key")));
    let replies = futures_util::future::join_all(requests).await;
    let created: Vec<&Reply> = replies.iter().filter(|r| r.status == 201).collect();
    let in_progress = replies.iter().filter(|r| r.status == 409).collect::<Vec<_>>();
    assert_eq!(created.len(), 1, "{:?}", replies.iter().map(|r| &r.text).collect::<Vec<_>>());
    assert_eq!(created.len() + in_progress.len() + replies.iter().filter(|r| r.status == 200).count(), 20);
    for r in &in_progress {
        assert_eq!(r.json()["code"], "SHIPMENT_IN_PROGRESS", "{}", r.text);
    }
    assert!(!in_progress.is_empty(), "most requests arrived while the label was being made");
    assert_eq!(shop.sim.calls("generate"), 1, "exactly one provider call");
    assert_eq!(shop.get("/api/shipments").await.json()["pagination"]["total"], 1);
}

#[tokio::test]
async fn rule_4_an_unknown_outcome_is_needs_review_and_is_never_generated_again() {
    let shop = Shop::open().await;
    // A 502 from the carrier's back-end: the label may or may not exist.
    shop.sim.set_generate_mode(GenerateMode::ServerError);
    let r = shop.generate(Some("order-9")).await;
    assert_eq!(r.status, 409, "{}", r.text);
    let body = r.json();
    assert_eq!(body["code"], "SHIPMENT_NEEDS_REVIEW");
    assert_eq!(body["error"]["code"], "PROVIDER_UNAVAILABLE");
    let id = body["shipmentId"].as_str().unwrap().to_string();
    assert_eq!(shop.get(&format!("/api/shipments/{id}")).await.json()["data"]["status"], "needs_review");

    shop.sim.set_generate_mode(GenerateMode::Normal);
    let again = shop.generate(Some("order-9")).await;
    assert_eq!(again.status, 409);
    assert_eq!(again.json()["code"], "SHIPMENT_NEEDS_REVIEW");
    assert_eq!(again.json()["shipmentId"], id.as_str());
    assert_eq!(shop.sim.calls("generate"), 1, "never regenerated automatically");

    // A new key is a new attempt.
    assert_eq!(shop.generate(Some("order-9b")).await.status, 201);
}

#[tokio::test]
async fn rule_4_the_provider_timeout_is_needs_review() {
    let shop = Shop::open().await;
    shop.sim.set_generate_mode(GenerateMode::Stall);
    let started = std::time::Instant::now();
    let r = shop.generate(Some("order-10")).await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert_eq!(r.json()["code"], "SHIPMENT_NEEDS_REVIEW");
    assert_eq!(r.json()["error"]["code"], "PROVIDER_TIMEOUT");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(1400) && waited < Duration::from_secs(10), "{waited:?}");
    shop.sim.set_generate_mode(GenerateMode::Normal);
    assert_eq!(shop.generate(Some("order-10")).await.json()["code"], "SHIPMENT_NEEDS_REVIEW");
    assert_eq!(shop.sim.calls("generate"), 1);
}

#[tokio::test]
async fn rule_5_a_key_used_with_another_contact_is_refused() {
    let shop = Shop::open().await;
    assert_eq!(shop.generate(Some("order-11")).await.status, 201);
    let other = shop::create_contact(&shop.host, &shop.token, "otra@tienda.co").await;
    let mut body = shop.label_body(Some("order-11"));
    body["contactId"] = json!(other);
    let r = shop.post("/api/shipments", &body).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert_eq!(r.json()["code"], "IDEMPOTENCY_KEY_REUSED");
    assert_eq!(r.json()["success"], false);
    assert_eq!(shop.sim.calls("generate"), 1);
}

#[tokio::test]
async fn rule_6_after_a_cancel_the_same_key_answers_the_cancelled_shipment_and_a_new_key_ships_again() {
    let shop = Shop::open().await;
    let made = shop.generate(Some("order-12")).await.json();
    let id = made["data"]["id"].as_str().unwrap();
    assert_eq!(shop.post(&format!("/api/shipments/{id}/cancel"), &json!({})).await.status, 200);
    let again = shop.generate(Some("order-12")).await;
    assert_eq!(again.status, 200);
    assert_eq!(again.json()["reused"], true);
    assert_eq!(again.json()["data"]["status"], "cancelled");
    assert_eq!(shop.sim.calls("generate"), 1);
    assert_eq!(shop.generate(Some("order-12-retry")).await.status, 201);
    assert_eq!(shop.sim.calls("generate"), 2);
}

#[tokio::test]
async fn rule_7_without_a_key_a_second_label_for_the_contact_within_30_seconds_is_in_progress() {
    let shop = Shop::open().await;
    let first = shop.generate(None).await;
    assert_eq!(first.status, 201, "{}", first.text);
    assert_eq!(first.json()["data"]["idempotencyKey"], Value::Null);
    let second = shop.generate(None).await;
    assert_eq!(second.status, 409, "{}", second.text);
    assert_eq!(second.json()["code"], "SHIPMENT_IN_PROGRESS");
    // Another contact is not blocked.
    let other = shop::create_contact(&shop.host, &shop.token, "tercera@tienda.co").await;
    let mut body = shop.label_body(None);
    body["contactId"] = json!(other);
    assert_eq!(shop.post("/api/shipments", &body).await.status, 201);
    assert_eq!(shop.sim.calls("generate"), 2);
}

#[tokio::test]
async fn an_invalid_key_is_a_validation_error_and_a_failed_check_leaves_the_key_unused() {
    let shop = Shop::open().await;
    for key in [json!(""), json!("x".repeat(101)), json!(12)] {
        let mut body = shop.label_body(None);
        body["idempotencyKey"] = key;
        let r = shop.post("/api/shipments", &body).await;
        assert_eq!(r.status, 400, "{}", r.text);
        assert_eq!(r.json()["code"], "VALIDATION_ERROR");
    }
    assert_eq!(shop.generate(Some(&"é".repeat(100))).await.status, 201, "100 characters is allowed");
    // A destination that does not resolve does not consume the key.
    let mut body = shop.label_body(Some("order-13"));
    body["destination"] = json!({ "city": "Nowhere at all" });
    assert_eq!(shop.post("/api/shipments", &body).await.status, 422);
    assert_eq!(shop.generate(Some("order-13")).await.status, 201);
}
