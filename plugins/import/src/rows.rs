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

/// Property tests on hostile text ([`crm_hostile_text`]): any import body,
/// CSV in UTF-8 or Windows-1252 or JSON, with any options, is rows of
/// contact bodies or a refusal with a 4xx and a code.
#[cfg(test)]
mod properties {
    use super::*;
    use crm_hostile_text::{around, config, text};
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::sample::select;

    fn header() -> impl Strategy<Value = String> {
        let known = select(vec![
            "email",
            "Correo",
            "Celular",
            "Nombre",
            "Nombre completo",
            "Apellidos",
            "Ciudad",
            "Departamento",
            "cityCode",
            "Fecha de nacimiento",
            "plan",
            "",
            "tags",
        ])
        .prop_map(String::from);
        prop_oneof![4 => known.clone(), 2 => around(known), 1 => text(20)]
    }

    fn cell() -> impl Strategy<Value = String> {
        let known = select(vec![
            "ana@example.com",
            "300 123 4567",
            "Ana María Gómez",
            "Bogotá D.C.",
            "05001",
            "a,b",
            "\"x\"",
            "",
        ])
        .prop_map(String::from);
        prop_oneof![3 => known.clone(), 3 => around(known), 2 => text(30)]
    }

    /// A CSV as a spreadsheet saves it: a header and rows, `,` or `;`,
    /// fields quoted or not, UTF-8 (with or without a BOM) or Windows-1252.
    fn csv() -> impl Strategy<Value = Vec<u8>> {
        let rows = (vec(header(), 1..8), vec(vec(cell(), 0..10), 0..12));
        (rows, select(vec![",", ";"]), select(vec!["\n", "\r\n"]), any::<bool>(), 0..3u8).prop_map(
            |((header, rows), delimiter, newline, quoted, encoding)| {
                let field = |f: &String| if quoted { format!("\"{}\"", f.replace('"', "\"\"")) } else { f.clone() };
                let line = |fields: &Vec<String>| fields.iter().map(field).collect::<Vec<_>>().join(delimiter);
                let text = std::iter::once(&header).chain(&rows).map(line).collect::<Vec<_>>().join(newline);
                match encoding {
                    0 => text.into_bytes(),
                    1 => [crm_text_decoding::BOM, text.as_bytes()].concat(),
                    // Windows-1252 as Latin-1 writes it; the rest as `?`.
                    _ => text.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect(),
                }
            },
        )
    }

    fn row() -> impl Strategy<Value = Value> {
        prop_oneof![
            4 => vec((header(), cell()), 0..6).prop_map(|fields| Value::Object(fields.into_iter().map(|(k, v)| (k, Value::String(v))).collect())),
            1 => cell().prop_map(Value::String),
            1 => Just(Value::Null),
            1 => Just(json!([1, 2])),
        ]
    }

    fn json_body() -> impl Strategy<Value = Vec<u8>> {
        let options = (
            proptest::option::of(prop_oneof![
                any::<bool>().prop_map(Value::Bool),
                cell().prop_map(Value::String),
                Just(Value::Null)
            ]),
            proptest::option::of(prop_oneof![select(vec!["lenient", "strict"]).prop_map(String::from), text(10)]),
        );
        prop_oneof![
            (vec(row(), 0..8), options).prop_map(|(rows, (dry_run, mode))| {
                let mut call = Map::new();
                call.insert("rows".into(), Value::Array(rows));
                dry_run.map(|d| call.insert("dryRun".into(), d));
                mode.map(|m| call.insert("locationMode".into(), Value::String(m)));
                serde_json::to_vec(&call).unwrap_or_default()
            }),
            vec(row(), 0..8).prop_map(|rows| serde_json::to_vec(&rows).unwrap_or_default()),
            around(Just("{\"rows\": [{\"email\": \"a@b.co\"}], \"extra\": 1}".to_string()))
                .prop_map(String::into_bytes),
        ]
    }

    fn request() -> impl Strategy<Value = Request> {
        let body = prop_oneof![
            csv().prop_map(|b| ("text/csv; charset=utf-8", b)),
            json_body().prop_map(|b| ("application/json", b)),
            vec(any::<u8>(), 0..300).prop_map(|b| ("text/csv", b)),
            vec(any::<u8>(), 0..300).prop_map(|b| ("application/json", b)),
            Just(("text/plain", b"email\na@b.co".to_vec())),
        ];
        let option =
            |known: Vec<&'static str>| proptest::option::of(prop_oneof![select(known).prop_map(String::from), text(8)]);
        (body, option(vec!["true", "false", "TRUE", "1"]), option(vec!["lenient", "strict", "Strict"])).prop_map(
            |((content_type, body), dry_run, mode)| {
                let query = [("dryRun", dry_run), ("locationMode", mode)]
                    .into_iter()
                    .filter_map(|(k, v)| Some((k.to_string(), v?)))
                    .collect();
                let headers = vec![("content-type".to_string(), content_type.to_string())];
                Request {
                    method: "POST".into(),
                    path: "/contacts/import".into(),
                    path_params: vec![],
                    query,
                    headers,
                    body,
                }
            },
        )
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn an_import_is_rows_of_contact_bodies_or_a_refusal_with_a_code(mut req in request()) {
            let call = match read(&mut req) {
                Err(e) => {
                    prop_assert!((400..500).contains(&e.status), "{e:?}");
                    prop_assert!(e.body.get("code").and_then(Value::as_str).is_some_and(|c| !c.is_empty()), "{e:?}");
                    return Ok(());
                }
                Ok(call) => call,
            };
            prop_assert!((1..=MAX_ROWS).contains(&call.rows.len()));
            for row in call.rows.iter().flatten() {
                let body: Value = serde_json::from_str(row).unwrap_or_default();
                prop_assert!(body.is_object(), "{row:?}");
                if call.source == "csv" {
                    let keys = body.as_object().into_iter().flat_map(|b| b.keys());
                    for key in keys {
                        prop_assert!(KNOWN.contains(&key.as_str()) || is_property_name(key), "{key:?}");
                    }
                }
            }
        }
    }
}
