//! One import: the rows, in order, through the contacts module's
//! `upsert-many` (every contact rule stays there), and what each became.
//!
//! - `lenient` (the default): a row whose city the catalog cannot confirm is
//!   written with the city as text and no codes, and listed in `warnings`
//!   (`CITY_UNCONFIRMED`, with the catalog's `status` and `candidates`);
//! - `strict`: such a row is not written; it is listed in `rejectedRows`
//!   with `CITY_UNRESOLVED` or `INVALID_CITY_CODE`.
//!
//! Any other refusal of `POST /contacts` rejects its row with the same code
//! (`VALIDATION_ERROR` where the contacts API answers plain text) and the
//! same message; the other rows go on. So does a failure of the contacts
//! module on one row (`INTERNAL_ROW_ERROR`: it trapped, a bug the host logs). A dry run writes no contact, and its
//! counts are those the same import would produce. The answer leaves once
//! every written row is durable (the host waits for the store).

use crm_sdk::http::{Error, json_response};
use crm_sdk::runtime;
use crm_sdk::types::Response;
use serde_json::{Map, Value, json};

use crate::bindings::crm::plugin::contacts::{self, UpsertOptions};
use crate::history::{self, Answer, Report};
use crate::rows::{Call, LocationMode};

pub fn run(call: Call) -> Result<Response, Error> {
    let options = UpsertOptions {
        attribution: None,
        lenient_location: call.mode == LocationMode::Lenient,
        dry_run: call.dry_run,
    };
    // The rows move into the call (no second copy of up to 16 MiB of text).
    let total = call.rows.len();
    let mut bodies = Vec::with_capacity(total);
    let refusals: Vec<Option<String>> = call
        .rows
        .into_iter()
        .map(|row| match row {
            Ok(body) => {
                bodies.push(body);
                None
            }
            Err(why) => Some(why),
        })
        .collect();
    let mut outcomes = contacts::upsert_many(&bodies, &options).into_iter();
    drop(bodies);
    let mut report = Report {
        id: runtime::new_id(),
        dry_run: call.dry_run,
        location_mode: call.mode.as_str().into(),
        source: call.source.into(),
        total,
        created: 0,
        updated: 0,
        rejected: 0,
        warnings: Vec::new(),
        rejected_rows: Vec::new(),
        created_at: runtime::now(),
    };
    for (i, refusal) in refusals.into_iter().enumerate() {
        let number = i + 1;
        let outcome = match refusal {
            Some(why) => {
                report.reject(number, json!({ "code": "VALIDATION_ERROR", "message": why, "candidates": [] }))?;
                continue;
            }
            None => outcomes.next().ok_or_else(|| Error::internal("upsert-many answered too few outcomes"))?,
        };
        let mut body: Map<String, Value> = serde_json::from_str(&outcome.body).unwrap_or_default();
        match outcome.status {
            201 | 200 => {
                if outcome.status == 201 {
                    report.created += 1;
                } else {
                    report.updated += 1;
                }
                if let Some(Value::Array(warnings)) = body.remove("warnings") {
                    for warning in warnings {
                        report.warn(number, warning)?;
                    }
                }
            }
            // A failure of the contacts module (`INTERNAL_ROW_ERROR` when it
            // trapped on this row) rejects this row alone.
            _ => report.reject(number, reason(&body))?,
        }
    }
    history::save(&report)?;
    Ok(json_response(200, &Answer { success: true, data: &report }))
}

/// Why `POST /contacts` refused a row, as a rejected row shows it.
fn reason(body: &Map<String, Value>) -> Value {
    let code = body.get("code").and_then(Value::as_str).unwrap_or("VALIDATION_ERROR");
    let message = body.get("message").or(body.get("error")).cloned().unwrap_or(Value::Null);
    let mut reason = Map::new();
    reason.insert("code".into(), code.into());
    reason.insert("message".into(), message);
    reason.insert("candidates".into(), body.get("candidates").cloned().unwrap_or(json!([])));
    for key in ["status", "field", "contactId", "limit"] {
        if let Some(v) = body.get(key) {
            reason.insert(key.into(), v.clone());
        }
    }
    Value::Object(reason)
}
