//! The store contract run against the sled backend.

use std::sync::Arc;
use std::time::Duration;

use crm_store::combine::CommitWindow;
use crm_store::sled_store::DEFAULT_CACHE_BYTES;
use crm_store::{SledStore, Store};

/// With the commit window always open, so that every shared batch is
/// combined (a lone caller commits on its own, as `batch_if`).
fn open() -> (tempfile::TempDir, Arc<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open_with(dir.path(), DEFAULT_CACHE_BYTES, CommitWindow::always_open(WINDOW)).unwrap();
    (dir, Arc::new(store))
}

const WINDOW: Duration = Duration::from_micros(200);

crm_store::store_contract!(open());

#[test]
fn acknowledged_writes_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!("sled:{}", dir.path().display());
    crm_store::contract::crash::check(env!("CARGO_BIN_EXE_store-crash-writer"), &spec, 4, || {
        Arc::new(SledStore::open_with(dir.path(), DEFAULT_CACHE_BYTES, CommitWindow::always_open(WINDOW)).unwrap())
    });
}
