//! The backend contract: the promises of [`Store`], written once and run
//! against every backend.
//!
//! A backend's test file calls [`store_contract!`](crate::store_contract) with
//! an expression that opens a fresh, empty store (and anything that must live as
//! long as it, such as a temporary folder); every promise becomes a test of its
//! own. Crash safety needs a process to kill: [`crate::crash`].
//!
//! Each check panics with a message naming the broken promise.

use std::sync::{Arc, Barrier};

use crm_store::{BatchOp, Condition, KeyValue, Namespace, Store, counter_value};

/// Generates one `#[test]` per promise for a backend.
///
/// `$open` is an expression returning `(guard, Arc<dyn Store>)`: a fresh,
/// empty store and whatever must outlive it.
#[macro_export]
macro_rules! store_contract {
    ($open:expr) => {
        $crate::store_contract!(@tests $open;
            namespaces_are_isolated,
            get_put_delete,
            get_many_answers_in_order,
            compare_and_swap_expects_the_current_value,
            compare_and_swap_has_one_winner,
            scans_are_ordered_and_bounded,
            reverse_scans_are_ordered_and_bounded,
            find_matches_values_under_a_prefix,
            count_found_counts_each_key_once,
            batches_apply_every_op,
            a_reader_never_sees_part_of_a_batch,
            conditional_batches_check_then_write,
            counters_under_a_bound_have_exact_winners,
            drop_namespace_drops_one_namespace,
            a_snapshot_reads_one_instant,
        );
        #[test]
        fn durable_resolves_after_writes() {
            let (_guard, store) = $open;
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on($crate::contract::durable_resolves_after_writes(store));
        }
        #[test]
        fn shared_batches_have_exact_winners() {
            let (_guard, store) = $open;
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(4)
                .enable_all()
                .build()
                .unwrap()
                .block_on($crate::contract::shared_batches_have_exact_winners(store));
        }
    };
    (@tests $open:expr; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let (_guard, store) = $open;
                $crate::contract::$name(&store);
            }
        )*
    };
}

fn keys(pairs: Vec<KeyValue>) -> Vec<String> {
    pairs.into_iter().map(|(k, _)| String::from_utf8(k).expect("test keys are text")).collect()
}

/// Tenancy of keys: one namespace never sees another's keys.
pub fn namespaces_are_isolated(s: &Arc<dyn Store>) {
    let (a, b) = (Namespace::org("a"), Namespace::org("b"));
    s.put(&a, b"k", b"1").unwrap();
    s.put(&a, b"k2", b"needle").unwrap();
    assert_eq!(s.get(&a, b"k").unwrap(), Some(b"1".to_vec()));
    assert_eq!(s.get(&b, b"k").unwrap(), None, "a key of namespace a was read through b");
    assert!(s.scan(&b, b"", None, 10).unwrap().is_empty(), "a scan of b saw a's keys");
    assert!(s.scan_reverse(&b, b"", None, 10).unwrap().is_empty(), "a reverse scan of b saw a's keys");
    assert!(s.find(&b, b"", b"needle", 10).unwrap().is_empty(), "a find in b saw a's values");
    assert!(s.get(&Namespace::system(), b"k").unwrap().is_none());
    // `org/a` must not be a prefix that reaches `org/ab`.
    s.put(&Namespace::org("ab"), b"k", b"2").unwrap();
    assert_eq!(keys(s.scan(&a, b"", None, 10).unwrap()), ["k", "k2"]);
}

pub fn get_put_delete(s: &Arc<dyn Store>) {
    let ns = Namespace::org("a");
    assert_eq!(s.get(&ns, b"k").unwrap(), None);
    s.put(&ns, b"k", b"1").unwrap();
    s.put(&ns, b"k", b"2").unwrap();
    assert_eq!(s.get(&ns, b"k").unwrap(), Some(b"2".to_vec()));
    s.delete(&ns, b"k").unwrap();
    assert_eq!(s.get(&ns, b"k").unwrap(), None);
    s.delete(&ns, b"never-there").unwrap();
    let binary = [0u8, 255, 1, 254];
    s.put(&ns, &binary, &binary).unwrap();
    assert_eq!(s.get(&ns, &binary).unwrap(), Some(binary.to_vec()));
}

pub fn get_many_answers_in_order(s: &Arc<dyn Store>) {
    let ns = Namespace::org("a");
    s.put(&ns, b"k1", b"1").unwrap();
    s.put(&ns, b"k3", b"3").unwrap();
    s.put(&Namespace::org("b"), b"k2", b"other namespace").unwrap();
    let keys = [b"k3".to_vec(), b"k2".to_vec(), b"k1".to_vec(), b"k3".to_vec()];
    assert_eq!(s.get_many(&ns, &keys).unwrap(), [Some(b"3".to_vec()), None, Some(b"1".to_vec()), Some(b"3".to_vec())]);
    assert!(s.get_many(&ns, &[]).unwrap().is_empty());
}

pub fn compare_and_swap_expects_the_current_value(s: &Arc<dyn Store>) {
    let ns = Namespace::org("a");
    assert!(s.compare_and_swap(&ns, b"email", None, Some(b"c1")).unwrap().is_ok());
    assert_eq!(s.compare_and_swap(&ns, b"email", None, Some(b"c2")).unwrap(), Err(Some(b"c1".to_vec())));
    assert_eq!(s.compare_and_swap(&ns, b"email", Some(b"zz"), Some(b"c2")).unwrap(), Err(Some(b"c1".to_vec())));
    assert!(s.compare_and_swap(&ns, b"email", Some(b"c1"), Some(b"c2")).unwrap().is_ok());
    assert_eq!(s.get(&ns, b"email").unwrap(), Some(b"c2".to_vec()));
    assert!(s.compare_and_swap(&ns, b"email", Some(b"c2"), None).unwrap().is_ok(), "a swap to None deletes");
    assert_eq!(s.get(&ns, b"email").unwrap(), None);
    assert_eq!(s.compare_and_swap(&ns, b"email", Some(b"c2"), Some(b"c3")).unwrap(), Err(None));
}

/// Many threads race to claim one key: exactly one wins, every loser sees the
/// winner's value.
pub fn compare_and_swap_has_one_winner(s: &Arc<dyn Store>) {
    const RACERS: usize = 16;
    for round in 0..20 {
        let key = format!("claim/{round}");
        let start = Arc::new(Barrier::new(RACERS));
        let racers: Vec<_> = (0..RACERS)
            .map(|i| {
                let (s, start, key) = (s.clone(), start.clone(), key.clone());
                std::thread::spawn(move || {
                    let mine = format!("racer-{i}").into_bytes();
                    start.wait();
                    s.compare_and_swap(&Namespace::org("a"), key.as_bytes(), None, Some(&mine)).unwrap()
                })
            })
            .collect();
        let outcomes: Vec<_> = racers.into_iter().map(|r| r.join().unwrap()).collect();
        assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 1, "round {round}: not exactly one winner");
        let stored = s.get(&Namespace::org("a"), key.as_bytes()).unwrap().expect("the winner's value is stored");
        for lost in outcomes.iter().filter_map(|o| o.as_ref().err()) {
            assert_eq!(lost.as_deref(), Some(stored.as_slice()), "a loser saw another value than the winner's");
        }
    }
}

fn put_keys(s: &Arc<dyn Store>, ns: &Namespace, names: &[&str]) {
    for k in names {
        s.put(ns, k.as_bytes(), k.as_bytes()).unwrap();
    }
}

pub fn scans_are_ordered_and_bounded(s: &Arc<dyn Store>) {
    let ns = Namespace::org("a");
    put_keys(s, &ns, &["a/3", "a/1", "b/1", "a/2", "a", "a/10"]);
    assert_eq!(keys(s.scan(&ns, b"a/", None, 10).unwrap()), ["a/1", "a/10", "a/2", "a/3"]);
    assert_eq!(keys(s.scan(&ns, b"a/", None, 2).unwrap()), ["a/1", "a/10"]);
    assert_eq!(keys(s.scan(&ns, b"a/", Some(b"a/2"), 10).unwrap()), ["a/2", "a/3"], "start is inclusive");
    assert_eq!(keys(s.scan(&ns, b"a/", Some(b"a/"), 1).unwrap()), ["a/1"]);
    assert!(s.scan(&ns, b"a/", Some(b"b"), 10).unwrap().is_empty(), "a start past the prefix finds nothing");
    assert_eq!(keys(s.scan(&ns, b"a/", Some(b"0"), 1).unwrap()), ["a/1"], "a start before the prefix starts at it");
    assert!(s.scan(&ns, b"c/", None, 10).unwrap().is_empty());
    let (_, v) = &s.scan(&ns, b"b/", None, 1).unwrap()[0];
    assert_eq!(v, b"b/1", "scans return values");
}

pub fn reverse_scans_are_ordered_and_bounded(s: &Arc<dyn Store>) {
    let ns = Namespace::org("a");
    put_keys(s, &ns, &["a/1", "a/2", "a/3", "b/1", "a"]);
    assert_eq!(keys(s.scan_reverse(&ns, b"a/", None, 10).unwrap()), ["a/3", "a/2", "a/1"]);
    assert_eq!(keys(s.scan_reverse(&ns, b"a/", None, 2).unwrap()), ["a/3", "a/2"]);
    assert_eq!(keys(s.scan_reverse(&ns, b"a/", Some(b"a/3"), 10).unwrap()), ["a/2", "a/1"], "before is exclusive");
    assert_eq!(keys(s.scan_reverse(&ns, b"a/", Some(b"zzz"), 1).unwrap()), ["a/3"]);
    assert!(s.scan_reverse(&ns, b"a/", Some(b"a/"), 10).unwrap().is_empty());
    assert!(s.scan_reverse(&ns, b"a/", Some(b"0"), 10).unwrap().is_empty());
}

pub fn find_matches_values_under_a_prefix(s: &Arc<dyn Store>) {
    let ns = Namespace::org("a");
    s.put(&ns, b"a/1", b"hay").unwrap();
    s.put(&ns, b"a/2", b"hay needle hay").unwrap();
    s.put(&ns, b"a/3", b"needle").unwrap();
    s.put(&ns, b"b/1", b"needle").unwrap();
    let found: Vec<Vec<u8>> = s.find(&ns, b"a/", b"needle", 10).unwrap();
    assert_eq!(found, [b"a/2".to_vec(), b"a/3".to_vec()]);
    assert_eq!(s.find(&ns, b"a/", b"needle", 1).unwrap(), [b"a/2".to_vec()]);
    assert!(s.find(&ns, b"a/", b"absent", 10).unwrap().is_empty());
    assert_eq!(s.count_found(&ns, b"a/", b"needle").unwrap(), 2, "b/1 is outside the prefix");
    assert_eq!(s.count_found(&ns, b"a/", b"hay").unwrap(), 2);
    assert_eq!(s.count_found(&ns, b"a/", b"absent").unwrap(), 0);
    assert_eq!(s.count_found(&Namespace::org("b"), b"a/", b"needle").unwrap(), 0, "another namespace");
}

/// A count over many keys (which a backend may split into parts) counts each
/// key once: keys of every length, spread unevenly, at the prefix's edges.
pub fn count_found_counts_each_key_once(s: &Arc<dyn Store>) {
    let ns = Namespace::org("a");
    let mut ops: Vec<BatchOp> = (0..3000u32)
        .map(|i| {
            let key = format!("p/{:x}/{i}{}", i.wrapping_mul(2_654_435_761) >> (i % 20), "z".repeat(i as usize % 23));
            BatchOp::Put(key.into_bytes(), if i % 3 == 0 { b"a needle".to_vec() } else { b"hay".to_vec() })
        })
        .collect();
    ops.extend(
        [b"p/".to_vec(), b"p/\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff".to_vec()]
            .map(|k| BatchOp::Put(k, b"needle".to_vec())),
    );
    ops.extend([b"o/x".to_vec(), b"q/x".to_vec(), b"p".to_vec()].map(|k| BatchOp::Put(k, b"needle".to_vec())));
    s.batch(&ns, ops).unwrap();
    let keys: usize = s.scan(&ns, b"p/", None, 10_000).unwrap().len();
    let needles = s.find(&ns, b"p/", b"needle", 10_000).unwrap().len() as u64;
    assert_eq!((keys, needles), (3002, 1002), "distinct keys as written");
    assert_eq!(s.count_found(&ns, b"p/", b"needle").unwrap(), needles);
    assert_eq!(s.count_found(&ns, b"p/", b"hay").unwrap(), 2000);
    assert_eq!(s.count_found(&ns, b"p/", b"").unwrap(), 3002);
}

pub fn batches_apply_every_op(s: &Arc<dyn Store>) {
    let ns = Namespace::org("a");
    s.put(&ns, b"old", b"1").unwrap();
    s.batch(
        &ns,
        vec![
            BatchOp::Put(b"x".to_vec(), b"1".to_vec()),
            BatchOp::Put(b"y".to_vec(), b"2".to_vec()),
            BatchOp::Delete(b"old".to_vec()),
            BatchOp::Put(b"x".to_vec(), b"3".to_vec()),
        ],
    )
    .unwrap();
    assert_eq!(keys(s.scan(&ns, b"", None, 10).unwrap()), ["x", "y"]);
    assert_eq!(s.get(&ns, b"x").unwrap(), Some(b"3".to_vec()), "later ops of a batch win");
    s.batch(&ns, Vec::new()).unwrap();
}

/// A batch becomes visible whole: a reader on another thread, reading its
/// keys one at a time, never sees some of them written and others not. (A
/// contact's email claim seen without its record lets a create take the
/// claim as abandoned.) Each batch writes its number under many keys; a
/// key read later can only hold the same number or a newer one.
pub fn a_reader_never_sees_part_of_a_batch(s: &Arc<dyn Store>) {
    const KEYS: usize = 16;
    const BATCHES: u64 = 2_000;
    let ns = Namespace::org("a");
    let key = |k: usize| format!("k{k:02}").into_bytes();
    let writer = {
        let (s, ns) = (s.clone(), ns.clone());
        std::thread::spawn(move || {
            for n in 1..=BATCHES {
                let ops = (0..KEYS).map(|k| BatchOp::Put(key(k), n.to_be_bytes().to_vec())).collect();
                s.batch(&ns, ops).unwrap();
            }
        })
    };
    let number =
        |k: usize| -> u64 { s.get(&ns, &key(k)).unwrap().map_or(0, |v| u64::from_be_bytes(v.try_into().unwrap())) };
    let mut reads = 0u64;
    while !writer.is_finished() || reads == 0 {
        // Forwards and backwards: a backend that inserts a batch's keys in
        // any order is caught by one of the two.
        for order in [(0..KEYS).collect::<Vec<_>>(), (0..KEYS).rev().collect()] {
            let first = number(order[0]);
            for &k in &order[1..] {
                let later = number(k);
                assert!(later >= first, "key {k} held batch {later} after another key of batch {first} was read");
            }
            let scanned: Vec<Vec<u8>> = s.scan(&ns, b"k", None, KEYS).unwrap().into_iter().map(|(_, v)| v).collect();
            assert!(
                scanned.is_empty() || (scanned.len() == KEYS && scanned.iter().all(|v| *v == scanned[0])),
                "a scan saw part of a batch: {scanned:?}"
            );
        }
        reads += 1;
    }
    writer.join().unwrap();
}

pub fn conditional_batches_check_then_write(s: &Arc<dyn Store>) {
    let ns = Namespace::org("a");
    let put = |k: &str, v: &str| BatchOp::Put(k.as_bytes().to_vec(), v.as_bytes().to_vec());
    let equals = |k: &str, v: Option<&str>| Condition::Equals(k.as_bytes().to_vec(), v.map(|v| v.as_bytes().to_vec()));
    assert!(s.batch_if(&ns, vec![equals("claim", None)], vec![put("claim", "c1"), put("rec", "1")]).unwrap());
    assert!(
        !s.batch_if(&ns, vec![equals("claim", None)], vec![put("claim", "c2"), put("other", "x")]).unwrap(),
        "a batch whose condition failed was applied"
    );
    assert_eq!(s.get(&ns, b"claim").unwrap(), Some(b"c1".to_vec()));
    assert_eq!(s.get(&ns, b"other").unwrap(), None, "a failed conditional batch wrote");
    assert!(s.batch_if(&ns, vec![equals("claim", Some("c1"))], vec![BatchOp::Delete(b"claim".to_vec())]).unwrap());
    // Counters: absent is 0, adds accumulate, in plain and conditional batches.
    let add = |k: &str, n: i64| BatchOp::Add(k.as_bytes().to_vec(), n);
    s.batch(&ns, vec![add("n", 2), add("n", 3), put("r", "x")]).unwrap();
    assert_eq!(counter_value(s.get(&ns, b"n").unwrap().as_deref()), 5);
    assert!(!s.batch_if(&ns, vec![Condition::Below(b"n".to_vec(), 5)], vec![add("n", 1)]).unwrap());
    assert!(s.batch_if(&ns, vec![Condition::Below(b"n".to_vec(), 6)], vec![add("n", -6)]).unwrap());
    assert_eq!(counter_value(s.get(&ns, b"n").unwrap().as_deref()), -1);
    assert!(s.batch_if(&ns, vec![Condition::Below(b"absent".to_vec(), 1)], vec![]).unwrap(), "absent counts 0");
    // A counter first made by a batch that expects it absent.
    assert!(s.batch_if(&ns, vec![equals("fresh", None)], vec![add("fresh", 4)]).unwrap());
    assert_eq!(counter_value(s.get(&ns, b"fresh").unwrap().as_deref()), 4);
    assert!(!s.batch_if(&ns, vec![equals("fresh", None)], vec![add("fresh", 1)]).unwrap(), "it is there now");
}

/// Many threads add to one counter under a bound: exactly the bound's worth
/// succeed, and the counter equals the records written beside it.
pub fn counters_under_a_bound_have_exact_winners(s: &Arc<dyn Store>) {
    const THREADS: usize = 8;
    const BOUND: u64 = 50;
    let start = Arc::new(Barrier::new(THREADS));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (s, start) = (s.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                let mut won = 0;
                for i in 0..20 {
                    let ops = vec![
                        BatchOp::Add(b"count".to_vec(), 1),
                        BatchOp::Put(format!("rec/{t}/{i}").into_bytes(), Vec::new()),
                    ];
                    if s.batch_if(&Namespace::org("a"), vec![Condition::Below(b"count".to_vec(), BOUND)], ops).unwrap()
                    {
                        won += 1;
                    }
                }
                won
            })
        })
        .collect();
    let won: u64 = workers.into_iter().map(|w| w.join().unwrap()).sum();
    assert_eq!(won, BOUND, "not exactly {BOUND} adds won");
    let ns = Namespace::org("a");
    assert_eq!(counter_value(s.get(&ns, b"count").unwrap().as_deref()), BOUND as i64);
    assert_eq!(s.scan(&ns, b"rec/", None, 1000).unwrap().len() as u64, BOUND);
}

pub fn drop_namespace_drops_one_namespace(s: &Arc<dyn Store>) {
    let (a, b) = (Namespace::org("a"), Namespace::org("b"));
    put_keys(s, &a, &["x", "y"]);
    put_keys(s, &b, &["x"]);
    s.drop_namespace(&a).unwrap();
    assert_eq!(s.get(&a, b"x").unwrap(), None);
    assert!(s.scan(&a, b"", None, 10).unwrap().is_empty());
    assert_eq!(s.get(&b, b"x").unwrap(), Some(b"x".to_vec()), "dropping a took b's keys");
    s.put(&a, b"z", b"1").unwrap();
    assert_eq!(s.get(&a, b"z").unwrap(), Some(b"1".to_vec()), "a dropped namespace can be written again");
}

/// A snapshot, when the backend takes one, reads every namespace as it
/// stood when taken, whatever is written after; namespaces come whole, in
/// key order.
pub fn a_snapshot_reads_one_instant(s: &Arc<dyn Store>) {
    let (a, b) = (Namespace::org("a"), Namespace::org("b"));
    put_keys(s, &a, &["x", "y"]);
    put_keys(s, &b, &["x"]);
    s.put(&Namespace::system(), b"org/a", b"{}").unwrap();
    let Some(pairs) = s.snapshot() else { return };
    s.put(&a, b"new", b"after").unwrap();
    s.delete(&b, b"x").unwrap();
    s.put(&a, b"x", b"changed").unwrap();
    let read: Vec<(String, String, String)> = pairs
        .map(|pair| {
            let (ns, (k, v)) = pair.unwrap();
            let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
            (ns.as_str().to_string(), text(k), text(v))
        })
        .collect();
    let expected = [("org/a", "x", "x"), ("org/a", "y", "y"), ("org/b", "x", "x"), ("sys", "org/a", "{}")];
    let expected: Vec<_> = expected.iter().map(|(n, k, v)| (n.to_string(), k.to_string(), v.to_string())).collect();
    assert_eq!(read, expected, "the snapshot saw a write made after it");
}

pub async fn durable_resolves_after_writes(s: Arc<dyn Store>) {
    s.put(&Namespace::system(), b"k", b"v").unwrap();
    s.durable().await.unwrap();
    let waits: Vec<_> = (0..32u32)
        .map(|i| {
            let s = s.clone();
            tokio::spawn(async move {
                s.put(&Namespace::org("a"), &i.to_be_bytes(), b"v").unwrap();
                s.durable().await
            })
        })
        .collect();
    for w in waits {
        w.await.unwrap().unwrap();
    }
}

/// Many conditional batches through [`Store::batch_if_shared`] (as the
/// plugin runtime sends them) and [`Store::batch_if_background`] (as the
/// webhook worker does) at once: each still checks its conditions against
/// every batch applied before it. Of many claims of one absent key one wins;
/// adds under a bound win exactly the bound's worth; each batch lands whole.
pub async fn shared_batches_have_exact_winners(s: Arc<dyn Store>) {
    const TASKS: usize = 16;
    const BOUND: u64 = 50;
    let ns = Namespace::org("a");
    let tasks: Vec<_> = (0..TASKS)
        .map(|t| {
            let (s, ns) = (s.clone(), ns.clone());
            tokio::spawn(async move {
                let batch_if = |conditions, ops| match t % 2 {
                    0 => s.batch_if_shared(ns.clone(), conditions, ops),
                    _ => s.batch_if_background(ns.clone(), conditions, ops),
                };
                let claim = vec![Condition::Equals(b"claim".to_vec(), None)];
                let claimed = batch_if(claim, vec![put(b"claim", t)]).await.unwrap();
                let mut won = 0;
                for i in 0..10 {
                    let ops = vec![
                        BatchOp::Add(b"count".to_vec(), 1),
                        put(format!("rec/{t}/{i}").as_bytes(), t),
                        put(format!("mirror/{t}/{i}").as_bytes(), t),
                    ];
                    let bound = vec![Condition::Below(b"count".to_vec(), BOUND)];
                    won += u64::from(batch_if(bound, ops).await.unwrap());
                }
                (claimed, won)
            })
        })
        .collect();
    let (mut claims, mut won) = (0, 0);
    for task in tasks {
        let (claimed, w) = task.await.unwrap();
        claims += usize::from(claimed);
        won += w;
    }
    assert_eq!(claims, 1, "not exactly one claim of an absent key won");
    assert_eq!(won, BOUND, "not exactly {BOUND} adds under the bound won");
    assert_eq!(counter_value(s.get(&ns, b"count").unwrap().as_deref()), BOUND as i64);
    assert_eq!(s.scan(&ns, b"rec/", None, 1000).unwrap().len() as u64, BOUND, "records beside the count");
    assert_eq!(s.scan(&ns, b"mirror/", None, 1000).unwrap().len() as u64, BOUND, "a batch landed in part");
}

fn put(key: &[u8], task: usize) -> BatchOp {
    BatchOp::Put(key.to_vec(), task.to_string().into_bytes())
}
