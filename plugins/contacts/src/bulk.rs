//! `POST /admin/contacts/bulk` (on the admin API as
//! `POST /admin/orgs/{org}/contacts/bulk`): many contacts in one call, each
//! row through the same upsert as `POST /contacts` (the batch of
//! [`crate::many`]), for operators seeding or moving an organization. One
//! call, one durable flush.

use crm_sdk::http::{self, Error, json_response};
use crm_sdk::types::{Request, Response};
use serde_json::{Value, json};

use crate::{many, upsert};

/// Most rows in one call.
pub const MAX_ROWS: usize = 10_000;
/// Most refused rows described in the answer (the counts cover them all).
const MAX_REPORTED: usize = 100;

pub fn upsert_many(req: &Request) -> Result<Response, Error> {
    let body = http::json_object(req)?;
    let Some(Value::Array(rows)) = body.get("rows") else {
        return Err(Error::validation("rows must be an array of contact bodies", json!({ "field": "rows" })));
    };
    if rows.len() > MAX_ROWS {
        return Err(
            Error::new(413, "IMPORT_TOO_LARGE", format!("At most {MAX_ROWS} rows per call")).with("max", MAX_ROWS)
        );
    }
    let bodies: Vec<String> = rows.iter().map(Value::to_string).collect();
    let mut outcomes = Vec::with_capacity(bodies.len());
    many::upsert_many(&bodies, &upsert::Options::default(), &mut outcomes);
    let (mut created, mut updated, mut refused) = (0u32, 0u32, Vec::new());
    let mut refused_count = 0u32;
    for (i, outcome) in outcomes.into_iter().enumerate() {
        match outcome.status {
            201 => created += 1,
            200 => updated += 1,
            status => {
                refused_count += 1;
                if refused.len() < MAX_REPORTED {
                    refused.push(json!({
                        "row": i + 1,
                        "status": status,
                        "code": outcome.body.get("code").cloned().unwrap_or(Value::Null),
                        "message": outcome.body.get("message").or(outcome.body.get("error")).cloned().unwrap_or(Value::Null),
                    }));
                }
            }
        }
    }
    Ok(json_response(
        200,
        &json!({
            "success": true,
            "total": rows.len(),
            "created": created,
            "updated": updated,
            "refused": refused_count,
            "refusedRows": refused,
        }),
    ))
}
