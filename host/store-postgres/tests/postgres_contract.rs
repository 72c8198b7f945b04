//! The store contract run against the PostgreSQL backend, on a throw-away
//! server: one database per test.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crm_store::combine::CommitWindow;
use crm_store::{Store, StoreResult};
use crm_store_postgres::PostgresStore;
use crm_store_testkit::crash;
use crm_store_testkit::throwaway::Throwaway;

fn server() -> &'static Throwaway {
    static SERVER: OnceLock<Throwaway> = OnceLock::new();
    // The server's own crash safety is PostgreSQL's: these tests kill clients.
    SERVER.get_or_init(|| Throwaway::start(&["fsync=off"]).expect("start a throw-away PostgreSQL"))
}

fn fresh_database() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    server().database(&format!("contract_{}", NEXT.fetch_add(1, Ordering::Relaxed))).unwrap()
}

/// Shared batches are always combined here, as under load.
fn open() -> ((), Arc<dyn Store>) {
    let window = CommitWindow::always_open(Duration::from_micros(200));
    ((), Arc::new(PostgresStore::connect_with(&fresh_database(), 8, window).unwrap()))
}

crm_store_testkit::store_contract!(open());

#[test]
fn acknowledged_writes_survive_kill_9() {
    // The writer's shared batches always combined, as under load.
    let writer = |url: &str| -> StoreResult<Arc<dyn Store>> {
        let window = CommitWindow::always_open(Duration::from_micros(200));
        Ok(Arc::new(PostgresStore::connect_with(url, 4, window)?))
    };
    let open = |url: &str| -> Arc<dyn Store> { Arc::new(PostgresStore::connect(url, 2).unwrap()) };
    crash::check(4, || ((), fresh_database()), writer, open);
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
    assert!(e.message().contains("PostgreSQL"), "{e}");
    let e = PostgresStore::connect("not a url", 1).err().expect("not a URL");
    assert!(e.message().contains("the store URL must be a URL"), "{e}");
    let e = PostgresStore::connect("postgres://db:port/none", 1).err().expect("not a port");
    assert!(e.message().contains("not a PostgreSQL URL"), "{e}");
}

/// The server itself crashes (every process killed at once) under writes:
/// every write `durable()` acknowledged is there after recovery, with the
/// count written beside it. The server's WAL writer is frozen, so a write
/// only its background flush would save is lost: what is found is what
/// `durable()` flushed.
#[test]
fn acknowledged_writes_survive_a_server_crash() {
    use crm_store::{BatchOp, Namespace};
    use std::sync::Mutex;
    use std::sync::atomic::AtomicBool;

    // fsync=off: a killed process loses what it had not handed to the
    // kernel, which is the loss this test looks for; a power cut needs fsync.
    let server = Throwaway::start(&["fsync=off"]).expect("start a throw-away PostgreSQL");
    let url = server.database("crash").unwrap();
    server.freeze_wal_writer().unwrap();
    let store = Arc::new(PostgresStore::connect(&url, 8).unwrap());
    let ns = Namespace::org("crash");
    let (acknowledged, stop) = (Arc::new(Mutex::new(Vec::new())), Arc::new(AtomicBool::new(false)));
    let writers: Vec<_> = (0..6)
        .map(|writer| {
            let (store, ns, acknowledged, stop) = (store.clone(), ns.clone(), acknowledged.clone(), stop.clone());
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                for i in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let key = format!("k/{writer}/{i}").into_bytes();
                    let ops = vec![BatchOp::Put(key.clone(), b"v".to_vec()), BatchOp::Add(b"count".to_vec(), 1)];
                    if store.batch(&ns, ops).is_err() || runtime.block_on(store.durable()).is_err() {
                        break;
                    }
                    acknowledged.lock().unwrap().push(key);
                }
            })
        })
        .collect();
    // Crashed once the writers have had a hundred writes acknowledged (1.5 s
    // of them on an idle machine), however long a loaded one takes.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while acknowledged.lock().unwrap().len() <= 100 && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    server.crash_and_recover().unwrap();
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.join().unwrap();
    }
    drop(store);

    let store = PostgresStore::connect(&url, 2).unwrap();
    let acknowledged = acknowledged.lock().unwrap();
    assert!(acknowledged.len() > 100, "only {} writes before the crash", acknowledged.len());
    let found = store.get_many(&ns, &acknowledged).unwrap();
    let lost = found.iter().filter(|v| v.is_none()).count();
    assert_eq!(lost, 0, "{lost} of {} acknowledged writes lost", acknowledged.len());
    let stored = store.scan(&ns, b"k/", None, usize::MAX).unwrap().len() as i64;
    let count = crm_store::counter_value(store.get(&ns, b"count").unwrap().as_deref());
    assert_eq!(count, stored, "the count and the records it counts");
}

/// A statement prepared while the table was small keeps its generic plan as
/// the table grows. Reads and locks of a set of keys must still look up each
/// key, not read the namespace: measured by the index entries PostgreSQL
/// counts as read, for calls made on the session that prepared them.
#[test]
fn key_sets_are_read_key_by_key_on_a_grown_table() {
    use crm_store::{BatchOp, Condition, Namespace};

    let database = "grown";
    let url = server().database(database).unwrap();
    let index_entries_read = || -> u64 {
        let sql = "SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname = 'crm_kv'";
        let text = server().answer(database, sql).unwrap();
        text.parse().unwrap_or_else(|_| panic!("not a number: {text}"))
    };
    // One session, so the calls below reuse what it prepared.
    let store = PostgresStore::connect(&url, 1).unwrap();
    let ns = Namespace::org("a");
    let put = |k: &str| BatchOp::Put(k.as_bytes().to_vec(), b"v".to_vec());
    let delete = |k: &str| BatchOp::Delete(k.as_bytes().to_vec());
    let keys = |ks: &[&str]| ks.iter().map(|k| k.as_bytes().to_vec()).collect::<Vec<_>>();
    let touch_sets = |round: usize| {
        store.batch(&ns, vec![put(&format!("x/{round}")), put("y"), delete("z"), delete("w")]).unwrap();
        store.get_many(&ns, &keys(&["x/0", "y"])).unwrap();
        let unset = Condition::Equals(format!("absent/{round}").into_bytes(), None);
        assert!(store.batch_if(&ns, vec![unset], vec![put(&format!("absent/{round}")), put("y")]).unwrap());
    };
    // PostgreSQL switches to a generic plan after five runs of a statement.
    for round in 0..8 {
        touch_sets(round);
    }
    for chunk in 0..30 {
        let rows = (0..1000).map(|i| put(&format!("k/{chunk}/{i}"))).collect();
        store.batch(&ns, rows).unwrap();
    }
    // The session's statistics reach the server a second after it goes
    // idle, later on a loaded machine: read once they stay the same.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut before = index_entries_read();
    loop {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let now = index_entries_read();
        if now == before || std::time::Instant::now() > until {
            break;
        }
        before = now;
    }
    for round in 100..120 {
        touch_sets(round);
    }
    drop(store); // a session's statistics are flushed as it ends
    let gone = "SELECT count(*) FROM pg_stat_activity WHERE datname = 'grown'";
    while server().answer("postgres", gone).unwrap() != "0" {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let read = index_entries_read() - before;
    // 20 rounds of about a dozen keys each; reading the namespace would be 30,000 a call.
    assert!(read < 2_000, "{read} index entries read for 20 rounds of a few keys");
}

/// The store remembers which counters it made sure exist; a dropped
/// namespace's counters are counted again from nothing, under their bound.
#[test]
fn counters_of_a_dropped_namespace_start_over() {
    use crm_store::{BatchOp, Condition, Namespace};

    let store = PostgresStore::connect(&fresh_database(), 2).unwrap();
    let ns = Namespace::org("dropped");
    let add = || vec![BatchOp::Add(b"count".to_vec(), 1)];
    let below_two = || vec![Condition::Below(b"count".to_vec(), 2)];
    for _ in 0..2 {
        assert!(store.batch_if(&ns, below_two(), add()).unwrap());
    }
    assert!(!store.batch_if(&ns, below_two(), add()).unwrap(), "the bound holds");
    store.drop_namespace(&ns).unwrap();
    assert_eq!(store.get(&ns, b"count").unwrap(), None);
    assert!(store.batch_if(&ns, below_two(), add()).unwrap());
    assert_eq!(crm_store::counter_value(store.get(&ns, b"count").unwrap().as_deref()), 1);
}
