//! When the delivery worker disables a webhook endpoint (every attempt
//! failed for `CRM_WEBHOOK_DISABLE_AFTER_SECS`), the organization's team is
//! told where it already reads about its leads: a notification, left
//! through the forms module (`POST /admin/orgs/{org}/notifications`). The
//! worker sends the `webhook.endpoint_disabled` event itself.

use std::sync::Arc;
use std::time::Duration;

use crm_events::endpoints::{Endpoint, Health};
use http::{Method, StatusCode};
use serde_json::json;

use crate::admin::Admin;
use crate::state::ServerState;

/// What the worker needs of endpoint health, with the notification as its
/// `on_disabled`.
pub fn health(app: &Arc<ServerState>, admin: &Arc<Admin>) -> Health {
    let (app, admin) = (app.clone(), admin.clone());
    Health {
        disable_after: Duration::from_secs(app.config.jobs.webhook_disable_after_secs),
        on_disabled: Arc::new(move |org: &str, endpoint: &Endpoint| {
            let (app, admin, org) = (app.clone(), admin.clone(), org.to_string());
            let body = json!({
                "type": "webhook_endpoint_disabled",
                "message": format!(
                    "Webhooks to {} are paused: every attempt since {} failed (last: {}). Save the automation again to resume them.",
                    endpoint.url,
                    endpoint.failing_since,
                    endpoint.last_error.as_deref().unwrap_or("no answer"),
                ),
                "url": endpoint.url,
            });
            tokio::spawn(async move {
                let call = (org.as_str(), Method::POST, "/notifications");
                match admin.call_module(&app, call, &body).await {
                    Ok(r) if r.status == StatusCode::CREATED => {}
                    Ok(r) => {
                        tracing::warn!(org, status = %r.status, "the disabled endpoint's notification was refused")
                    }
                    Err(e) => tracing::warn!(org, code = e.code(), "the disabled endpoint's notification was not left"),
                }
            });
        }),
    }
}
