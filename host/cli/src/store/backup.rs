//! `crm-host store backup | verify | restore`: a running host's store at one
//! instant, read through the admin API (`host/server/src/admin/backups.rs`)
//! into a folder; checked; written back into a data dir no host runs on.
//!
//! A backup folder holds `store.crmbackup` (the `crm_store::backup` format:
//! pairs, count, checksum) and `manifest.json` (when it was taken, what it
//! holds). A backup is written as `.partial`, read back from the disk and
//! only then named: a folder with a `store.crmbackup` holds a whole one.

use std::collections::HashMap;
use std::error::Error;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use crm_store::backup::{self, Summary};
use crm_store::combine::CommitWindow;
use crm_store::embedded::{self, Engine};
use crm_store::{BatchOp, Namespace, Store};
use serde_json::{Value, json};

use crate::admin::{Client, Reach};
use crate::console::{print_answer, print_note};

const FILE: &str = "store.crmbackup";
const MANIFEST: &str = "manifest.json";

/// Pairs written per batch on restore.
const BATCH: usize = 1_000;

type Failure = Box<dyn Error + Send + Sync>;

/// `store backup --to DIR`.
pub async fn take(reach: &Reach, to: &Path) -> Result<(), Box<dyn Error>> {
    if to.join(FILE).exists() {
        return Err(format!("{} already holds a backup: name a new folder", to.display()).into());
    }
    std::fs::create_dir_all(to)?;
    let admin = Client::connect(reach)?;
    let started = Instant::now();
    let backup = admin.call("POST", "/admin/store/backups", None).await?;
    let id = backup["id"].as_str().ok_or("the host answered a backup without an id")?.to_string();
    let partial = to.join(format!("{FILE}.partial"));
    let written = download(&admin, &id, &partial).await;
    if written.is_err() {
        // Frees the host's snapshot now rather than after its idle minute.
        let _ = admin.call("DELETE", &format!("/admin/store/backups/{id}"), None).await;
        let _ = std::fs::remove_file(&partial);
    }
    let bytes = written?;
    // What the disk holds, read back: the checksum proves it whole.
    let checked = partial.clone();
    let summary =
        tokio::task::spawn_blocking(move || read(&checked, |_, _| Ok(()))).await?.map_err(|e| e as Box<dyn Error>)?;
    std::fs::rename(&partial, to.join(FILE))?;
    let manifest = json!({
        "format": 1,
        "takenAt": backup["takenAt"],
        "pairs": summary.pairs,
        "namespaces": summary.namespaces,
        "bytes": bytes,
        "sha256": summary.sha256,
    });
    std::fs::write(to.join(MANIFEST), serde_json::to_string_pretty(&manifest)? + "\n")?;
    File::open(to)?.sync_all()?;
    print_answer(format_args!(
        "crm-host: backed up {} pairs in {} namespaces, as they stood at {}, to {} ({:.1} MB in {:.1} s)",
        summary.pairs,
        summary.namespaces,
        backup["takenAt"].as_str().unwrap_or("?"),
        to.display(),
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    ))?;
    Ok(())
}

/// Reads the backup's parts in order into `file`; answers its size.
async fn download(admin: &Client, id: &str, file: &Path) -> Result<u64, Box<dyn Error>> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(file)?);
    let (mut part, mut bytes) = (0u64, 0u64);
    loop {
        let (body, headers) = admin.octets(&format!("/admin/store/backups/{id}/parts/{part}")).await?;
        out.write_all(&body)?;
        bytes += body.len() as u64;
        if headers.get("x-backup-last").is_some_and(|v| v == "true") {
            break;
        }
        part += 1;
        if part % 64 == 0 {
            print_note(format_args!("read {:.0} MB", bytes as f64 / 1e6));
        }
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(bytes)
}

/// Reads the backup file at `path` through, calling `each` with its pairs.
fn read(
    path: &Path,
    each: impl FnMut(Namespace, crm_store::KeyValue) -> Result<(), Failure>,
) -> Result<Summary, Failure> {
    let file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    backup::read(file, each)
}

/// The manifest of the backup in `dir`, checked against the file's own
/// count and checksum.
fn checked(dir: &Path) -> Result<(Value, Summary), Failure> {
    let manifest = std::fs::read(dir.join(MANIFEST))
        .map_err(|e| format!("{} is not a backup folder: no {MANIFEST} ({e})", dir.display()))?;
    let manifest: Value = serde_json::from_slice(&manifest).map_err(|e| format!("{MANIFEST} is not JSON: {e}"))?;
    let summary = read(&dir.join(FILE), |_, _| Ok(()))?;
    if manifest["pairs"].as_u64() != Some(summary.pairs) || manifest["sha256"].as_str() != Some(&summary.sha256) {
        return Err(format!(
            "{MANIFEST} says {} pairs and checksum {}; the file holds {} and {}",
            manifest["pairs"], manifest["sha256"], summary.pairs, summary.sha256
        )
        .into());
    }
    Ok((manifest, summary))
}

/// `store verify DIR`.
pub fn verify(dir: &Path) -> Result<(), Box<dyn Error>> {
    let (manifest, summary) = checked(dir).map_err(|e| e as Box<dyn Error>)?;
    print_answer(format_args!(
        "crm-host: the backup in {} is whole: {} pairs in {} namespaces as they stood at {}, sha256 {}",
        dir.display(),
        summary.pairs,
        summary.namespaces,
        manifest["takenAt"].as_str().unwrap_or("?"),
        summary.sha256
    ))?;
    Ok(())
}

/// `store restore --from DIR --to DATA_DIR`.
pub async fn restore(from: &Path, to: &Path, engine: Engine, replace: bool) -> Result<(), Box<dyn Error>> {
    let (from, to) = (from.to_path_buf(), to.to_path_buf());
    let (store, report) = tokio::task::spawn_blocking(move || write_back(&from, &to, engine, replace))
        .await?
        .map_err(|e| e as Box<dyn Error>)?;
    store.durable().await?;
    print_answer(format_args!("{report}"))?;
    Ok(())
}

/// Checks the backup, makes room in the data dir, writes every pair and
/// counts each namespace's keys on both sides.
fn write_back(
    from: &Path,
    to: &Path,
    engine: Engine,
    replace: bool,
) -> Result<(std::sync::Arc<dyn Store>, String), Failure> {
    // Checked whole before anything is written: a damaged backup leaves the
    // data dir as it was.
    let (manifest, summary) = checked(from)?;
    if let Some(found) = Engine::found_in(to) {
        if found.in_use(to) {
            return Err(format!("{} is in use by a running host: stop it first", to.display()).into());
        }
        if !replace {
            return Err(format!(
                "{} already holds a {} store: restore into a new data dir, or add --replace",
                to.display(),
                found.name()
            )
            .into());
        }
        std::fs::remove_dir_all(found.dir(to))?;
    }
    std::fs::create_dir_all(to)?;
    let store = embedded::open(engine, to, engine.default_cache_mb() << 20, CommitWindow::default())?;
    let mut counts: HashMap<Namespace, usize> = HashMap::new();
    let mut pending: Option<(Namespace, Vec<BatchOp>)> = None;
    read(&from.join(FILE), |ns, (key, value)| {
        *counts.entry(ns.clone()).or_default() += 1;
        match &mut pending {
            Some((current, ops)) if *current == ns && ops.len() < BATCH => ops.push(BatchOp::Put(key, value)),
            _ => {
                if let Some((current, ops)) = pending.replace((ns, vec![BatchOp::Put(key, value)])) {
                    store.batch(&current, ops)?;
                }
            }
        }
        Ok(())
    })?;
    if let Some((current, ops)) = pending {
        store.batch(&current, ops)?;
    }
    for (ns, expected) in &counts {
        let found = super::copy::for_each_page(&*store, ns, |_| Ok(()))?;
        if found != *expected {
            return Err(format!("{}: {expected} keys in the backup but {found} restored", ns.as_str()).into());
        }
    }
    let report = format!(
        "crm-host: restored {} pairs in {} namespaces, as they stood at {}, into {} ({}); every namespace's count verified",
        summary.pairs,
        summary.namespaces,
        manifest["takenAt"].as_str().unwrap_or("?"),
        to.display(),
        engine.name()
    );
    Ok((store, report))
}
