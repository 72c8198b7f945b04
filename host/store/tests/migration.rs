//! A sled store moved to fjall while it serves (`crm_store::migrate`): the
//! store contract holds meanwhile, and writes made during the copy, of
//! every kind, are in fjall as sled held them when it switches; an
//! interrupted migration is undone or finished at the next open.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crm_store::combine::CommitWindow;
use crm_store::embedded::{self, Engine};
use crm_store::migrate::Migration;
use crm_store::{BatchOp, Condition, FjallStore, Namespace, SledStore, Store, counter_value};

const CACHE: u64 = 32 << 20;

/// How long a test waits for what the migration's own thread does (which
/// rests after each page): far more than it takes on a loaded machine.
const DEADLINE: Duration = Duration::from_secs(60);

/// Waits until `done` holds, at most [`DEADLINE`]; panics with `what` if not.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let waited = Instant::now();
    while !done() {
        assert!(waited.elapsed() < DEADLINE, "{what} after {DEADLINE:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until no sled store is open in `dir` (a dropped one closes at
/// once, but a migration's thread may still hold it).
fn sled_closed(dir: &Path) {
    wait_until("sled is still open", || !Engine::Sled.in_use(dir));
}

/// Waits until a migration in `dir` has ended: sled's folder and the
/// marker removed (in that order), and fjall closed once `store` (the
/// migration's, which its thread holds until then) is dropped.
fn migration_ended(dir: &Path, store: Arc<dyn Store>) {
    wait_until("the migration did not remove sled's folder and the marker", || {
        !Engine::Sled.dir(dir).exists() && !dir.join("migration").exists()
    });
    drop(store);
    wait_until("fjall is still open", || !Engine::Fjall.in_use(dir));
}

/// sled in `dir`, once the last one opened there has closed.
fn sled(dir: &Path) -> SledStore {
    sled_closed(dir);
    SledStore::open_with(&Engine::Sled.dir(dir), CACHE, CommitWindow::default()).unwrap()
}

/// Writes `value` under `key` of organization `a` on sled, and closes it.
fn on_sled(dir: &Path, key: &[u8], value: &[u8]) {
    sled(dir).put(&Namespace::org("a"), key, value).unwrap();
    sled_closed(dir);
}

fn fjall(dir: &Path) -> FjallStore {
    FjallStore::open_with(&Engine::Fjall.dir(dir), CACHE, CommitWindow::default()).unwrap()
}

/// A migration whose copy never starts: every call goes through sled and
/// its mirror, the state a host serves in while the copy runs.
fn copying() -> (tempfile::TempDir, Arc<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let migration = Migration::new(dir.path(), sled(dir.path()), fjall(dir.path()));
    (dir, Arc::new(migration))
}

crm_store_testkit::store_contract!(copying());

/// Writer `t`'s keys, and what it expects each to hold at the end.
type Model = BTreeMap<(String, Vec<u8>), Option<Vec<u8>>>;

#[test]
fn writes_during_the_copy_are_in_fjall_as_sled_held_them_at_the_switch() {
    const KEYS: u32 = 20_000;
    const WRITERS: u32 = 4;
    let dir = tempfile::tempdir().unwrap();
    let namespaces = [Namespace::org("a"), Namespace::org("b"), Namespace::system()];
    let mut model = Model::new();
    {
        let before = sled(dir.path());
        for ns in &namespaces {
            let ops = (0..KEYS).map(|i| BatchOp::Put(key(i), format!("v{i}").into_bytes()));
            before.batch(ns, ops.collect()).unwrap();
            for i in 0..KEYS {
                model.insert((ns.as_str().to_string(), key(i)), Some(format!("v{i}").into_bytes()));
            }
        }
    }
    let migration = Arc::new(Migration::new(dir.path(), sled(dir.path()), fjall(dir.path())));
    let copy = {
        let migration = migration.clone();
        std::thread::spawn(move || migration.run())
    };
    let writers: Vec<_> = (0..WRITERS)
        .map(|t| {
            let (migration, namespaces) = (migration.clone(), namespaces.clone());
            std::thread::spawn(move || {
                let mut mine = Model::new();
                let mut round = 0u32;
                while !migration.switched() || round < 200 {
                    for (n, ns) in namespaces.iter().enumerate() {
                        // Each writer its own keys: i ≡ t (mod WRITERS), across the whole range.
                        let i = (round * 7919 + n as u32 * 104_729) % (KEYS / WRITERS) * WRITERS + t;
                        let value = format!("w{t}r{round}").into_bytes();
                        match round % 4 {
                            0 => migration.put(ns, &key(i), &value).unwrap(),
                            1 => migration.delete(ns, &key(i)).unwrap(),
                            2 => {
                                let ops = vec![BatchOp::Put(key(i), value.clone()), BatchOp::Add(counter(t), 1)];
                                assert!(
                                    migration.batch_if(ns, vec![Condition::Below(counter(t), 1 << 40)], ops).unwrap()
                                );
                            }
                            _ => migration.batch(ns, vec![BatchOp::Put(key(i), value.clone())]).unwrap(),
                        }
                        let expected = (round % 4 != 1).then_some(value);
                        assert_eq!(migration.get(ns, &key(i)).unwrap(), expected, "a write not read back");
                        mine.insert((ns.as_str().to_string(), key(i)), expected);
                        if round % 4 == 2 {
                            let adds = mine.entry((ns.as_str().to_string(), counter(t))).or_insert(None);
                            let count = adds.as_ref().map_or(0, |v| counter_value(Some(v))) + 1;
                            *adds = Some(count.to_string().into_bytes());
                        }
                    }
                    round += 1;
                }
                mine
            })
        })
        .collect();
    for writer in writers {
        model.extend(writer.join().unwrap());
    }
    copy.join().unwrap();
    assert!(migration.switched());
    for ns in &namespaces {
        let stored: Model = migration
            .scan(ns, b"", None, usize::MAX)
            .unwrap()
            .into_iter()
            .map(|(k, v)| ((ns.as_str().to_string(), k), Some(v)))
            .collect();
        let mut expected: Model = model
            .iter()
            .filter(|((n, _), v)| n == ns.as_str() && v.is_some())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // Counters are stored in the engine's own encoding: compare their values.
        for t in 0..WRITERS {
            let at = (ns.as_str().to_string(), counter(t));
            if let Some(Some(count)) = expected.remove(&at) {
                let found = stored.get(&at).cloned().flatten();
                assert_eq!(counter_value(found.as_deref()).to_string().into_bytes(), count, "counter {t} of {ns:?}");
            }
        }
        let stored: Model = stored.into_iter().filter(|((_, k), _)| !k.starts_with(b"count/")).collect();
        assert_eq!(stored.len(), expected.len(), "keys of {ns:?} after the switch");
        assert!(stored == expected, "a value of {ns:?} differs from what sled held");
    }
    // sled's folder and the marker go once sled has closed.
    wait_until("sled's folder or the marker is still there", || {
        !Engine::Sled.dir(dir.path()).exists() && !dir.path().join("migration").exists()
    });
}

fn key(i: u32) -> Vec<u8> {
    format!("k/{i:06}").into_bytes()
}

fn counter(t: u32) -> Vec<u8> {
    format!("count/{t}").into_bytes()
}

#[test]
fn a_migration_that_stopped_begins_again_and_one_that_switched_keeps_fjall() {
    let dir = tempfile::tempdir().unwrap();
    on_sled(dir.path(), b"k", b"sled");
    // Stopped while copying: fjall holds a partial copy, the marker says so.
    std::fs::write(dir.path().join("migration"), "copying").unwrap();
    fjall(dir.path()).put(&Namespace::org("a"), b"partial", b"x").unwrap();
    let store = embedded::open_data_dir(dir.path(), None, Some(32), CommitWindow::default()).unwrap();
    assert_eq!(store.get(&Namespace::org("a"), b"k").unwrap(), Some(b"sled".to_vec()));
    assert_eq!(store.get(&Namespace::org("a"), b"partial").unwrap(), None, "the partial copy was removed");
    migration_ended(dir.path(), store);
    let reopened = embedded::open_data_dir(dir.path(), None, Some(32), CommitWindow::default()).unwrap();
    assert_eq!(reopened.get(&Namespace::org("a"), b"k").unwrap(), Some(b"sled".to_vec()), "moved to fjall");
    assert_eq!(Engine::found_in(dir.path()), Some(Engine::Fjall));
    drop(reopened);

    // Switched, then stopped before sled's folder was removed: fjall is the store.
    on_sled(dir.path(), b"k", b"stale");
    std::fs::write(dir.path().join("migration"), "done").unwrap();
    let store = embedded::open_data_dir(dir.path(), None, Some(32), CommitWindow::default()).unwrap();
    assert_eq!(
        store.get(&Namespace::org("a"), b"k").unwrap(),
        Some(b"sled".to_vec()),
        "fjall's, not sled's stale copy"
    );
    assert!(!Engine::Sled.dir(dir.path()).exists());
}

#[test]
fn a_data_dir_holding_both_engines_without_a_migration_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    on_sled(dir.path(), b"k", b"v");
    drop(fjall(dir.path()));
    let refused = embedded::open_data_dir(dir.path(), None, Some(32), CommitWindow::default()).err();
    let refused = refused.expect("refused").to_string();
    assert!(refused.contains("holds both a sled store and a fjall one"), "{refused}");
}

#[test]
fn a_host_told_to_keep_sled_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    on_sled(dir.path(), b"k", b"v");
    let store = embedded::open_data_dir(dir.path(), Some(Engine::Sled), Some(32), CommitWindow::default()).unwrap();
    assert_eq!(store.get(&Namespace::org("a"), b"k").unwrap(), Some(b"v".to_vec()));
    assert!(!Engine::Fjall.dir(dir.path()).exists(), "no migration");
}

/// The copy holds a lock each write's mirror waits on, and sled's, which a
/// transaction waits on: it must not sit on them while the cores are busy.
/// At the lowest CPU priority it did (in CI a create waited 6.8 s behind it,
/// past its deadline; here, the slowest of these writes waited 2.4 to 9.2
/// s). Paced at the normal priority, a create's commit made while spinning
/// threads take every core waits a page's turn at most (the slowest 70 to
/// 110 ms, beside this file's other tests).
#[test]
fn writes_during_the_copy_are_not_held_behind_it_while_every_core_is_busy() {
    const KEYS: u32 = 30_000;
    let dir = tempfile::tempdir().unwrap();
    let ns = Namespace::org("a");
    {
        let before = sled(dir.path());
        let value = vec![b'v'; 400];
        before.batch(&ns, (0..KEYS).map(|i| BatchOp::Put(key(i), value.clone())).collect()).unwrap();
    }
    let migration = Arc::new(Migration::new(dir.path(), sled(dir.path()), fjall(dir.path())));
    let busy = Arc::new(AtomicBool::new(true));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let spinning: Vec<_> = (0..cores + 1)
        .map(|_| {
            let busy = busy.clone();
            std::thread::spawn(move || {
                while busy.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        })
        .collect();
    let copy = {
        let migration = migration.clone();
        std::thread::spawn(move || migration.run())
    };
    let mut waits = vec![];
    while !migration.switched() {
        let started = Instant::now();
        // A create's commit: a conditional batch, which sled runs as a transaction.
        let ops = vec![BatchOp::Put(key(waits.len() as u32 % KEYS), b"during".to_vec()), BatchOp::Add(counter(0), 1)];
        assert!(migration.batch_if(&ns, vec![Condition::Below(counter(0), 1 << 40)], ops).unwrap());
        waits.push(started.elapsed());
        std::thread::sleep(Duration::from_millis(2));
    }
    busy.store(false, Ordering::Relaxed);
    spinning.into_iter().for_each(|s| s.join().unwrap());
    copy.join().unwrap();
    assert!(waits.len() >= 100, "the copy ended after {} writes", waits.len());
    let slowest = waits.iter().copied().max().unwrap_or_default();
    assert!(slowest < Duration::from_secs(1), "of {} writes, one waited {slowest:?} behind the copy", waits.len());
}
