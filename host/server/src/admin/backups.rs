//! Online backups, read by `crm-host store backup`: the store's pairs at one
//! instant ([`crm_store::Store::snapshot`]) in the [`crm_store::backup`]
//! format, handed out in parts of a few MiB so no answer is held whole in
//! memory, while the host goes on serving.
//!
//! - `POST /admin/store/backups`: 201 `{id, takenAt}`, the instant taken;
//!   409 `BACKUP_NOT_SUPPORTED` on a store that cannot (sled, PostgreSQL),
//!   409 `BACKUP_IN_PROGRESS` while another is read.
//! - `GET /admin/store/backups/{id}/parts/{n}`: part `n` (from 0, in
//!   order), `x-backup-last: true` on the last, which ends the backup.
//! - `DELETE /admin/store/backups/{id}`: 204, the backup given up.
//!
//! One backup at a time, and one nobody has read for [`IDLE`] is given up:
//! a snapshot keeps old versions from being compacted away.

use std::time::{Duration, Instant};

use crm_store::Pairs;
use crm_store::backup::Writer;
use http::{HeaderValue, StatusCode};
use serde_json::json;
use tokio::sync::Mutex;

use crate::http::{ApiError, Response};
use crate::state::ServerState;

/// About how large a part is.
const PART_BYTES: usize = 4 << 20;

/// A backup not read for this long is given up.
pub const IDLE: Duration = Duration::from_secs(60);

/// The backup being read, if any.
#[derive(Default)]
pub struct Backups(Mutex<Option<Open>>);

struct Open {
    id: String,
    taken_at: String,
    next_part: u64,
    pairs: Pairs,
    writer: Writer<Vec<u8>>,
    touched: Instant,
}

impl Backups {
    /// `POST /admin/store/backups`.
    pub async fn start(&self, app: &ServerState) -> Result<Response, ApiError> {
        let mut open = self.0.lock().await;
        if let Some(current) = open.as_ref().filter(|o| o.touched.elapsed() < IDLE) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "BACKUP_IN_PROGRESS",
                format!("Backup {} is being read; one backup at a time", current.id),
            ));
        }
        let Some(pairs) = app.store.snapshot() else {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "BACKUP_NOT_SUPPORTED",
                "This store cannot be read at one instant while it serves: on sled, stop the host and use \
                 `crm-host store copy`, or move to fjall; on PostgreSQL, use its own tools (pg_basebackup)",
            ));
        };
        let writer = Writer::new(Vec::with_capacity(PART_BYTES + (64 << 10))).map_err(|_| ApiError::internal())?;
        let (id, taken_at) = (crm_tenancy::ids::new_id(), crm_tenancy::clock::now_text());
        let answer = json!({ "id": id, "takenAt": taken_at });
        *open = Some(Open { id, taken_at, next_part: 0, pairs, writer, touched: Instant::now() });
        tracing::info!(backup = %answer["id"], "an online backup started");
        Ok(Response::json(StatusCode::CREATED, &answer))
    }

    /// `GET /admin/store/backups/{id}/parts/{n}`.
    pub async fn part(&self, id: &str, part: &str) -> Result<Response, ApiError> {
        let mut slot = self.0.lock().await;
        let open = slot.as_mut().filter(|o| o.id == id).ok_or_else(|| ApiError::not_found("Backup"))?;
        if part.parse::<u64>().ok() != Some(open.next_part) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "BACKUP_PART_OUT_OF_ORDER",
                format!("The next part of backup {id} is {}", open.next_part),
            ));
        }
        let mut open = slot.take().expect("found above");
        // Reading the snapshot may wait for the disk: off the serving threads.
        let (mut open, filled) = tokio::task::spawn_blocking(move || {
            let filled = fill(&mut open);
            (open, filled)
        })
        .await
        .map_err(|_| ApiError::internal())?;
        match filled {
            Ok(false) => {
                let body = std::mem::take(open.writer.out());
                open.next_part += 1;
                open.touched = Instant::now();
                *slot = Some(open);
                Ok(octets(body, false))
            }
            Ok(true) => {
                let (summary, body) = open.writer.finish().map_err(|_| ApiError::internal())?;
                tracing::info!(backup = %open.id, taken_at = %open.taken_at, pairs = summary.pairs, "an online backup was read whole");
                Ok(octets(body, true))
            }
            Err(e) => {
                tracing::error!(backup = %open.id, error = %e, "an online backup failed");
                Err(e.into())
            }
        }
    }

    /// `DELETE /admin/store/backups/{id}`.
    pub async fn cancel(&self, id: &str) -> Result<Response, ApiError> {
        let mut slot = self.0.lock().await;
        match slot.as_ref().is_some_and(|o| o.id == id) {
            true => {
                *slot = None;
                Ok(Response::empty(StatusCode::NO_CONTENT))
            }
            false => Err(ApiError::not_found("Backup")),
        }
    }
}

/// Writes pairs into the part until it is full; answers whether the
/// snapshot is read to its end.
fn fill(open: &mut Open) -> crm_store::StoreResult<bool> {
    while open.writer.out().len() < PART_BYTES {
        match open.pairs.next().transpose()? {
            Some((ns, pair)) => open.writer.pair(&ns, &pair).map_err(|e| crm_store::StoreError(e.to_string()))?,
            None => return Ok(true),
        }
    }
    Ok(false)
}

fn octets(body: Vec<u8>, last: bool) -> Response {
    let mut response = Response::json_bytes(StatusCode::OK, body.into());
    response.headers = vec![
        (http::header::CONTENT_TYPE, HeaderValue::from_static("application/octet-stream")),
        (http::HeaderName::from_static("x-backup-last"), HeaderValue::from_static(if last { "true" } else { "false" })),
    ];
    response
}
