//! The store contract run against the PostgreSQL backend, on a throw-away
//! server: one database per test.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use crm_store::Store;
use crm_store_postgres::PostgresStore;
use crm_store_postgres::throwaway::Throwaway;

fn server() -> &'static Throwaway {
    static SERVER: OnceLock<Throwaway> = OnceLock::new();
    // The server's own crash safety is PostgreSQL's: these tests kill clients.
    SERVER.get_or_init(|| Throwaway::start(&["fsync=off"]).expect("start a throw-away PostgreSQL"))
}

fn fresh_database() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    server().database(&format!("contract_{}", NEXT.fetch_add(1, Ordering::Relaxed))).unwrap()
}

fn open() -> ((), Arc<dyn Store>) {
    ((), Arc::new(PostgresStore::connect(&fresh_database(), 8).unwrap()))
}

crm_store::store_contract!(open());

#[test]
fn acknowledged_writes_survive_kill_9() {
    let url = fresh_database();
    crm_store::contract::crash::check(env!("CARGO_BIN_EXE_store-crash-writer-postgres"), &url, 4, || {
        Arc::new(PostgresStore::connect(&url, 2).unwrap())
    });
}

#[test]
fn hosts_starting_together_migrate_once() {
    let url = fresh_database();
    let starts: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || PostgresStore::connect(&url, 1).map(|_| ()))
        })
        .collect();
    for start in starts {
        start.join().unwrap().expect("every host starts on a database migrated by another");
    }
}

#[test]
fn a_bad_url_is_refused_with_a_reason() {
    let e = PostgresStore::connect("postgres://nobody@127.0.0.1:1/none", 1).err().expect("nothing listens on port 1");
    assert!(e.0.contains("PostgreSQL"), "{e}");
    let e = PostgresStore::connect("not a url", 1).err().expect("not a URL");
    assert!(e.0.contains("not a PostgreSQL URL"), "{e}");
}
