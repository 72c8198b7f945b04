//! The store contract run against the fjall backend.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crm_store::combine::CommitWindow;
use crm_store::{FjallStore, Store, StoreResult};
use crm_store_testkit::crash;

/// With the commit window always open, so that every shared batch is
/// combined (a lone caller commits on its own, as `batch_if`).
fn open() -> (tempfile::TempDir, Arc<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let store = open_in(dir.path().to_str().unwrap()).unwrap();
    (dir, store)
}

fn open_in(dir: &str) -> StoreResult<Arc<dyn Store>> {
    Ok(Arc::new(FjallStore::open_with(Path::new(dir), CACHE, CommitWindow::always_open(WINDOW))?))
}

const WINDOW: Duration = Duration::from_micros(200);
const CACHE: u64 = 32 << 20;

crm_store_testkit::store_contract!(open());

#[test]
fn acknowledged_writes_survive_kill_9() {
    let folder = || {
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().to_str().unwrap().to_owned();
        (dir, spec)
    };
    crash::check(4, folder, open_in, |dir| open_in(dir).unwrap());
}

#[test]
fn a_second_process_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let _first = FjallStore::open_with(dir.path(), CACHE, CommitWindow::default()).unwrap();
    let second = FjallStore::open_with(dir.path(), CACHE, CommitWindow::default());
    let message = second.err().expect("a second open is refused").to_string();
    assert!(message.contains("in use by another process"), "{message}");
}

#[test]
fn a_namespace_larger_than_one_drop_step_is_dropped_whole() {
    let (_dir, store) = open();
    let (big, other) = (crm_store::Namespace::org("big"), crm_store::Namespace::org("bigger"));
    for chunk in 0..5u32 {
        let ops =
            (0..5_000u32).map(|i| crm_store::BatchOp::Put((chunk * 5_000 + i).to_be_bytes().to_vec(), b"v".to_vec()));
        store.batch(&big, ops.collect()).unwrap();
    }
    store.put(&other, b"k", b"v").unwrap();
    store.drop_namespace(&big).unwrap();
    assert!(store.scan(&big, b"", None, 10).unwrap().is_empty(), "25,000 keys, dropped in steps of 10,000");
    assert_eq!(store.get(&other, b"k").unwrap(), Some(b"v".to_vec()), "a namespace whose name starts alike is kept");
}
