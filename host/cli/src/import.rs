//! `crm-host import contacts FILE.csv --url ... --token ...`: a client of
//! `POST /api/import/contacts` for the file a user actually has.
//!
//! The file, of any size, is read as CSV (as `crm_text_decoding` says: UTF-8, else
//! Windows-1252; comma or semicolon; quoted fields with line breaks) and sent
//! in calls of at most
//! `--batch` rows (10,000, the API's limit) and 15 MiB, each with the header.
//! A call that fails on the way (no answer, 429, 5xx) is sent again: an
//! import is safe to repeat, rows with an email or mobile update. A progress
//! bar shows rows done, rows per second and time left; the summary counts
//! created, updated, warnings and rejected rows, and the rejected rows are
//! written to `<file>.rejected.csv` beside the input (UTF-8 with a
//! byte-order mark), with the row number, the code and the message before
//! the row's own cells.

use std::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;

use crate::console::{print_answer, print_note};

#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    what: ImportCommand,
}

#[derive(Debug, Subcommand)]
enum ImportCommand {
    /// Contacts from a CSV file whose header row names contact keys.
    Contacts(ContactsImport),
}

#[derive(Debug, Args)]
struct ContactsImport {
    /// The CSV file.
    file: PathBuf,
    /// Base URL of the host's API.
    #[arg(long, env = "CRM_API_URL", default_value = "http://127.0.0.1:8080")]
    url: String,
    /// An API token with `contacts:write`.
    #[arg(long, env = "CRM_API_TOKEN")]
    token: String,
    /// Check every row and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Refuse rows whose city does not resolve (default: keep it as text).
    #[arg(long)]
    strict: bool,
    /// Rows per call.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    batch: u32,
}

/// Bytes of rows per call, under the API's 16 MiB.
const MAX_CALL_BYTES: usize = 15 << 20;
const TRIES: u32 = 5;

pub async fn run(args: ImportArgs) -> Result<(), Box<dyn Error>> {
    let ImportCommand::Contacts(args) = args.what;
    let bytes = std::fs::read(&args.file).map_err(|e| format!("cannot read {}: {e}", args.file.display()))?;
    // Read as the import module reads a CSV body, and sent as UTF-8 text.
    let text = crm_text_decoding::text(&bytes);
    let delimiter = crm_text_decoding::delimiter(&text);
    let text = text.as_bytes();
    let reader = || csv::ReaderBuilder::new().delimiter(delimiter).flexible(true).from_reader(text);
    // Blank lines are not rows, here as in the API.
    let is_row =
        |r: &Result<csv::StringRecord, csv::Error>| r.as_ref().map_or(true, |r| r.iter().any(|c| !c.trim().is_empty()));
    let total = reader().records().filter(is_row).count() as u64;
    let mut records = reader();
    let header = records.headers()?.clone();

    let progress = ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} rows  {per_sec}  {eta} left").expect("a valid template"),
    );
    let client = reqwest::Client::builder().timeout(Duration::from_secs(300)).build()?;
    let endpoint = format!(
        "{}/api/import/contacts?dryRun={}&locationMode={}",
        args.url.trim_end_matches('/'),
        args.dry_run,
        if args.strict { "strict" } else { "lenient" }
    );
    let mut summary = Summary::default();
    // UTF-8 with a byte-order mark, so that Excel opens it with its accents.
    let mut rejected_file = std::fs::File::create(rejected_path(&args.file))?;
    rejected_file.write_all(crm_text_decoding::BOM)?;
    let mut rejected = csv::WriterBuilder::new().delimiter(delimiter).from_writer(rejected_file);
    rejected.write_record(["row", "code", "message"].iter().copied().chain(header.iter()))?;
    let (mut chunk, mut bytes, mut done) = (Vec::new(), 0usize, 0u64);
    let mut rows = records.records().filter(is_row).peekable();
    while let Some(record) = rows.next() {
        let record = record?;
        bytes += record.as_slice().len() + record.len();
        chunk.push(record);
        if chunk.len() < args.batch as usize && bytes < MAX_CALL_BYTES && rows.peek().is_some() {
            continue;
        }
        let answer = send(&client, &endpoint, &args.token, &header, &chunk, delimiter).await?;
        summary.add(&answer, done, &chunk, &mut rejected)?;
        done += chunk.len() as u64;
        progress.set_position(done);
        (chunk, bytes) = (Vec::new(), 0);
    }
    progress.finish_and_clear();
    rejected.flush()?;
    let verb = if args.dry_run { "would be" } else { "were" };
    print_answer(format_args!(
        "{total} rows: {} {verb} created, {} {verb} updated, {} warnings, {} rejected",
        summary.created, summary.updated, summary.warnings, summary.rejected
    ))?;
    if summary.rejected > 0 {
        print_answer(format_args!("rejected rows: {}", rejected_path(&args.file).display()))?;
    } else {
        std::fs::remove_file(rejected_path(&args.file)).ok();
    }
    Ok(())
}

fn rejected_path(file: &Path) -> PathBuf {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "import".into());
    file.with_file_name(format!("{stem}.rejected.csv"))
}

/// One call: the chunk as CSV with the header, sent until an answer comes.
async fn send(
    client: &reqwest::Client,
    endpoint: &str,
    token: &str,
    header: &csv::StringRecord,
    chunk: &[csv::StringRecord],
    delimiter: u8,
) -> Result<Value, Box<dyn Error>> {
    let mut body = csv::WriterBuilder::new().delimiter(delimiter).from_writer(Vec::new());
    body.write_record(header)?;
    for record in chunk {
        body.write_record(record)?;
    }
    // Sent compressed: a chunk of 10,000 rows is about a tenth of its size as gzip.
    let body = crm_server::http::encoding::gzip(&body.into_inner().map_err(|e| e.to_string())?)?;
    let mut wait = Duration::from_millis(500);
    for attempt in 1..=TRIES {
        let sent = client
            .post(endpoint)
            .bearer_auth(token)
            .header("content-type", "text/csv")
            .header("content-encoding", "gzip")
            .body(body.clone())
            .send()
            .await;
        match sent {
            Ok(r) if r.status().is_success() => return Ok(r.json().await?),
            Ok(r) if r.status().as_u16() == 429 || r.status().is_server_error() => {
                print_note(format_args!("crm-host: the host answered {} (try {attempt} of {TRIES})", r.status()));
            }
            Ok(r) => {
                let status = r.status();
                let text = r.text().await.unwrap_or_default();
                return Err(format!("the host refused the import ({status}): {text}").into());
            }
            // An untrusted certificate stays untrusted: no point trying again.
            Err(e) if is_tls_failure(&e) => return Err(format!("cannot reach {endpoint}: {}", with_causes(&e)).into()),
            Err(e) => print_note(format_args!("crm-host: no answer: {} (try {attempt} of {TRIES})", with_causes(&e))),
        }
        tokio::time::sleep(wait).await;
        wait *= 2;
    }
    Err(format!("no answer after {TRIES} tries").into())
}

/// Whether `e` failed in TLS (a certificate not trusted, no protocol in
/// common), which another try does not change. The rustls error sits in
/// I/O errors wrapped in I/O errors, which `source()` steps over.
fn is_tls_failure(e: &(dyn Error + 'static)) -> bool {
    let wrapped = e.downcast_ref::<std::io::Error>().and_then(std::io::Error::get_ref);
    e.is::<rustls::Error>()
        || wrapped.is_some_and(|inner| is_tls_failure(inner))
        || e.source().is_some_and(is_tls_failure)
}

/// An error and its causes: reqwest's own text is "error sending request".
fn with_causes(e: &(dyn Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text = format!("{text}: {c}");
        cause = c.source();
    }
    text
}

#[derive(Default)]
struct Summary {
    created: u64,
    updated: u64,
    warnings: u64,
    rejected: u64,
}

impl Summary {
    /// Adds one call's answer; `offset` is the rows sent before it.
    fn add(
        &mut self,
        answer: &Value,
        offset: u64,
        chunk: &[csv::StringRecord],
        rejected: &mut csv::Writer<std::fs::File>,
    ) -> Result<(), Box<dyn Error>> {
        let data = &answer["data"];
        let count = |key: &str| data[key].as_u64().unwrap_or(0);
        self.created += count("created");
        self.updated += count("updated");
        self.rejected += count("rejected");
        self.warnings += data["warnings"].as_array().map_or(0, |w| w.len() as u64);
        for row in data["rejectedRows"].as_array().into_iter().flatten() {
            let n = row["row"].as_u64().unwrap_or(0);
            let Some(record) = n.checked_sub(1).and_then(|i| chunk.get(i as usize)) else { continue };
            let text = |v: &Value| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
            let head = [(offset + n).to_string(), text(&row["reason"]["code"]), text(&row["reason"]["message"])];
            rejected.write_record(head.iter().map(String::as_str).chain(record.iter()))?;
        }
        Ok(())
    }
}
