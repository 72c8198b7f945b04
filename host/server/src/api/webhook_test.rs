//! `POST /api/webhooks/test` (`automations:write`): `{url, type?}` sends a
//! signed sample of an event type (default `contact.created`) to `url` now,
//! under the address rules of any webhook, and answers what the receiver
//! did: `{status, latencyMs, body}` (`status` null and an `error` when no
//! answer came). The sample is the OpenAPI document's example of that
//! type's body. See `crm_events::test_send`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crm_events::test_send;
use http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::api::auth::Caller;
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;

const DEFAULT_TYPE: &str = "contact.created";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    url: String,
    #[serde(rename = "type")]
    event_type: Option<String>,
}

pub fn send(
    app: Arc<ServerState>,
    caller: Caller,
    req: ApiRequest,
) -> Pin<Box<dyn Future<Output = Result<Response, ApiError>> + Send>> {
    Box::pin(async move {
        let body: Body = req.json()?;
        let event_type = body.event_type.as_deref().unwrap_or(DEFAULT_TYPE);
        let sample = sample_of(event_type).ok_or_else(|| {
            let types: Vec<&String> =
                super::openapi::document()["webhooks"].as_object().into_iter().flatten().map(|(t, _)| t).collect();
            ApiError::validation(format!("type must be one of the event types: {types:?}"), json!({ "field": "type" }))
        })?;
        if let Err(reason) = app.outbox.policy().check(&body.url).await {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "WEBHOOK_URL_NOT_ALLOWED",
                format!("url is not allowed: {reason}"),
            )
            .with("details", json!({ "field": "url", "reason": reason })));
        }
        let to = (caller.org.id.as_str(), body.url.as_str());
        let sent = test_send::send(&app.webhook_sender, &app.tenancy, to, event_type, sample).await?;
        let mut data = serde_json::Map::new();
        data.insert("status".into(), json!(sent.status));
        data.insert("latencyMs".into(), json!(u64::try_from(sent.latency.as_millis()).unwrap_or(u64::MAX)));
        data.insert("body".into(), json!(sent.body));
        if let Some(error) = sent.error {
            data.insert("error".into(), json!(error));
        }
        Ok(Response::json(StatusCode::OK, &json!({ "success": true, "data": data })))
    })
}

/// The document's example `data` of an event type's body.
fn sample_of(event_type: &str) -> Option<&'static Value> {
    let hook = super::openapi::document().get("webhooks")?.get(event_type)?;
    hook.pointer("/post/requestBody/content/application~1json/example/data")
}
