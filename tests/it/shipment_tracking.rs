//! Tracking that arrives by itself: the provider's webhook at the
//! organization's secret URL, and the scheduler's periodic refresh.

use std::time::Duration;

use crm_tests::shop::{self, Shop};
use crm_tests::*;

async fn label(shop: &Shop, key: &str) -> (String, String) {
    let made = shop.generate(Some(key)).await.json();
    (made["data"]["id"].as_str().unwrap().to_string(), made["data"]["trackingNumber"].as_str().unwrap().to_string())
}

#[tokio::test]
async fn the_webhook_moves_the_shipment_once_per_event_id() {
    let shop = Shop::open().await;
    let (id, tn) = label(&shop, "w-1").await;
    let url = shop.webhook_url().await;
    let (status, body) = shop.sim.send_webhook(&url, &tn, "Out for Delivery", "delivery-1").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({ "success": true, "applied": 1, "duplicates": 0, "unknown": 0, "deferred": 0 }));
    // Envia retries deliveries: the same id is applied once.
    let (status, body) = shop.sim.send_webhook(&url, &tn, "Out for Delivery", "delivery-1").await;
    assert_eq!(status, 200);
    assert_eq!(body["duplicates"], 1);
    let s = shop.get(&format!("/api/shipments/{id}")).await.json();
    assert_eq!(s["data"]["status"], "out_for_delivery");
    let events = s["data"]["events"].as_array().unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(
        events[1],
        json!({ "status": "out_for_delivery", "description": "Estado Out for Delivery", "location": "MEDELLIN", "occurredAt": "2026-11-22T14:23:05.000Z" })
    );
    let (_, body) = shop.sim.send_webhook(&url, &tn, "delivered", "delivery-2").await;
    assert_eq!(body["applied"], 1);
    assert_eq!(shop.get(&format!("/api/shipments/{id}")).await.json()["data"]["status"], "delivered");
    assert_eq!(shop.sim.calls("track"), 0, "no polling was needed");
}

#[tokio::test]
async fn bad_unknown_and_foreign_webhooks_are_refused_without_a_500() {
    let shop = Shop::open().await;
    let (id, tn) = label(&shop, "w-2").await;
    let url = shop.webhook_url().await;
    let (status, body) = shop.sim.send_webhook(&url, "0000000000", "delivered", "d-1").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["code"], "UNKNOWN_TRACKING_NUMBER");

    let post = |url: String, body: &'static str| {
        let client = shop.host.client.clone();
        async move { client.post(url).header("content-type", "application/json").body(body).send().await.unwrap() }
    };
    let r = post(url.clone(), "not json").await;
    assert_eq!(r.status(), 400);
    let r = post(url.clone(), r#"{"type":"surcharge","data":{}}"#).await;
    assert_eq!(r.status(), 400);
    let r = post(url.clone(), r#"{"type":"tracking.simple","data":{"status":"delivered"}}"#).await;
    assert_eq!(r.status(), 400);
    let r = post(format!("{}/webhooks/envia/{}", shop.host.api, "0".repeat(48)), "{}").await;
    assert_eq!(r.status(), 404, "an unknown token names no organization");
    let r = post(url.replace("/envia/", "/other/"), "{}").await;
    assert_eq!(r.status(), 404);

    // Another organization's webhook URL cannot move this organization's shipment.
    let other = Shop::on_same_host(&shop).await;
    let other_url = other.webhook_url().await;
    let (status, _) = shop.sim.send_webhook(&other_url, &tn, "delivered", "d-2").await;
    assert_eq!(status, 404);
    assert_eq!(shop.get(&format!("/api/shipments/{id}")).await.json()["data"]["status"], "created");
    assert_eq!(shop.get("/healthz").await.status, 200);
}

#[tokio::test]
async fn the_scheduler_refreshes_shipments_that_are_not_final() {
    let shop = Shop::open_with(&[("CRM_TRACKING_REFRESH_MS", "300"), ("CRM_TRACKING_REFRESH_BATCH", "10")]).await;
    let (moving, tn) = label(&shop, "s-1").await;
    let (cancelled, _) = label(&shop, "s-2").await;
    assert_eq!(shop.post(&format!("/api/shipments/{cancelled}/cancel"), &json!({})).await.status, 200);
    shop.sim.set_status(&tn, "Shipped");
    let path = format!("/api/shipments/{moving}");
    let refreshed = shop::eventually(Duration::from_secs(10), || async {
        shop.get(&path).await.json()["data"]["status"] == "in_transit"
    })
    .await;
    assert!(refreshed, "the scheduler moved the shipment without an API call");
    shop.sim.set_status(&tn, "Delivered");
    assert!(
        shop::eventually(Duration::from_secs(10), || async {
            shop.get(&path).await.json()["data"]["status"] == "delivered"
        })
        .await
    );
    // Final shipments are left alone: the track calls stop growing.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let calls = shop.sim.calls("track");
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(shop.sim.calls("track"), calls, "nothing left to refresh");
    assert_eq!(shop.get(&format!("/api/shipments/{cancelled}")).await.json()["data"]["status"], "cancelled");
}

#[tokio::test]
async fn a_shipment_keeps_its_newest_hundred_events() {
    let shop = Shop::open().await;
    let (id, tn) = label(&shop, "w-many").await;
    let url = shop.webhook_url().await;
    for n in 0..105 {
        let (status, body) = shop.sim.send_webhook(&url, &tn, &format!("Hub {n}"), &format!("d-{n}")).await;
        assert_eq!((status, body["applied"].clone()), (200, json!(1)), "{body}");
    }
    let s = shop.get(&format!("/api/shipments/{id}")).await.json();
    let events = s["data"]["events"].as_array().unwrap();
    assert_eq!(events.len(), 100);
    assert_eq!(events[0]["description"], "Estado Hub 5", "the oldest six (the label's and Hub 0-4) are dropped");
    assert_eq!(events[99]["description"], "Estado Hub 104");
    assert_eq!(s["data"]["status"], "in_transit");
}

#[tokio::test]
async fn tracking_that_arrives_during_a_cancel_never_undoes_it() {
    let shop = Shop::open_with(&[("CRM_PROVIDER_TIMEOUT_MS", "10000")]).await;
    let (id, tn) = label(&shop, "w-race").await;
    let url = shop.webhook_url().await;
    // Long enough for the tracking and the refresh below to land inside it.
    shop.sim.set_cancel_latency(Duration::from_secs(3));
    let (cancel_path, empty) = (format!("/api/shipments/{id}/cancel"), json!({}));
    let during = async {
        while shop.sim.calls("cancel") == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // While the provider cancels, the shipment has one writer: the others step aside.
        let (status, body) = shop.sim.send_webhook(&url, &tn, "In Transit", "during-cancel").await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body, json!({ "success": true, "applied": 0, "duplicates": 0, "unknown": 0, "deferred": 1 }));
        let r = shop.post(&format!("/api/shipments/{id}/track"), &json!({})).await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (409, json!("SHIPMENT_IN_PROGRESS")), "{}", r.text);
    };
    let (r, ()) = tokio::join!(shop.post(&cancel_path, &empty), during);
    assert_eq!(r.status, 200, "{}", r.text);
    let s = shop.get(&format!("/api/shipments/{id}")).await.json();
    assert_eq!(s["data"]["status"], "cancelled");
    // The deferred delivery was not marked seen: a redelivery is applied, and
    // a cancelled shipment stays cancelled.
    let (_, body) = shop.sim.send_webhook(&url, &tn, "In Transit", "during-cancel").await;
    assert_eq!(body["applied"], 1, "{body}");
    assert_eq!(shop.get(&format!("/api/shipments/{id}")).await.json()["data"]["status"], "cancelled");
}

/// A round visits `CRM_TRACKING_REFRESH_BATCH` shipments from where the
/// last one stopped, and wraps: every active shipment is reached in turn.
#[tokio::test]
async fn rounds_smaller_than_the_active_shipments_reach_each_in_turn() {
    let shop = Shop::open_with(&[("CRM_TRACKING_REFRESH_MS", "300"), ("CRM_TRACKING_REFRESH_BATCH", "3")]).await;
    let mut labels = Vec::new();
    for n in 0..7 {
        labels.push(label(&shop, &format!("r-{n}")).await);
    }
    for (_, tn) in &labels {
        shop.sim.set_status(tn, "Shipped");
    }
    let all_moved = shop::eventually(Duration::from_secs(15), || async {
        let moving = shop.get("/api/shipments?status=in_transit").await.json();
        moving["pagination"]["total"] == 7
    })
    .await;
    assert!(all_moved, "every shipment was refreshed, three a round");
}

#[tokio::test]
async fn a_round_larger_than_one_track_call_is_asked_in_batches() {
    let shop = Shop::open_with(&[("CRM_TRACKING_REFRESH_MS", "400"), ("CRM_TRACKING_REFRESH_BATCH", "200")]).await;
    shop.sim.set_balance(10_000_000.0);
    let mut labels = Vec::new();
    for n in 0..101 {
        labels.push(label(&shop, &format!("b-{n}")).await);
    }
    for (_, tn) in &labels {
        shop.sim.set_status(tn, "Shipped");
    }
    // One track call takes at most 100 numbers: the 101 go in two.
    for (id, _) in [&labels[0], &labels[100]] {
        let path = format!("/api/shipments/{id}");
        let moved = shop::eventually(Duration::from_secs(10), || async {
            shop.get(&path).await.json()["data"]["status"] == "in_transit"
        })
        .await;
        assert!(moved, "{id} was refreshed");
    }
}
