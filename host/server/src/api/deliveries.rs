//! The organization's webhook deliveries (the host delivers, so the host
//! serves them): `GET /api/webhooks/deliveries` newest first
//! (`automations:read`) and `POST /api/webhooks/deliveries/{id}/retry`, which
//! sends a failed one again (`automations:write`). See `crm_events`.

use crm_events::deliveries::{self, RetryRefusal};
use http::StatusCode;
use serde_json::json;

use crate::app::App;
use crate::auth::Caller;
use crate::http::router::Params;
use crate::http::{ApiError, ApiRequest, Response};

/// Largest `page` (as every list of the API: a JSON-safe integer).
const MAX_PAGE: u64 = (1 << 53) - 1;
const DEFAULT_LIMIT: u64 = 20;
const MAX_LIMIT: u64 = 100;

/// `page` or `limit` as a whole number (a sign allowed), `None` when absent.
fn whole_number(req: &ApiRequest, name: &str) -> Result<Option<i128>, ApiError> {
    let Some(text) = req.query_first(name).map(str::trim) else { return Ok(None) };
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::validation(format!("{name} must be a whole number"), json!({ "field": name })));
    }
    let magnitude = digits.parse::<i128>().unwrap_or(i128::MAX);
    Ok(Some(if text.starts_with('-') { -magnitude } else { magnitude }))
}

pub fn list(app: &App, caller: &Caller, req: &ApiRequest, _: &Params) -> Result<Response, ApiError> {
    let page = match whole_number(req, "page")? {
        Some(p) if p > MAX_PAGE as i128 => {
            return Err(ApiError::validation(
                format!("page must be a whole number from 1 to {MAX_PAGE}"),
                json!({ "field": "page", "max": MAX_PAGE }),
            ));
        }
        Some(p) if p >= 1 => p as u64,
        _ => 1,
    };
    let limit = whole_number(req, "limit")?.map_or(DEFAULT_LIMIT, |l| l.clamp(1, MAX_LIMIT as i128) as u64);
    let org = &caller.org.id;
    let total = deliveries::count(&app.outbox, org)?;
    let offset = (page - 1).saturating_mul(limit);
    let data = match offset >= total {
        true => Vec::new(),
        false => deliveries::page(&app.outbox, org, offset, limit as usize)?,
    };
    let pagination = json!({ "total": total, "page": page, "limit": limit, "pages": total.div_ceil(limit) });
    Ok(Response::json(StatusCode::OK, &json!({ "success": true, "data": data, "pagination": pagination })))
}

pub fn retry(app: &App, caller: &Caller, _: &ApiRequest, params: &Params) -> Result<Response, ApiError> {
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
