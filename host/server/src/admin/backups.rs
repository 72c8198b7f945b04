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
//! One backup at a time, and one nobody has read for a while
//! (`--backup-idle-secs`, a minute by default) is given up: a snapshot keeps
//! old versions from being compacted away. The parts are
//! written on a thread of the lowest CPU priority ([`write_parts`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crm_store::Pairs;
use crm_store::backup::Writer;
use http::{HeaderValue, StatusCode};
use serde_json::json;
use tokio::sync::{Mutex, mpsc};

use crate::http::{ApiError, Response};
use crate::state::ServerState;

/// About how large a part is.
const PART_BYTES: usize = 4 << 20;

/// The backup being read, if any, and how long one nobody reads is kept.
pub struct Backups {
    open: Arc<Mutex<Option<Open>>>,
    idle: Duration,
}

struct Open {
    id: String,
    next_part: u64,
    /// The parts as the writing thread makes them, and whether each is the last.
    parts: mpsc::Receiver<Result<(Vec<u8>, bool), String>>,
    touched: Instant,
}

/// Writes the snapshot's pairs into parts on a thread of its own, at the
/// lowest CPU priority, so requests keep the cores while a backup is read;
/// one part waits ahead of the reader. Ends, and releases the snapshot,
/// once the last part is taken or the backup is given up.
fn write_parts(pairs: Pairs, id: String, taken_at: String) -> mpsc::Receiver<Result<(Vec<u8>, bool), String>> {
    let (parts, receiver) = mpsc::channel(1);
    let writing = move || {
        crm_store::priority::lower_this_thread();
        let mut writer = match Writer::new(Vec::with_capacity(PART_BYTES + (64 << 10))) {
            Ok(writer) => writer,
            Err(e) => return drop(parts.blocking_send(Err(e.to_string()))),
        };
        let mut pairs = pairs;
        loop {
            match fill(&mut pairs, &mut writer) {
                Ok(false) => {
                    if parts.blocking_send(Ok((std::mem::take(writer.out()), false))).is_err() {
                        return tracing::info!(backup = %id, "an online backup was given up");
                    }
                }
                Ok(true) => {
                    let (summary, body) = match writer.finish() {
                        Ok(done) => done,
                        Err(e) => return drop(parts.blocking_send(Err(e.to_string()))),
                    };
                    tracing::info!(backup = %id, %taken_at, pairs = summary.pairs, "an online backup was read whole");
                    return drop(parts.blocking_send(Ok((body, true))));
                }
                Err(e) => {
                    tracing::error!(backup = %id, error = %e, "an online backup failed");
                    return drop(parts.blocking_send(Err(e.to_string())));
                }
            }
        }
    };
    if let Err(e) = std::thread::Builder::new().name("store-backup".into()).spawn(writing) {
        tracing::error!(error = %e, "cannot start an online backup's thread");
    }
    receiver
}

impl Backups {
    pub fn new(idle: Duration) -> Backups {
        Backups { open: Arc::default(), idle }
    }

    /// `POST /admin/store/backups`.
    pub async fn start(&self, app: &ServerState) -> Result<Response, ApiError> {
        let mut open = self.open.lock().await;
        if let Some(current) = open.as_ref().filter(|o| o.touched.elapsed() < self.idle) {
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
        let (id, taken_at) = (crm_tenancy::ids::new_id(), crm_tenancy::clock::now_text());
        let answer = json!({ "id": id, "takenAt": taken_at });
        let parts = write_parts(pairs, id.clone(), taken_at);
        *open = Some(Open { id: id.clone(), next_part: 0, parts, touched: Instant::now() });
        tokio::spawn(give_up_when_idle(self.open.clone(), id, self.idle));
        tracing::info!(backup = %answer.get("id").unwrap_or(&serde_json::Value::Null), "an online backup started");
        Ok(Response::json(StatusCode::CREATED, &answer))
    }

    /// `GET /admin/store/backups/{id}/parts/{n}`.
    pub async fn part(&self, id: &str, part: &str) -> Result<Response, ApiError> {
        let mut slot = self.open.lock().await;
        let open = slot.as_mut().filter(|o| o.id == id).ok_or_else(|| ApiError::not_found("Backup"))?;
        if part.parse::<u64>().ok() != Some(open.next_part) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "BACKUP_PART_OUT_OF_ORDER",
                format!("The next part of backup {id} is {}", open.next_part),
            ));
        }
        let part = open.parts.recv().await;
        match part {
            Some(Ok((body, false))) => {
                open.next_part += 1;
                open.touched = Instant::now();
                Ok(octets(body, false))
            }
            Some(Ok((body, true))) => {
                *slot = None;
                Ok(octets(body, true))
            }
            Some(Err(why)) => {
                *slot = None;
                Err(crm_store::StoreError::new(why).into())
            }
            None => {
                *slot = None;
                Err(ApiError::internal())
            }
        }
    }

    /// `DELETE /admin/store/backups/{id}`.
    pub async fn cancel(&self, id: &str) -> Result<Response, ApiError> {
        let mut slot = self.open.lock().await;
        match slot.as_ref().is_some_and(|o| o.id == id) {
            true => {
                *slot = None;
                Ok(Response::empty(StatusCode::NO_CONTENT))
            }
            false => Err(ApiError::not_found("Backup")),
        }
    }
}

/// Gives backup `id` up once nobody has read it for `idle`: its snapshot
/// released, its thread ended.
async fn give_up_when_idle(slot: Arc<Mutex<Option<Open>>>, id: String, idle: Duration) {
    loop {
        tokio::time::sleep(idle / 4).await;
        let mut open = slot.lock().await;
        match open.as_ref() {
            Some(o) if o.id == id && o.touched.elapsed() >= idle => {
                *open = None;
                let seconds = idle.as_secs();
                return tracing::warn!(backup = %id, seconds, "an online backup nobody read was given up");
            }
            Some(o) if o.id == id => {}
            _ => return,
        }
    }
}

/// Writes pairs into the part until it is full; answers whether the
/// snapshot is read to its end.
fn fill(pairs: &mut Pairs, writer: &mut Writer<Vec<u8>>) -> crm_store::StoreResult<bool> {
    while writer.out().len() < PART_BYTES {
        match pairs.next().transpose()? {
            Some((ns, pair)) => writer.pair(&ns, &pair).map_err(|e| crm_store::StoreError::new(e.to_string()))?,
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
