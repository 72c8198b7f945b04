//! The store contract run against the sled backend.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crm_store::combine::CommitWindow;
use crm_store::engines::sled::DEFAULT_CACHE_BYTES;
use crm_store::{SledStore, Store, StoreResult};
use crm_store_testkit::crash;

/// With the commit window always open, so that every shared batch is
/// combined (a lone caller commits on its own, as `batch_if`).
fn open() -> (tempfile::TempDir, Arc<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let store = open_in(dir.path().to_str().unwrap()).unwrap();
    (dir, store)
}

fn open_in(dir: &str) -> StoreResult<Arc<dyn Store>> {
    Ok(Arc::new(SledStore::open_with(Path::new(dir), DEFAULT_CACHE_BYTES, CommitWindow::always_open(WINDOW))?))
}

const WINDOW: Duration = Duration::from_micros(200);

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
