//! What a combined commit costs in sled, two ways, alternated in one run:
//!
//! - `tx`: a sled transaction, as `commit_together` does. Its `insert` reads
//!   each key's old value first (sled returns it), so every write is two
//!   tree walks;
//! - `batch`: the same checks and counters read with plain `get`s under a
//!   lock of our own, then one `apply_batch`: one walk per write.
//!
//! Each request is a contact create's shape: three condition reads, three
//! counters, and 16 keys (a 900-byte record, a 600-byte read model, index
//! and search keys); six requests a commit, as the combiner gathers them
//! under load. No flush: the engine's work only.
//!
//! Run: `cargo run --release -p crm-store --example transaction_or_batch [commits a round]`;
//! `RECORD_BYTES=90` makes the record and read model a tenth of their size
//! (docs/bench-log/2026-11.md, "What a sled commit costs").

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

use sled::transaction::ConflictableTransactionError;

const REQUESTS_A_COMMIT: usize = 6;
const COUNTERS: [&str; 3] = ["meta/contacts", "meta/city/05001", "meta/state/05"];
const CONDITIONS: usize = 3;

/// The keys and values one create writes, its record `record_bytes` long.
fn writes(i: u64, record_bytes: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    let id = format!("{:024x}", i * 7919 + 13);
    let mut keys = vec![
        (format!("c/{id}").into_bytes(), vec![b'x'; record_bytes]),
        (format!("rm/{id}").into_bytes(), vec![b'y'; record_bytes * 2 / 3]),
        (format!("sum/{id}").into_bytes(), vec![b'z'; 100]),
        (format!("email/{id}@x.co").into_bytes(), id.clone().into_bytes()),
        (format!("ix/created/{i:016}/{id}").into_bytes(), Vec::new()),
        (format!("ix/updated/{i:016}/{id}").into_bytes(), Vec::new()),
        (format!("ix/city/05001/{i:016}/{id}").into_bytes(), Vec::new()),
        (format!("ix/state/05/{i:016}/{id}").into_bytes(), Vec::new()),
    ];
    keys.extend((0..8).map(|t| (format!("g/tr{t}{:06}{id}", i % 1000).into_bytes(), Vec::new())));
    keys
}

fn plus_one(before: Option<&[u8]>) -> Vec<u8> {
    let n = before.map_or(0, |b| u64::from_be_bytes(b.try_into().expect("8 bytes")));
    (n + 1).to_be_bytes().to_vec()
}

fn by_transaction(tree: &sled::Tree, requests: &[Vec<(Vec<u8>, Vec<u8>)>]) {
    tree.transaction(|tx| {
        for keys in requests {
            for (k, _) in keys.iter().take(CONDITIONS) {
                tx.get(k)?;
            }
            for c in COUNTERS {
                let before = tx.get(c)?;
                tx.insert(c, plus_one(before.as_deref()))?;
            }
            for (k, v) in keys {
                tx.insert(k.as_slice(), v.as_slice())?;
            }
        }
        Ok::<_, ConflictableTransactionError<()>>(())
    })
    .expect("the transaction commits");
}

fn by_batch(tree: &sled::Tree, lock: &Mutex<()>, requests: &[Vec<(Vec<u8>, Vec<u8>)>]) {
    let _writer = lock.lock().expect("lock");
    let mut pending: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    for keys in requests {
        for (k, _) in keys.iter().take(CONDITIONS) {
            tree.get(k).expect("get");
        }
        for c in COUNTERS {
            let before = match pending.get(c.as_bytes()) {
                Some(v) => Some(v.clone()),
                None => tree.get(c).expect("get").map(|v| v.to_vec()),
            };
            pending.insert(c.as_bytes().to_vec(), plus_one(before.as_deref()));
        }
        pending.extend(keys.iter().cloned());
    }
    let mut batch = sled::Batch::default();
    for (k, v) in pending {
        batch.insert(k, v);
    }
    tree.apply_batch(batch).expect("the batch applies");
}

fn main() {
    let commits: u64 = std::env::args().nth(1).map_or(5_000, |a| a.parse().expect("a number"));
    let record_bytes = std::env::var("RECORD_BYTES").map_or(900, |b| b.parse().expect("a number of bytes"));
    let dir = tempfile::tempdir().expect("temp dir");
    let db = sled::Config::new().path(dir.path()).flush_every_ms(None).open().expect("open sled");
    let tree = db.open_tree("org").expect("a tree");
    let lock = Mutex::new(());
    let mut next = 0u64;
    for round in 0..6 {
        for way in ["tx", "batch"] {
            let started = Instant::now();
            for _ in 0..commits {
                let requests: Vec<_> = (0..REQUESTS_A_COMMIT)
                    .map(|_| {
                        next += 1;
                        writes(next, record_bytes)
                    })
                    .collect();
                match way {
                    "tx" => by_transaction(&tree, &requests),
                    _ => by_batch(&tree, &lock, &requests),
                }
            }
            let per_request = started.elapsed().as_secs_f64() * 1e6 / (commits as f64 * REQUESTS_A_COMMIT as f64);
            println!("round {round} {way:5} {per_request:6.1} µs a request");
        }
    }
}
