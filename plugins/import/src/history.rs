//! Past imports, dry runs included (marked), newest first:
//! `GET /import/contacts` without row details, `GET /import/contacts/{id}`
//! with its warnings and rejected rows. Each import is written in one
//! commit: its summary, its details in pages of [`PAGE`], the count.

use crm_sdk::http::{Error, json_response};
use crm_sdk::kv;
use crm_sdk::store::{self, Write};
use crm_sdk::types::{Request, Response};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// Warnings or rejected rows per stored page of details.
const PAGE: usize = 500;
const COUNT_KEY: &str = "meta/imports";

/// A row's detail (a warning or a rejected row) as JSON text: 10,000 of
/// them, each with its city's candidates, held as values would outgrow the
/// component's memory.
type Detail = Box<RawValue>;

/// An import's answer, and what history shows of it.
#[derive(Debug, Serialize)]
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
    pub warnings: Vec<Detail>,
    pub rejected_rows: Vec<Detail>,
    pub created_at: String,
}

impl Report {
    pub fn reject(&mut self, row: usize, reason: Value) -> Result<(), Error> {
        self.rejected += 1;
        self.rejected_rows.push(detail(&json!({ "row": row, "reason": reason }))?);
        Ok(())
    }

    /// A warning of the contacts module, for row `row`.
    pub fn warn(&mut self, row: usize, warning: Value) -> Result<(), Error> {
        let warning = match warning {
            Value::Object(mut fields) => {
                fields.insert("row".into(), json!(row));
                Value::Object(fields)
            }
            other => json!({ "row": row, "warning": other }),
        };
        self.warnings.push(detail(&warning)?);
        Ok(())
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

fn detail(value: &Value) -> Result<Detail, Error> {
    serde_json::value::to_raw_value(value).map_err(Error::internal)
}

/// One stored page of an import's details, as written.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Page<'a> {
    warnings: &'a [Detail],
    rejected_rows: &'a [Detail],
}

/// Every page of an import's details, as read back.
#[derive(Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct Details {
    warnings: Vec<Detail>,
    rejected_rows: Vec<Detail>,
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
        let details =
            Page { warnings: warnings.next().unwrap_or_default(), rejected_rows: rejected.next().unwrap_or_default() };
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
    let summary: Value = kv::get(&format!("i/{id}"))?.ok_or_else(not_found)?;
    let mut details = Details::default();
    for (key, bytes) in kv::scan_all(&format!("i-rows/{id}/"))? {
        let page: Details =
            serde_json::from_slice(&bytes).map_err(|e| Error::internal(format!("corrupt {key}: {e}")))?;
        details.warnings.extend(page.warnings);
        details.rejected_rows.extend(page.rejected_rows);
    }
    Ok(json_response(200, &Answer { success: true, data: Full { summary, details } }))
}

/// A successful answer around `data`, serialised as it is: `json!` would
/// first make the details' JSON text values again.
#[derive(Serialize)]
pub struct Answer<T> {
    pub success: bool,
    pub data: T,
}

/// `GET /import/contacts/{id}`: the summary with every detail beside it.
#[derive(Serialize)]
struct Full {
    #[serde(flatten)]
    summary: Value,
    #[serde(flatten)]
    details: Details,
}
