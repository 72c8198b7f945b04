//! The organization's webhook deliveries (the host delivers, so the host
//! serves them): `GET /api/webhooks/deliveries` newest first
//! (`automations:read`; `?status=` one status only) and
//! `POST /api/webhooks/deliveries/{id}/retry`, which sends a failed one again
//! (`automations:write`). See `crm_events`.

use crm_events::deliveries::{self, RetryRefusal};
use crm_events::records;
use crm_paging::Paging;
use http::StatusCode;
use serde_json::json;

use crate::auth::Caller;
use crate::http::router::Params;
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;

const DEFAULT_LIMIT: usize = 20;
const MAX_LIMIT: usize = 100;

pub fn list(app: &ServerState, caller: &Caller, req: &ApiRequest, _: &Params) -> Result<Response, ApiError> {
    let paging = Paging::parse(req.query_first("page"), req.query_first("limit"), DEFAULT_LIMIT, MAX_LIMIT).map_err(
        |refused| {
            let mut details = json!({ "field": refused.field });
            if let Some(max) = refused.max {
                details["max"] = json!(max);
            }
            ApiError::validation(refused.message, details)
        },
    )?;
    let status = match req.query_first("status") {
        None => None,
        Some(s @ (records::PENDING | records::DELIVERED | records::FAILED)) => Some(s),
        Some(_) => {
            let message = "status must be pending, delivered or failed";
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
