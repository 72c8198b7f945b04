//! `POST /webhooks/{provider}/{token}`: tracking pushed by a provider.
//!
//! The token (from the integration) names the organization; the provider's
//! component reads the payload (and checks what it can, such as signatures);
//! the shipments module applies it, de-duplicated by the provider's event id.
//! A bad or unknown payload is refused with a 4xx and logged, never a 500
//! for the sender's mistake.

use std::sync::Arc;

use http::StatusCode;
use serde_json::json;

use crm_runtime::{CallContext, integrations};

use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;

pub fn is_webhook_path(path: &str) -> bool {
    path.starts_with("/webhooks/")
}

pub async fn receive(app: &Arc<ServerState>, req: ApiRequest) -> Response {
    receive_checked(app, req).await.unwrap_or_else(ApiError::into_response)
}

async fn receive_checked(app: &Arc<ServerState>, req: ApiRequest) -> Result<Response, ApiError> {
    let not_found = || ApiError::not_found("Webhook");
    let mut parts = req.path.trim_start_matches("/webhooks/").split('/');
    let (Some(provider), Some(token), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(not_found());
    };
    if req.method != http::Method::POST {
        return Err(ApiError::method_not_allowed(&req.method, "/webhooks/{provider}/{token}", &[http::Method::POST]));
    }
    let target = integrations::webhook_target(app.store.as_ref(), token)?.ok_or_else(not_found)?;
    if target.provider != provider {
        return Err(not_found());
    }
    let org = app.tenancy.org(&target.org)?.ok_or_else(not_found)?;
    if !org.module_enabled("shipping") {
        return Err(ApiError::plan_module_required("shipping"));
    }
    let headers: Vec<(String, String)> =
        req.headers.iter().filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string()))).collect();
    let ctx = CallContext::admin(org, &req.request_id);
    let updates = match app.runtime.parse_webhook(ctx.clone(), provider, headers, req.body.to_vec()).await {
        Ok(updates) => updates,
        Err(failure) => {
            tracing::warn!(
                provider,
                org = ctx.org.id,
                code = failure.code,
                reason = failure.message,
                "webhook refused"
            );
            return Err(ApiError::new(StatusCode::BAD_REQUEST, "WEBHOOK_REJECTED", failure.message)
                .with("reason", failure.code));
        }
    };
    let (applied, wrote) = app.runtime.apply_tracking(ctx, provider, updates).await.map_err(|e| {
        tracing::error!(provider, error = %format!("{e:#}"), "the shipments module failed to apply a webhook");
        ApiError::internal()
    })?;
    if wrote {
        app.store.durable().await?;
    }
    if applied.deferred > 0 {
        tracing::warn!(
            provider,
            org = target.org,
            deferred = applied.deferred,
            "webhook updates left to the next tracking refresh"
        );
    }
    if applied.unknown > 0 && applied.applied == 0 && applied.duplicates == 0 && applied.deferred == 0 {
        tracing::warn!(provider, org = target.org, "webhook for a tracking number this organization does not have");
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "UNKNOWN_TRACKING_NUMBER",
            "No shipment of this organization has that tracking number",
        ));
    }
    Ok(Response::json(
        StatusCode::OK,
        &json!({
            "success": true,
            "applied": applied.applied,
            "duplicates": applied.duplicates,
            "unknown": applied.unknown,
            "deferred": applied.deferred,
        }),
    ))
}
