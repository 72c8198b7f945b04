//! Pipelines through the real host: every organization's two defaults, the
//! ones the app creates, conversations moved between stages, and a stage's
//! webhook called (signed) when a conversation enters it.

use std::time::Duration;

use crm_tests::receiver::Receiver;
use crm_tests::*;

async fn pipelines(host: &Host, token: &str, query: &str) -> Vec<Value> {
    let r = host.get(&format!("/api/pipelines{query}"), token).await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.json()["data"].as_array().unwrap().clone()
}

pub(crate) async fn create_pipeline(host: &Host, org: &str, body: Value) -> Reply {
    host.admin(Method::POST, &format!("/admin/orgs/{org}/pipelines"), Some(&body)).await
}

pub(crate) async fn conversation(host: &Host, org: &str) -> String {
    let r = host
        .admin(
            Method::POST,
            &format!("/admin/orgs/{org}/conversations"),
            Some(&json!({ "channel": "whatsapp", "name": "Ana" })),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    r.json()["id"].as_str().unwrap().to_string()
}

pub(crate) async fn move_to(host: &Host, token: &str, conversation: &str, pipeline: &Value, stage: &Value) -> Reply {
    let body = json!({ "pipelineId": pipeline, "stageId": stage });
    host.call(Method::PUT, &format!("/api/conversations/{conversation}/stage"), Some(token), Some(&body)).await
}

fn field(r: &Reply) -> (u16, Value, Value) {
    (r.status.as_u16(), r.json()["code"].clone(), r.json()["details"]["field"].clone())
}

#[tokio::test]
async fn every_organization_has_default_pipelines_and_the_app_creates_more() {
    let host = Host::start().await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;

    let all = pipelines(&host, &token, "").await;
    assert_eq!(all.len(), 2, "{all:?}");
    let deals = pipelines(&host, &token, "?kind=deals").await;
    assert_eq!(deals.len(), 1);
    let stages: Vec<&str> =
        deals[0]["stages"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(stages, ["new", "qualified", "proposal", "won", "lost"]);
    assert_eq!(deals[0]["isDefault"], true);
    let conversations = pipelines(&host, &token, "?kind=conversations").await;
    assert_eq!(conversations[0]["stages"].as_array().unwrap().len(), 3);
    assert_eq!(pipelines(&host, &token, "").await, all, "the defaults are the same on every read");

    // A deal opened by a form is in the default deal pipeline.
    let deal = shop::open_deal(&host, &org, &token, "ana@acme.co").await;
    let deal = host.get(&format!("/api/deals/{deal}"), &token).await;
    assert_eq!(deal.json()["data"]["pipelineId"], deals[0]["id"]);

    // The app creates one; stages get ids; the API lists it after the defaults.
    let r = create_pipeline(
        &host,
        &org,
        json!({ "kind": "conversations", "name": "Soporte",
        "stages": [{ "name": "Recibido" }, { "name": "Escalado", "webhookUrl": "https://8.8.8.8/escalado",
            "webhookMaxPerSecond": 5, "webhookOrdered": true }] }),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let created = r.json();
    assert_eq!(
        (&created["kind"], &created["name"], &created["isDefault"]),
        (&json!("conversations"), &json!("Soporte"), &json!(false))
    );
    assert_eq!(created["stages"][1]["webhookUrl"], "https://8.8.8.8/escalado");
    assert_eq!(
        (&created["stages"][1]["webhookMaxPerSecond"], &created["stages"][1]["webhookOrdered"]),
        (&json!(5), &json!(true))
    );
    assert_eq!(created["stages"][0]["webhookUrl"], Value::Null);
    assert_ne!(created["stages"][0]["id"], created["stages"][1]["id"]);
    let listed = pipelines(&host, &token, "?kind=conversations").await;
    assert_eq!((listed.len(), &listed[1]), (2, &created));
    // The lists' one shape: pages of up to 100, all of them in the first by default.
    let r = host.get("/api/pipelines", &token).await;
    assert_eq!(r.json()["pagination"], json!({ "total": 3, "page": 1, "limit": 100, "pages": 1 }));
    let r = host.get("/api/pipelines?limit=2&page=2", &token).await;
    assert_eq!(r.json()["data"], json!([created]));
    assert_eq!(r.json()["pagination"], json!({ "total": 3, "page": 2, "limit": 2, "pages": 2 }));
    let id = created["id"].as_str().unwrap();
    assert_eq!(host.get(&format!("/api/pipelines/{id}"), &token).await.json()["data"], created);

    // Organizations and permissions.
    let (_, other) = host.org_with_token(json!({ "name": "Otra" })).await;
    let r = host.get(&format!("/api/pipelines/{id}"), &other).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("PIPELINE_NOT_FOUND")));
    assert_eq!(pipelines(&host, &other, "").await.len(), 2);
    assert_ne!(pipelines(&host, &other, "?kind=deals").await[0]["id"], deals[0]["id"], "each organization has its own");
    let reader = host.create_token(&org, &["contacts:read"]).await;
    let r = host.get("/api/pipelines", &reader).await;
    assert_eq!((r.status.as_u16(), r.json()["requiredPermission"].clone()), (403, json!("pipelines:read")));
    for kind in ["leads", "", "Deals"] {
        let r = host.get(&format!("/api/pipelines?kind={kind}"), &token).await;
        assert_eq!(field(&r), (400, json!("VALIDATION_ERROR"), json!("kind")), "{kind:?}");
        assert_eq!(r.json()["message"], "kind must be deals or conversations");
    }

    // What a body may not say.
    for (body, expected) in [
        (json!({ "kind": "leads", "name": "x", "stages": [{ "name": "a" }] }), "kind"),
        (json!({ "kind": "deals", "name": "", "stages": [{ "name": "a" }] }), "name"),
        (json!({ "kind": "deals", "name": "x", "stages": [] }), "stages"),
        (json!({ "kind": "deals", "name": "x", "stages": [{ "name": "a" }, { "name": "A" }] }), "stages"),
        (
            json!({ "kind": "deals", "name": "x", "stages": [{ "name": "a", "webhookUrl": "https://8.8.8.8/" }] }),
            "stages[0].webhookUrl",
        ),
        (json!({ "kind": "deals", "name": "x", "stages": [{ "name": "a", "color": "red" }] }), "stages[0].color"),
        (
            json!({ "kind": "conversations", "name": "x", "stages": [{ "name": "a", "webhookOrdered": true }] }),
            "stages[0].webhookUrl",
        ),
        (
            json!({ "kind": "conversations", "name": "x",
                "stages": [{ "name": "a", "webhookUrl": "https://8.8.8.8/", "webhookMaxPerSecond": 1001 }] }),
            "stages[0].webhookMaxPerSecond",
        ),
        (json!({ "kind": "deals", "name": "x", "stages": [{ "name": "a" }], "id": "x" }), "id"),
    ] {
        let r = create_pipeline(&host, &org, body.clone()).await;
        assert_eq!(field(&r), (400, json!("VALIDATION_ERROR"), json!(expected)), "{body}");
    }
    let r = create_pipeline(
        &host,
        &org,
        json!({ "kind": "conversations", "name": "x",
        "stages": [{ "name": "a", "webhookUrl": "https://127.0.0.1/hook" }] }),
    )
    .await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("WEBHOOK_URL_NOT_ALLOWED")));
    assert_eq!(pipelines(&host, &token, "").await.len(), 3, "nothing refused was written");
}

#[tokio::test]
async fn a_conversation_entering_a_stage_with_a_webhook_calls_it_once_signed() {
    let receiver = Receiver::start().await;
    let host = Host::start_with(&[("CRM_WEBHOOK_ALLOW_PRIVATE", "true")]).await;
    let (org, token) = host.org_with_token(json!({ "name": "Acme" })).await;
    let r = create_pipeline(
        &host,
        &org,
        json!({ "kind": "conversations", "name": "Soporte", "stages": [
        { "name": "Recibido" },
        { "name": "Escalado", "webhookUrl": format!("{}/escalado", receiver.url) },
        { "name": "Cerrado", "webhookUrl": format!("{}/cerrado", receiver.url) },
    ] }),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let pipeline = r.json();
    let (pid, stages) = (pipeline["id"].clone(), pipeline["stages"].as_array().unwrap().clone());
    let conv = conversation(&host, &org).await;

    let r = move_to(&host, &token, &conv, &pid, &stages[0]["id"]).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!((&r.json()["data"]["stageId"], &r.json()["data"]["stageName"]), (&stages[0]["id"], &json!("Recibido")));
    let r = move_to(&host, &token, &conv, &pid, &stages[1]["id"]).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(receiver.wait_for("/escalado", 1, Duration::from_secs(10)).await, "the stage's webhook was called");
    // The same stage again is no move.
    assert_eq!(move_to(&host, &token, &conv, &pid, &stages[1]["id"]).await.status, 200);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.received().len(), 1, "only the stage with a webhook, once");

    let call = &receiver.received_at("/escalado")[0];
    let event = call.json();
    assert_eq!((&event["type"], &event["organizationId"]), (&json!("conversation.stage_entered"), &json!(org)));
    assert_eq!(call.header("webhook-id"), event["id"].as_str().unwrap());
    let data = &event["data"];
    assert_eq!((&data["id"], &data["channel"], &data["pipelineId"]), (&json!(conv), &json!("whatsapp"), &pid));
    assert_eq!(
        (&data["fromStage"], &data["toStage"], &data["stageName"]),
        (&stages[0]["id"], &stages[1]["id"], &json!("Escalado"))
    );
    let secret =
        host.admin(Method::GET, &format!("/admin/orgs/{org}/webhook-secret"), None).await.json()["secret"].clone();
    assert!(call.signed_with(secret.as_str().unwrap()));

    let r = host.get(&format!("/api/conversations/{conv}/stage"), &token).await;
    assert_eq!((&r.json()["data"]["pipelineId"], &r.json()["data"]["stageId"]), (&pid, &stages[1]["id"]));

    // What a move may not name.
    let defaults = pipelines(&host, &token, "").await;
    let deal_pipeline = defaults.iter().find(|p| p["kind"] == "deals").unwrap();
    let default_conversations =
        defaults.iter().find(|p| p["kind"] == "conversations" && p["isDefault"] == true).unwrap();
    for (pipeline, stage, expected) in [
        (json!("0123456789abcdef01234567"), stages[0]["id"].clone(), "pipelineId"),
        (deal_pipeline["id"].clone(), deal_pipeline["stages"][0]["id"].clone(), "pipelineId"),
        (pid.clone(), default_conversations["stages"][0]["id"].clone(), "stageId"),
        (json!(12), stages[0]["id"].clone(), "pipelineId"),
    ] {
        let r = move_to(&host, &token, &conv, &pipeline, &stage).await;
        assert_eq!(field(&r), (400, json!("VALIDATION_ERROR"), json!(expected)), "{pipeline} {stage}");
    }
    // Into the default conversation pipeline: a move of pipeline, no webhook there.
    let r =
        move_to(&host, &token, &conv, &default_conversations["id"], &default_conversations["stages"][2]["id"]).await;
    assert_eq!(r.status, 200, "{}", r.text);

    // Another organization's conversation is not found, its pipeline not known.
    let (other_org, other) = host.org_with_token(json!({ "name": "Otra" })).await;
    let r = move_to(&host, &other, &conv, &pid, &stages[2]["id"]).await;
    assert_eq!(field(&r).0, 400, "the pipeline is checked first: not one of this organization");
    let theirs = conversation(&host, &other_org).await;
    let r = move_to(&host, &token, &theirs, &pid, &stages[2]["id"]).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("CONVERSATION_NOT_FOUND")));
    let writer = host.create_token(&org, &["conversations:read"]).await;
    let r = move_to(&host, &writer, &conv, &pid, &stages[2]["id"]).await;
    assert_eq!((r.status.as_u16(), r.json()["requiredPermission"].clone()), (403, json!("conversations:write")));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(receiver.received_at("/cerrado").is_empty(), "no refused move was made");
}
