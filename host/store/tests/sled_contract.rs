//! The store contract run against the sled backend.

use std::sync::Arc;

use crm_store::{SledStore, Store};

fn open() -> (tempfile::TempDir, Arc<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    (dir, Arc::new(store))
}

crm_store::store_contract!(open());

#[test]
fn acknowledged_writes_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!("sled:{}", dir.path().display());
    crm_store::contract::crash::check(env!("CARGO_BIN_EXE_store-crash-writer"), &spec, 4, || {
        Arc::new(SledStore::open(dir.path()).unwrap())
    });
}
