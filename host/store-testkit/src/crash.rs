//! Crash safety: acknowledged writes survive `kill -9`, and batches land whole.
//!
//! A backend's test calls [`check`]. The process it kills is the test's own
//! executable, started again to run only that test with [`WRITER`] set:
//! there, [`check`] opens the store and writes until it is killed, printing
//! the number of each write once it is durable. Back in the test, the store
//! is opened again after each kill, and every acknowledged write must be in
//! it, every batch whole.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crm_store::{BatchOp, Namespace, Store, StoreResult, counter_value};

/// Set in the process [`check`] starts to write: `FIRST SPEC`.
pub const WRITER: &str = "CRM_STORE_CRASH_WRITER";

/// What the writer prints before its first write: the lines before it are
/// the test harness's own.
const WRITING: &str = "crash writer: writing";

/// The namespace the crash writer writes in.
fn namespace() -> Namespace {
    Namespace::org("crash")
}

/// What the writer writes for sequence number `i`: a record, its mirror
/// and a count of records, in one batch, so a torn batch shows as one
/// without the other or as a count off by one.
fn batch_for(i: u64) -> Vec<BatchOp> {
    let value = format!("value-{i}").into_bytes();
    vec![
        BatchOp::Put(format!("rec/{i:012}").into_bytes(), value.clone()),
        BatchOp::Put(format!("mirror/{i:012}").into_bytes(), value),
        BatchOp::Add(b"count".to_vec(), 1),
    ]
}

/// Writers of the crash writer at once: their batches share commits
/// where the backend combines them ([`Store::batch_if_shared`]).
const WRITERS: u64 = 4;

/// The crash writer's loop: writes [`batch_for`]`(i)` for i = `first`,
/// `first`+1, ... from [`WRITERS`] tasks (half through `batch`, half
/// through `batch_if_shared`), and prints each i once it is durable, until
/// killed.
async fn write_until_killed(store: Arc<dyn Store>, first: u64) {
    let out = Arc::new(std::sync::Mutex::new(std::io::stdout()));
    {
        use std::io::Write;
        let mut out = out.lock().expect("stdout");
        writeln!(out, "{WRITING}").and_then(|()| out.flush()).expect("stdout");
    }
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (store, out) = (store.clone(), out.clone());
            tokio::spawn(async move {
                use std::io::Write;
                for i in (first + w..).step_by(WRITERS as usize) {
                    if w % 2 == 0 {
                        store.batch(&namespace(), batch_for(i)).expect("batch");
                    } else {
                        assert!(store.batch_if_shared(namespace(), Vec::new(), batch_for(i)).await.expect("batch"));
                    }
                    store.durable().await.expect("durable");
                    let mut out = out.lock().expect("stdout");
                    writeln!(out, "{i}").and_then(|()| out.flush()).expect("stdout");
                }
            })
        })
        .collect();
    for writer in writers {
        writer.await.expect("a writer panicked");
    }
}

/// The crash test of a backend, run from a `#[test]` as its first and only
/// statement, `runs` times against one store.
///
/// In the test: `prepare` makes the store's place (a folder, a database)
/// and returns what must outlive the test and the `spec` naming it; then,
/// `runs` times, the writer is started, killed with `SIGKILL` after it has
/// acknowledged some writes, and `open(spec)` reopens the store, in which
/// every acknowledged write must be there, and every batch whole.
///
/// In the writer (this test again, in a process of its own): `writer(spec)`
/// opens the store as under load, tried again for up to 10 s (the checking
/// process may take a moment to release an embedded engine's lock), and
/// the writes go on until the kill. `prepare` is not called there.
pub fn check<G>(
    runs: usize,
    prepare: impl FnOnce() -> (G, String),
    writer: impl Fn(&str) -> StoreResult<Arc<dyn Store>>,
    open: impl Fn(&str) -> Arc<dyn Store>,
) {
    if let Ok(asked) = std::env::var(WRITER) {
        let (first, spec) = asked.split_once(' ').expect("FIRST SPEC");
        let first: u64 = first.parse().expect("FIRST is a number");
        let store = opened(|| writer(spec));
        let runtime = tokio::runtime::Runtime::new().expect("the writer's runtime");
        runtime.block_on(write_until_killed(store, first));
        unreachable!("the writer writes until it is killed");
    }
    // The test harness names a test's thread after the test: the writer runs that one alone.
    let test = std::thread::current().name().filter(|name| *name != "main").map(str::to_owned);
    let test = test.expect("crash::check runs in a #[test], on the thread the harness named after it");
    let (_guard, spec) = prepare();
    let mut next = 0u64;
    for run in 0..runs {
        let mut child = Command::new(std::env::current_exe().expect("the test's executable"))
            .args([&test, "--exact", "--include-ignored", "--nocapture", "--quiet", "--test-threads=1"])
            .env(WRITER, format!("{next} {spec}"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the crash writer");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        for line in lines.by_ref() {
            if line.expect("writer output").ends_with(WRITING) {
                break;
            }
        }
        // Kill at a different moment each run, well inside the write loop.
        let wanted = 200 + 150 * run;
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut acked = Vec::new();
        for line in lines.by_ref() {
            acked.push(line.expect("writer output").trim().parse::<u64>().expect("the writer prints numbers"));
            if acked.len() >= wanted || Instant::now() > deadline {
                break;
            }
        }
        child.kill().expect("kill -9 the writer");
        // Numbers printed after the kill decision were acknowledged too.
        acked.extend(lines.map_while(Result::ok).filter_map(|line| line.trim().parse::<u64>().ok()));
        child.wait().unwrap();
        assert!(!acked.is_empty(), "the writer acknowledged nothing before the kill");
        let store = open(&spec);
        let ns = namespace();
        for i in &acked {
            let rec = store.get(&ns, format!("rec/{i:012}").as_bytes()).unwrap();
            assert!(rec.is_some(), "run {run}: write {i} was acknowledged but lost");
        }
        let recs = store.scan(&ns, b"rec/", None, usize::MAX).unwrap();
        let mirrors = store.scan(&ns, b"mirror/", None, usize::MAX).unwrap();
        assert_eq!(recs.len(), mirrors.len(), "run {run}: a batch landed in part");
        let count = counter_value(store.get(&ns, b"count").unwrap().as_deref());
        assert_eq!(count, recs.len() as i64, "run {run}: the count is off after the crash");
        // Past every record, so that no write of the next run lands on one.
        let last = recs.last().map(|(k, _)| String::from_utf8_lossy(&k[4..]).parse::<u64>().unwrap());
        next = last.map_or(0, |n| n + 1);
        drop(store);
    }
}

/// The store `open` opens, tried again for up to 10 s.
fn opened(open: impl Fn() -> StoreResult<Arc<dyn Store>>) -> Arc<dyn Store> {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        match open() {
            Ok(store) => return store,
            Err(e) if Instant::now() > until => panic!("the crash writer cannot open its store: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}
