//! Past imports, dry runs included (marked), newest first:
//! `GET /import/contacts` without row details, `GET /import/contacts/{id}`
//! with its warnings and rejected rows. Each import is written in one
//! commit: its summary, its details in pages of [`PAGE`], the count.

use crm_sdk::http::{Error, json_response};
use crm_sdk::kv;
use crm_sdk::store::{self, Write};
use crm_sdk::types::{Request, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Warnings or rejected rows per stored page of details.
const PAGE: usize = 500;
const COUNT_KEY: &str = "meta/imports";

/// An import's answer, and what history shows of it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub id: String,
    pub dry_run: bool,
    pub location_mode: String,
    /// `json` or `csv`.
    pub source: String,
    pub total: usize,
    pub created: usize,
    pub updated: usize,
    pub rejected: usize,
    pub warnings: Vec<Value>,
    pub rejected_rows: Vec<Value>,
    pub created_at: String,
}

impl Report {
    pub fn reject(&mut self, row: usize, reason: Value) {
        self.rejected += 1;
        self.rejected_rows.push(json!({ "row": row, "reason": reason }));
    }

    /// The summary history lists: no row details, their counts instead.
    fn summary(&self) -> Value {
        json!({
            "id": self.id, "dryRun": self.dry_run, "locationMode": self.location_mode, "source": self.source,
            "total": self.total, "created": self.created, "updated": self.updated, "rejected": self.rejected,
            "warningCount": self.warnings.len(), "createdAt": self.created_at,
        })
    }
}

#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Details {
    warnings: Vec<Value>,
    rejected_rows: Vec<Value>,
}

fn to_bytes(value: &impl Serialize) -> Result<Vec<u8>, Error> {
    serde_json::to_vec(value).map_err(Error::internal)
}

pub fn save(report: &Report) -> Result<(), Error> {
    let mut writes = vec![
        Write::Put((format!("i/{}", report.id).into_bytes(), to_bytes(&report.summary())?)),
        Write::Add((COUNT_KEY.as_bytes().to_vec(), 1)),
    ];
    let (warnings, rejected) = (report.warnings.chunks(PAGE), report.rejected_rows.chunks(PAGE));
    let pages = warnings.len().max(rejected.len());
    let (mut warnings, mut rejected) = (warnings, rejected);
    for page in 0..pages {
        let details = Details {
            warnings: warnings.next().map(<[Value]>::to_vec).unwrap_or_default(),
            rejected_rows: rejected.next().map(<[Value]>::to_vec).unwrap_or_default(),
        };
        writes.push(Write::Put((format!("i-rows/{}/{page:05}", report.id).into_bytes(), to_bytes(&details)?)));
    }
    if !store::commit(&[], &writes)? {
        return Err(Error::internal("an unconditional commit was refused"));
    }
    Ok(())
}

pub fn list(req: &Request) -> Result<Response, Error> {
    kv::newest_first(req, "i/", COUNT_KEY)
}

pub fn get(id: &str) -> Result<Response, Error> {
    let not_found = || Error::new(404, "IMPORT_NOT_FOUND", "The import does not exist");
    if !crm_sdk::is_id(id) {
        return Err(not_found());
    }
    let mut import: Value = kv::get(&format!("i/{id}"))?.ok_or_else(not_found)?;
    let mut details = Details::default();
    for (key, bytes) in kv::scan_all(&format!("i-rows/{id}/"))? {
        let page: Details =
            serde_json::from_slice(&bytes).map_err(|e| Error::internal(format!("corrupt {key}: {e}")))?;
        details.warnings.extend(page.warnings);
        details.rejected_rows.extend(page.rejected_rows);
    }
    import["warnings"] = Value::Array(details.warnings);
    import["rejectedRows"] = Value::Array(details.rejected_rows);
    Ok(json_response(200, &json!({ "success": true, "data": import })))
}
