//! Reading an import call: JSON `{rows: [<POST /contacts body>...], dryRun?,
//! locationMode?}` or the bare array of rows, or `text/csv` (read as
//! `crm_text_decoding` says: UTF-8, else Windows-1252; comma or semicolon
//! separated; a header row of body keys, the Spanish names a spreadsheet
//! gives them, or any words ([`Column`]); quoted fields with commas and line
//! breaks; `\n` or `\r\n`) with `dryRun` and `locationMode` in the query (as
//! for a bare array; also read, and checked, beside a JSON object, whose own
//! values win). A blank CSV cell is an absent key. At most [`MAX_ROWS`] rows.
//!
//! Rows stay text: each is handed to the contacts module as it came (a JSON
//! row) or as the object its CSV line makes, so 16 MiB of rows never become
//! a tree of values in memory.

use std::borrow::Cow;

use crm_first_party::contact_body::{Alias, KNOWN, alias, is_property_name, name_key, split_full_name};
use crm_sdk::http::{self, Error, query_first};
use crm_sdk::types::Request;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::MAX_BODY;

pub const MAX_ROWS: usize = 10_000;

/// `lenient` keeps unresolved cities as text; `strict` rejects their rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocationMode {
    Lenient,
    Strict,
}

impl LocationMode {
    fn parse(text: Option<&str>) -> Result<LocationMode, Error> {
        match text {
            None | Some("lenient") => Ok(LocationMode::Lenient),
            Some("strict") => Ok(LocationMode::Strict),
            Some(other) => Err(Error::validation(
                format!("locationMode must be lenient or strict, not {other:?}"),
                json!({ "field": "locationMode" }),
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LocationMode::Lenient => "lenient",
            LocationMode::Strict => "strict",
        }
    }
}

/// One call, read.
pub struct Call {
    /// Each row as the JSON text of a contact body, or why it is not one
    /// (that row is rejected, the others go on).
    pub rows: Vec<Result<String, String>>,
    pub dry_run: bool,
    pub mode: LocationMode,
    /// `json` or `csv`.
    pub source: &'static str,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JsonCall<'a> {
    #[serde(borrow)]
    rows: Vec<&'a RawValue>,
    #[serde(default)]
    dry_run: Option<Value>,
    #[serde(default)]
    location_mode: Option<String>,
}

/// The import `req` asks for. Its body is taken: read into rows, it is let
/// go before they are upserted (up to 16 MiB the call need not hold twice).
pub fn read(req: &mut Request) -> Result<Call, Error> {
    // The query's options are checked whatever the body; a JSON body's own win.
    let query_dry_run = match query_first(req, "dryRun") {
        None => false,
        Some("true") => true,
        Some("false") => false,
        Some(other) => return Err(not_boolean(&json!(other))),
    };
    let query_mode = LocationMode::parse(query_first(req, "locationMode"))?;
    let body = std::mem::take(&mut req.body);
    if http::media_type(req) == "text/csv" {
        return Ok(Call { rows: csv_rows(&body)?, dry_run: query_dry_run, mode: query_mode, source: "csv" });
    }
    if !http::is_json(req) {
        return Err(Error::new(
            400,
            "UNSUPPORTED_CONTENT_TYPE",
            "An import is JSON (application/json) or CSV (text/csv)",
        ));
    }
    let misfit = |e: serde_json::Error| {
        Error::validation(
            format!("The body must be {{rows: [contact body...], dryRun?, locationMode?}} or [contact body...]: {e}"),
            json!({ "field": "rows" }),
        )
    };
    // A bare array is the rows, its options in the query (as a CSV's). Read
    // as a struct, serde would take an array's items as the fields in order.
    let call: JsonCall = match crm_text_decoding::without_bom(&body).iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') => JsonCall { rows: http::parse_json_or(&body, misfit)?, dry_run: None, location_mode: None },
        _ => http::parse_json_or(&body, misfit)?,
    };
    let dry_run = match &call.dry_run {
        None | Some(Value::Null) => query_dry_run,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(not_boolean(other)),
    };
    let mode = match call.location_mode.as_deref() {
        None => query_mode,
        given => LocationMode::parse(given)?,
    };
    too_many(call.rows.len())?;
    at_least_one(call.rows.len())?;
    let rows = call
        .rows
        .iter()
        .map(|r| match r.get().trim_start().starts_with('{') {
            true => Ok(r.get().to_string()),
            false => Err("A row must be a JSON object".to_string()),
        })
        .collect();
    Ok(Call { rows, dry_run, mode, source: "json" })
}

fn not_boolean(value: &Value) -> Error {
    Error::validation(format!("dryRun must be true or false, not {value}"), json!({ "field": "dryRun" }))
}

/// An import of nothing is a mistake (an empty sheet, the wrong file), not a
/// history entry.
fn at_least_one(rows: usize) -> Result<(), Error> {
    match rows {
        0 => Err(Error::validation("The import has no rows", json!({ "field": "rows" }))),
        _ => Ok(()),
    }
}

fn too_many(rows: usize) -> Result<(), Error> {
    if rows > MAX_ROWS {
        return Err(Error::new(
            413,
            "IMPORT_TOO_LARGE",
            format!("An import has at most {MAX_ROWS} rows; this one has {rows}"),
        )
        .with("max", MAX_ROWS)
        .with("rows", rows));
    }
    Ok(())
}

/// A CSV body's text, bounded like a body ([`MAX_BODY`]): read as
/// Windows-1252 it may grow to three times its bytes, so past the bound it
/// is 413 `IMPORT_TOO_LARGE`, rather than a body that fits growing past the
/// call's memory.
fn csv_text(body: &[u8]) -> Result<Cow<'_, str>, Error> {
    crm_text_decoding::text_within(body, MAX_BODY as usize).ok_or_else(|| {
        let message = format!("A CSV file is at most {} MiB once read as UTF-8 text", MAX_BODY >> 20);
        Error::new(413, "IMPORT_TOO_LARGE", message).with("maxBytes", MAX_BODY)
    })
}

/// The data rows of a CSV file as contact bodies.
fn csv_rows(body: &[u8]) -> Result<Vec<Result<String, String>>, Error> {
    let text = csv_text(body)?;
    let delimiter = crm_text_decoding::delimiter(&text);
    let mut reader = csv::ReaderBuilder::new().delimiter(delimiter).flexible(true).from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| Error::validation(format!("The CSV header row cannot be read: {e}"), json!({ "field": "body" })))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    if headers.iter().all(String::is_empty) {
        return Err(Error::validation("The CSV needs a header row of contact keys", json!({ "field": "body" })));
    }
    let columns = headers.iter().map(|h| Column::of(h)).collect::<Result<Vec<_>, _>>()?;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record
            .map_err(|e| Error::validation(format!("The CSV cannot be read: {e}"), json!({ "field": "body" })))?;
        if record.iter().all(|cell| cell.trim().is_empty()) {
            continue; // a blank line
        }
        too_many(rows.len() + 1)?;
        if record.len() > headers.len() {
            rows.push(Err(format!("The row has {} cells; the header names {}", record.len(), headers.len())));
            continue;
        }
        let mut row = Map::new();
        for (column, cell) in columns.iter().zip(record.iter()) {
            if !cell.trim().is_empty() {
                column.fill(&mut row, cell);
            }
        }
        rows.push(Ok(Value::Object(row).to_string()));
    }
    at_least_one(rows.len())?;
    Ok(rows)
}

/// What a CSV column fills in a row's contact body. A header that is a body
/// key is that key; otherwise the names a Colombian spreadsheet uses are read
/// as the forms read them (`Correo`, `Celular`, `Ciudad`, `Departamento`, a
/// whole `Nombre`: [`alias`]); any other header is a custom property.
enum Column {
    /// A column without a header: ignored.
    Blank,
    Key(String),
    FullName,
}

impl Column {
    fn of(header: &str) -> Result<Column, Error> {
        if header.is_empty() {
            return Ok(Column::Blank);
        }
        if KNOWN.contains(&header) {
            return Ok(Column::Key(header.to_string()));
        }
        match alias(header) {
            Some(Alias::Key(key)) => Ok(Column::Key(key.to_string())),
            Some(Alias::FullName) => Ok(Column::FullName),
            None if is_property_name(header) => Ok(Column::Key(header.to_string())),
            None => {
                // A spreadsheet's own words (`Fecha de nacimiento`) name a
                // custom property as a key would (`fecha_de_nacimiento`).
                let key = name_key(header);
                match is_property_name(&key) {
                    true => Ok(Column::Key(key)),
                    false => Err(Error::validation(
                        format!("The CSV column {header:?} is not a contact key (letters, digits, _ . -, at most 64)"),
                        json!({ "field": "body", "column": header }),
                    )),
                }
            }
        }
    }

    /// Writes `cell` into `row`; the first column to fill a key keeps it.
    fn fill(&self, row: &mut Map<String, Value>, cell: &str) {
        let mut put = |key: &str, value: &str| {
            row.entry(key).or_insert_with(|| Value::String(value.to_string()));
        };
        match self {
            Column::Blank => {}
            Column::Key(key) => put(key, cell),
            Column::FullName => {
                let (first, last) = split_full_name(cell);
                put("firstName", first);
                if let Some(last) = last {
                    put("lastName", last);
                }
            }
        }
    }
}
