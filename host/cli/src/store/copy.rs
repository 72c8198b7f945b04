//! `crm-host store copy --from A --to B`: moves a store between backends, the
//! embedded engines (`fjall:<data-dir>`, `sled:<data-dir>`) and a database
//! (`postgres://...`), any way, with every host of both stopped.
//!
//! The host's namespace (`sys`: organizations, tokens, leases) is merged into
//! the destination's; each organization's namespace is replaced whole by the
//! source's. Every namespace's key count is then compared on both sides.
//! Re-running it gives the same result, so an interrupted copy is finished
//! by running it again.

use std::error::Error;
use std::path::PathBuf;
use std::sync::Arc;

use crm_store::combine::CommitWindow;
use crm_store::embedded::{self, Engine};
use crm_store::{BatchOp, Namespace, Store};
use crm_store_postgres::PostgresStore;
use crm_tenancy::Tenancy;

use crm_server::admin::token as admin_token;
use crm_server::server::storage;

use crate::console::print_answer;

/// Keys read and written per step.
const PAGE: usize = 1_000;

pub async fn run(from: String, to: String) -> Result<(), Box<dyn Error>> {
    // The store calls block: off this runtime's threads.
    let (destination, report) =
        tokio::task::spawn_blocking(move || copy(&from, &to)).await?.map_err(|e| e as Box<dyn Error>)?;
    // The embedded store writes to memory first: nothing is copied until flushed.
    destination.durable().await?;
    print_answer(format_args!("{report}"))?;
    Ok(())
}

/// Copies; answers the destination and what to tell the operator.
fn copy(from: &str, to: &str) -> Result<(Arc<dyn Store>, String), Box<dyn Error + Send + Sync>> {
    let source = open(from)?;
    let destination = open(to)?;
    let orgs = Tenancy::new(source.clone()).list_orgs()?;
    let mut keys = copy_namespace(&*source, &*destination, &Namespace::system(), false)?;
    for org in &orgs {
        keys += copy_namespace(&*source, &*destination, &Namespace::org(&org.id), true)?;
    }
    if let Some((_, dir)) = embedded_spec(from) {
        admin_token::carry(&dir, &*destination)?;
    }
    let report =
        format!("crm-host: copied {} organizations and {keys} keys; every namespace's count verified", orgs.len());
    Ok((destination, report))
}

/// The engine and data dir of an `<engine>:<data-dir>` spec.
fn embedded_spec(spec: &str) -> Option<(Engine, PathBuf)> {
    let (engine, dir) = spec.split_once(':')?;
    Some((engine.parse().ok()?, PathBuf::from(dir)))
}

fn open(spec: &str) -> Result<Arc<dyn Store>, Box<dyn Error + Send + Sync>> {
    if let Some((engine, dir)) = embedded_spec(spec) {
        std::fs::create_dir_all(&dir)?;
        let engine = embedded::choose(&dir, Some(engine))?;
        let cache = engine.default_cache_mb() << 20;
        let store = embedded::open(engine, &dir, cache, CommitWindow::default())
            .map_err(|e| format!("cannot open the store of {} (is a host running on it?): {e}", dir.display()))?;
        return Ok(store);
    }
    if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
        let store =
            PostgresStore::connect(spec, 4).map_err(|e| format!("cannot open {}: {e}", storage::redacted(spec)))?;
        return Ok(Arc::new(store));
    }
    Err(format!("{:?} is none of fjall:<data-dir>, sled:<data-dir>, postgres://...", storage::redacted(spec)).into())
}

/// Copies one namespace page by page (replacing the destination's first
/// when `replace`); answers how many keys it holds, checked on both sides.
fn copy_namespace(
    source: &dyn Store,
    destination: &dyn Store,
    ns: &Namespace,
    replace: bool,
) -> Result<usize, Box<dyn Error + Send + Sync>> {
    if replace {
        destination.drop_namespace(ns)?;
    }
    let written = for_each_page(source, ns, |page| destination.batch(ns, page.into_iter().map(put).collect()))?;
    let found = for_each_page(destination, ns, |_| Ok(()))?;
    // The host's namespace is merged: the destination may hold more.
    if found != written && (replace || found < written) {
        return Err(format!("{}: {written} keys copied but {found} found in the destination", ns.as_str()).into());
    }
    Ok(written)
}

fn put((key, value): (Vec<u8>, Vec<u8>)) -> BatchOp {
    BatchOp::Put(key, value)
}

/// Calls `each` with every page of the namespace's pairs, in key order;
/// answers how many pairs there were.
pub(super) fn for_each_page(
    store: &dyn Store,
    ns: &Namespace,
    mut each: impl FnMut(Vec<(Vec<u8>, Vec<u8>)>) -> crm_store::StoreResult<()>,
) -> crm_store::StoreResult<usize> {
    let mut total = 0;
    for page in crm_store::range::pages(store, ns, PAGE) {
        let page = page?;
        total += page.len();
        each(page)?;
    }
    Ok(total)
}
