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

/// A disk that fills inside a journal entry leaves its header half written
/// and the rest of fjall's preallocated file zeros: the next open discards
/// that last batch and keeps every one before it. (Found by the disk-full
/// test: fjall 3.1's debug builds asserted on such a header and panicked.)
#[test]
fn a_journal_torn_inside_an_entry_header_opens_with_every_batch_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let ns = crm_store::Namespace::org("torn");
    {
        let store = open_in(dir.path().to_str().unwrap()).unwrap();
        for i in 0..10u32 {
            store.put(&ns, &i.to_be_bytes(), b"acknowledged").unwrap();
        }
    }
    tear_the_journal_tail(dir.path());
    let store = open_in(dir.path().to_str().unwrap()).expect("a torn tail is discarded, not fatal");
    assert_eq!(store.scan(&ns, b"", None, 100).unwrap().len(), 10);
    store.put(&ns, b"after", b"v").unwrap();
}

/// Appends to the newest journal, where its written part ends, a batch
/// start and an item header cut after its value length, as a write stopped
/// by a full disk leaves them.
fn tear_the_journal_tail(data_dir: &Path) {
    use std::io::{Seek, SeekFrom, Write};
    let journal = newest_journal(data_dir);
    let bytes = std::fs::read(&journal).unwrap();
    let end = bytes.iter().rposition(|b| *b != 0).expect("a journal with batches") + 1;
    let mut torn = vec![1u8];
    torn.extend(1u32.to_le_bytes()); // a batch of one item
    torn.extend(u64::MAX.to_le_bytes()); // its seqno
    torn.extend([2u8, 0, 0]); // an item, a value, uncompressed
    torn.extend(0u64.to_le_bytes()); // keyspace
    torn.extend(3u16.to_le_bytes()); // key length
    torn.extend(24u32.to_le_bytes()); // value length; the rest is zeros
    let mut file = std::fs::OpenOptions::new().write(true).open(&journal).unwrap();
    file.seek(SeekFrom::Start(end as u64)).unwrap();
    file.write_all(&torn).unwrap();
}

fn newest_journal(data_dir: &Path) -> std::path::PathBuf {
    let mut journals: Vec<_> =
        walk(data_dir).into_iter().filter(|p| p.extension().is_some_and(|e| e == "jnl")).collect();
    journals.sort_by_key(|p| p.file_stem().and_then(|s| s.to_str()?.parse::<u64>().ok()));
    journals.pop().unwrap_or_else(|| panic!("no journal under {}: {:?}", data_dir.display(), walk(data_dir)))
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .flat_map(|e| if e.path().is_dir() { walk(&e.path()) } else { vec![e.path()] })
        .collect()
}
