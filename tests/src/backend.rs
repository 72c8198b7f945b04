//! Which store the test hosts run on: the embedded store in their data dir
//! (the default engine, or sled with `CRM_TEST_STORE=sled`), or, with
//! `CRM_TEST_STORE=postgres`, a throw-away PostgreSQL server started once per
//! test process, one database per data dir (so a host restarted on the same
//! data dir finds its data, and tests never share one).

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::OnceLock;

use crm_store::combine::CommitWindow;
use crm_store::embedded::{self, Engine};
use crm_store_testkit::throwaway::Throwaway;

/// Whether this run's hosts use PostgreSQL.
pub fn is_postgres() -> bool {
    std::env::var("CRM_TEST_STORE").is_ok_and(|v| v == "postgres")
}

/// The embedded engine this run's hosts use (`CRM_TEST_STORE=sled` or
/// `fjall`; unset: the host's default).
pub fn embedded_engine() -> Option<Engine> {
    std::env::var("CRM_TEST_STORE").ok().and_then(|v| v.parse().ok())
}

/// The test process's PostgreSQL server, started on first use.
pub fn postgres() -> &'static Throwaway {
    static SERVER: OnceLock<Throwaway> = OnceLock::new();
    // Host crashes are what the tests cause; the server's own crash safety is
    // PostgreSQL's, so its fsync is spared. Many hosts at once: many connections.
    SERVER
        .get_or_init(|| Throwaway::start(&["fsync=off", "max_connections=500"]).expect("start a throw-away PostgreSQL"))
}

/// A database of its own on the test server, named after `label` (created
/// unless it exists): what hosts that share one store point at.
pub fn database(label: &str) -> String {
    let mut hasher = DefaultHasher::new();
    label.hash(&mut hasher);
    postgres().database(&format!("t_{:016x}", hasher.finish())).expect("create a test database")
}

/// The `--store-url` of a host on `data_dir`, when this run uses PostgreSQL.
pub fn store_url_for(data_dir: &Path) -> Option<String> {
    is_postgres().then(|| database(&data_dir.display().to_string()))
}

/// Runs `f` on the store of a stopped host's `data_dir`, as the host opened
/// it (the engine in the dir, or its PostgreSQL database), off the caller's
/// runtime (the PostgreSQL store runs its own); waits until the engine has
/// let go of its lock, so a host can start on the dir again.
pub fn with_store<R: Send + 'static>(
    data_dir: &Path,
    f: impl FnOnce(&dyn crm_store::Store) -> R + Send + 'static,
) -> R {
    let dir = data_dir.to_path_buf();
    let answer = std::thread::spawn(move || {
        let store: std::sync::Arc<dyn crm_store::Store> = match store_url_for(&dir) {
            Some(url) => std::sync::Arc::new(crm_store_postgres::PostgresStore::connect(&url, 1).unwrap()),
            None => {
                let engine = embedded::choose(&dir, embedded_engine()).unwrap();
                embedded::open(engine, &dir, 64 << 20, CommitWindow::default()).unwrap()
            }
        };
        let answer = f(store.as_ref());
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(store.durable()).unwrap();
        answer
    })
    .join()
    .unwrap();
    // The engine's own threads let go of its lock file a moment after the
    // store is dropped.
    let Some(engine) = Engine::found_in(data_dir) else { return answer };
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while engine.in_use(data_dir) {
        assert!(std::time::Instant::now() < until, "the store's lock is still held");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    answer
}
