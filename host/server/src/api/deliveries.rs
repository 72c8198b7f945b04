//! The organization's webhook deliveries (the host delivers, so the host
//! serves them): `GET /api/webhooks/deliveries` newest first
//! (`automations:read`; `?status=` one status only),
//! `POST /api/webhooks/deliveries/{id}/retry`, which sends a failed one again,
//! and `POST /api/webhooks/deliveries/recover`, every failed one of a window
//! (`automations:write`). See `crm_events`.

use crm_events::deliveries::{self, RetryRefusal, Window};
use crm_events::{endpoints, records};
use crm_paging::Paging;
use crm_tenancy::clock;
use http::StatusCode;
use serde_json::json;

use crate::api::auth::Caller;
use crate::http::router::Params;
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;

const DEFAULT_LIMIT: usize = 20;
const MAX_LIMIT: usize = 100;

pub fn list(app: &ServerState, caller: &Caller, req: &ApiRequest, _: &Params) -> Result<Response, ApiError> {
    let paging = Paging::parse(req.query_first("page"), req.query_first("limit"), DEFAULT_LIMIT, MAX_LIMIT).map_err(
        |refused| {
            let details = match refused.max {
                Some(max) => json!({ "field": refused.field, "max": max }),
                None => json!({ "field": refused.field }),
            };
            ApiError::validation(refused.message, details)
        },
    )?;
    let status = match req.query_first("status") {
        None => None,
        Some(s @ (records::PENDING | records::DELIVERED | records::FAILED | endpoints::DISABLED)) => Some(s),
        Some(_) => {
            let message = "status must be pending, delivered, failed or disabled";
            return Err(ApiError::validation(message, json!({ "field": "status" })));
        }
    };
    let org = &caller.org.id;
    let total = deliveries::count(&app.outbox, org, status)?;
    let data = match paging.offset() >= total {
        true => Vec::new(),
        false => deliveries::page(&app.outbox, org, status, paging.offset(), paging.limit)?,
    };
    let (page, limit, pages) = (paging.page, paging.limit, paging.pages(total));
    let pagination = json!({ "total": total, "page": page, "limit": limit, "pages": pages });
    Ok(Response::json(StatusCode::OK, &json!({ "success": true, "data": data, "pagination": pagination })))
}

pub fn retry(app: &ServerState, caller: &Caller, _: &ApiRequest, params: &Params) -> Result<Response, ApiError> {
    let id = params.iter().find(|(k, _)| k == "id").map_or("", |(_, v)| v.as_str());
    match deliveries::retry(&app.outbox, &caller.org.id, id)? {
        Ok(delivery) => Ok(Response::json(StatusCode::OK, &json!({ "success": true, "data": delivery }))),
        Err(RetryRefusal::NotFound) => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "DELIVERY_NOT_FOUND",
            "The delivery does not exist in this organization",
        )),
        Err(RetryRefusal::NotFailed(status)) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "DELIVERY_NOT_FAILED",
            format!("Only a failed delivery is sent again; this one is {status}"),
        )
        .with("status", status)),
    }
}

/// `{since, until?, url?}`: every failed delivery created in `[since,
/// until)` (to `url`, when given) sent again with its event's id; answers
/// `{queued, more}` (`more`: the window held more than one call sends, see
/// `deliveries::MAX_RECOVERED`).
pub fn recover(app: &ServerState, caller: &Caller, req: &ApiRequest, _: &Params) -> Result<Response, ApiError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Body {
        since: String,
        until: Option<String>,
        url: Option<String>,
    }
    let body: Body = req.json()?;
    let time = |field: &str, text: &str| {
        clock::parse(text)
            .ok_or_else(|| ApiError::validation(format!("{field} must be an RFC 3339 time"), json!({ "field": field })))
    };
    let since = time("since", &body.since)?;
    let until = body.until.as_deref().map(|u| time("until", u)).transpose()?;
    if until.is_some_and(|until| until <= since) {
        return Err(ApiError::validation("until must come after since", json!({ "field": "until" })));
    }
    let window = Window { since, until, url: body.url.as_deref() };
    let recovered = deliveries::recover(&app.outbox, &caller.org.id, &window)?;
    let data = json!({ "queued": recovered.queued, "more": recovered.more });
    Ok(Response::json(StatusCode::OK, &json!({ "success": true, "data": data })))
}
