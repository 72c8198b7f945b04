//! The store contract run against the fjall backend.

use std::sync::Arc;
use std::time::Duration;

use crm_store::combine::CommitWindow;
use crm_store::{FjallStore, Store};

/// With the commit window always open, so that every shared batch is
/// combined (a lone caller commits on its own, as `batch_if`).
fn open() -> (tempfile::TempDir, Arc<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let store = FjallStore::open_with(dir.path(), CACHE, CommitWindow::always_open(WINDOW)).unwrap();
    (dir, Arc::new(store))
}

const WINDOW: Duration = Duration::from_micros(200);
const CACHE: u64 = 32 << 20;

crm_store::store_contract!(open());

#[test]
fn acknowledged_writes_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!("fjall:{}", dir.path().display());
    crm_store::contract::crash::check(env!("CARGO_BIN_EXE_store-crash-writer"), &spec, 4, || {
        Arc::new(FjallStore::open_with(dir.path(), CACHE, CommitWindow::always_open(WINDOW)).unwrap())
    });
}

#[test]
fn a_second_process_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let _first = FjallStore::open_with(dir.path(), CACHE, CommitWindow::default()).unwrap();
    let second = FjallStore::open_with(dir.path(), CACHE, CommitWindow::default());
    let message = second.err().expect("a second open is refused").to_string();
    assert!(message.contains("in use by another process"), "{message}");
}
