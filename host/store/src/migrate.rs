//! A sled data dir moved to fjall while the host serves it: an old data dir
//! gets the compact engine without a stop, a `store copy`, or a moment when
//! reads are wrong.
//!
//! [`Migration`] is the store such a host runs on. Until the copy ends, sled
//! is the store: every read goes to it, and every write is made there first
//! and then *mirrored*: each key it touched is read back from sled and
//! written to fjall as sled now holds it (counters included), or deleted.
//! Meanwhile a thread copies every namespace, a page of keys at a time, from
//! sled to fjall. Mirrors and pages take turns on one lock, and a page reads
//! sled under it, so whichever of a page and a write's mirror comes last
//! writes what sled holds at its end: fjall never keeps a value sled no
//! longer has.
//!
//! The copy yields the cores to requests by pacing, not by priority: after
//! each page it rests as long as the page took. A thread at the lowest
//! priority holding a lock while the cores are busy keeps it for seconds,
//! and every write waiting on it with it; the copy holds two (this turn, and
//! sled's own, which its reads take and a transaction waits on). In CI a
//! create waited 6.8 s behind such a copy, past its deadline.
//!
//! When the copy ends, the switch waits for writes in flight (they hold
//! [`Migration::gate`] shared), syncs fjall, writes `migration` in the data
//! dir as `done`, and from then on everything goes to fjall. sled is closed
//! once no call uses it, and its folder removed. A crash before `done` left
//! sled whole: the next start removes fjall's partial copy and begins again.
//! A crash after it leaves fjall whole: the next start removes sled's folder.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::engines::Engine;
use crate::{
    BatchOp, Condition, Conflict, FjallStore, KeyValue, Namespace, Pairs, SledStore, Store, StoreError, StoreResult,
    combine,
};

/// The file in the data dir that says how far a migration got.
const MARKER: &str = "migration";
const COPYING: &str = "copying";
const DONE: &str = "done";

/// Keys copied per turn on the mirror lock.
const PAGE: usize = 500;

/// How long the copy rests after a page, as a share of the page's time: at
/// 1 it takes at most half a core.
const REST_PER_PAGE: f64 = 1.0;

/// Whether `data_dir` holds a sled store a migration may move to fjall.
pub fn wanted(data_dir: &Path) -> bool {
    Engine::Sled.dir(data_dir).exists()
}

/// Finishes what a migration that stopped left in `data_dir`: after
/// `done`, sled's folder is removed; before it, fjall's partial copy is.
/// What is already gone counts as removed: the migration's own thread
/// tidies too, once sled has closed, and may be a step ahead.
pub fn tidy(data_dir: &Path) -> StoreResult<()> {
    let marker = data_dir.join(MARKER);
    let Ok(state) = std::fs::read_to_string(&marker) else { return Ok(()) };
    let stale = match state.trim() {
        DONE => Engine::Sled.dir(data_dir),
        _ => Engine::Fjall.dir(data_dir),
    };
    let gone = |removed: std::io::Result<()>, path: &Path| match removed {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(StoreError::new(format!("cannot remove {}: {e}", path.display())))
        }
        _ => Ok(()),
    };
    gone(std::fs::remove_dir_all(&stale), &stale)?;
    gone(std::fs::remove_file(&marker), &marker)
}

/// Starts moving the sled store of `data_dir` to fjall; answers the store
/// the host serves from meanwhile (and after).
pub fn start(
    data_dir: &Path,
    sled: SledStore,
    open_fjall: impl FnOnce() -> StoreResult<FjallStore>,
) -> StoreResult<Arc<dyn Store>> {
    let fjall_dir = Engine::Fjall.dir(data_dir);
    if fjall_dir.exists() {
        // Not a copy of ours (its marker would have said so): a store
        // someone put there, which the copy would mix with sled's.
        return Err(StoreError::new(format!(
            "{} holds both a sled store and a fjall one ({}); remove the one not wanted",
            data_dir.display(),
            fjall_dir.display()
        )));
    }
    write_marker(data_dir, COPYING)?;
    let migration = Arc::new(Migration::new(data_dir, sled, open_fjall()?));
    let copying = migration.clone();
    std::thread::Builder::new()
        .name("sled-to-fjall".into())
        .spawn(move || copying.run())
        .map_err(|e| StoreError::new(format!("cannot start the migration: {e}")))?;
    Ok(migration)
}

/// Writes the marker and syncs it, and the data dir's entry for it.
fn write_marker(data_dir: &Path, state: &str) -> StoreResult<()> {
    let written = (|| {
        let path = data_dir.join(MARKER);
        std::fs::write(&path, state)?;
        std::fs::File::open(&path)?.sync_all()?;
        std::fs::File::open(data_dir)?.sync_all()
    })();
    written.map_err(|e| StoreError::new(format!("cannot write {}: {e}", data_dir.join(MARKER).display())))
}

/// What a conditional batch a caller waits on answers.
type Committed<'a> = Pin<Box<dyn Future<Output = StoreResult<bool>> + Send + 'a>>;

pub struct Migration {
    data_dir: PathBuf,
    /// sled, until the switch; then `None`, and closed once no call holds it.
    sled: RwLock<Option<Arc<SledStore>>>,
    fjall: Arc<FjallStore>,
    /// Held shared by every write from sled to its mirror, and whole by the switch.
    gate: RwLock<()>,
    /// Taken in turn by each mirror and each page of the copy.
    turn: Mutex<()>,
    /// Set by the switch: fjall is the store.
    switched: AtomicBool,
    /// Set when a write to fjall failed: the copy stops, sled stays the
    /// store, and the next start begins again.
    abandoned: AtomicBool,
}

impl Migration {
    /// A migration whose copy has not started ([`Migration::run`] does it).
    pub fn new(data_dir: &Path, sled: SledStore, fjall: FjallStore) -> Migration {
        Migration {
            data_dir: data_dir.to_path_buf(),
            sled: RwLock::new(Some(Arc::new(sled))),
            fjall: Arc::new(fjall),
            gate: RwLock::new(()),
            turn: Mutex::new(()),
            switched: AtomicBool::new(false),
            abandoned: AtomicBool::new(false),
        }
    }

    /// sled while it is the store, else `None`.
    fn sled(&self) -> Option<Arc<SledStore>> {
        match self.switched.load(Ordering::Acquire) {
            true => None,
            false => self.sled.read().expect("the sled slot").clone(),
        }
    }

    /// The store reads go to now.
    fn reads(&self) -> Arc<dyn Store> {
        match self.sled() {
            Some(sled) => sled,
            None => self.fjall.clone(),
        }
    }

    /// Makes a write through `write`, on fjall once switched, else on sled
    /// and then mirrored for the keys it may have touched.
    fn write<T>(
        &self,
        ns: &Namespace,
        keys: &[&[u8]],
        write: impl FnOnce(&dyn Store) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let _writing = self.gate.read().expect("the gate");
        let Some(sled) = self.sled() else { return write(&*self.fjall) };
        let answer = write(&*sled)?;
        self.mirror(&sled, ns, keys);
        Ok(answer)
    }

    /// [`Migration::write`] of a batch: the keys it may touch are its ops'.
    fn write_batch<T>(
        &self,
        ns: &Namespace,
        ops: Vec<BatchOp>,
        write: impl FnOnce(&dyn Store, Vec<BatchOp>) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let keys: Vec<Vec<u8>> = ops.iter().map(|op| op.key().to_vec()).collect();
        let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        self.write(ns, &keys, |store| write(store, ops))
    }

    /// A conditional batch its caller waits on: through fjall's own path
    /// (`on_fjall`, its combined commits) once switched; before, alone, as
    /// each must be mirrored.
    fn waited_on<'a>(
        &'a self,
        ns: Namespace,
        conditions: Vec<Condition>,
        ops: Vec<BatchOp>,
        on_fjall: impl FnOnce(&'a FjallStore, Namespace, Vec<Condition>, Vec<BatchOp>) -> Committed<'a>,
    ) -> Committed<'a> {
        match self.switched() {
            true => on_fjall(&self.fjall, ns, conditions, ops),
            false => Box::pin(std::future::ready(self.batch_if(&ns, conditions, ops))),
        }
    }

    /// Writes to fjall what sled holds now under `keys`.
    fn mirror(&self, sled: &SledStore, ns: &Namespace, keys: &[&[u8]]) {
        if self.abandoned.load(Ordering::Acquire) {
            return;
        }
        let _turn = self.turn.lock().expect("the mirror's turn");
        let mirrored = (|| {
            let ops = keys
                .iter()
                .map(|key| {
                    Ok(match sled.get(ns, key)? {
                        Some(value) => BatchOp::Put(key.to_vec(), value),
                        None => BatchOp::Delete(key.to_vec()),
                    })
                })
                .collect::<StoreResult<Vec<_>>>()?;
            self.fjall.batch(ns, ops)
        })();
        if let Err(e) = mirrored {
            self.abandon(&e);
        }
    }

    fn abandon(&self, why: &StoreError) {
        if !self.abandoned.swap(true, Ordering::AcqRel) {
            tracing::error!(error = %why, "the move of the store from sled to fjall stopped; it starts again at the next start");
        }
    }

    /// The copy, then the switch; logs how it went.
    pub fn run(&self) {
        let started = Instant::now();
        tracing::info!(dir = %self.data_dir.display(), "moving the store from sled to fjall while serving");
        let copied = match self.copy() {
            Ok(copied) => copied,
            Err(e) => return self.abandon(&e),
        };
        if let Err(e) = self.switch() {
            return self.abandon(&e);
        }
        tracing::info!(keys = copied, seconds = started.elapsed().as_secs_f64(), "the store moved from sled to fjall");
        self.close_sled();
    }

    /// Copies every namespace sled holds; answers how many keys.
    fn copy(&self) -> StoreResult<u64> {
        let Some(sled) = self.sled() else { return Ok(0) };
        let mut copied = 0;
        for ns in sled.namespaces() {
            let mut pages = crate::range::pages(&*sled, &ns, PAGE);
            loop {
                if self.abandoned.load(Ordering::Acquire) {
                    return Err(StoreError::new("a mirror failed"));
                }
                let paging = Instant::now();
                {
                    // A page is read and written in one turn: no mirrored write between.
                    let _turn = self.turn.lock().expect("the copy's turn");
                    let Some(page) = pages.next().transpose()? else { break };
                    copied += page.len() as u64;
                    self.fjall.batch(&ns, page.into_iter().map(|(k, v)| BatchOp::Put(k, v)).collect())?;
                }
                std::thread::sleep(paging.elapsed().mul_f64(REST_PER_PAGE));
            }
        }
        Ok(copied)
    }

    /// Makes fjall the store: no write in flight, fjall on disk, then the marker.
    fn switch(&self) -> StoreResult<()> {
        let _no_writes = self.gate.write().expect("the gate");
        if self.abandoned.load(Ordering::Acquire) {
            return Err(StoreError::new("a mirror failed"));
        }
        self.fjall.sync()?;
        write_marker(&self.data_dir, DONE)?;
        self.switched.store(true, Ordering::Release);
        Ok(())
    }

    /// Closes sled once the calls that took it before the switch are done,
    /// then, once its threads have let its files go, removes its folder and
    /// the marker.
    fn close_sled(&self) {
        let Some(sled) = self.sled.write().expect("the sled slot").take() else { return };
        // Switched and taken from its slot: no call can take sled again, so
        // its count only falls.
        while Arc::strong_count(&sled) > 1 {
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(sled);
        let closing = Instant::now();
        while Engine::Sled.in_use(&self.data_dir) && closing.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(50));
        }
        if let Err(e) = tidy(&self.data_dir) {
            tracing::warn!(error = %e, "sled's folder is left; the next start removes it");
        }
    }

    /// Whether the switch happened.
    pub fn switched(&self) -> bool {
        self.switched.load(Ordering::Acquire)
    }
}

impl Store for Migration {
    fn get(&self, ns: &Namespace, key: &[u8]) -> StoreResult<Option<Vec<u8>>> {
        self.reads().get(ns, key)
    }

    fn get_many(&self, ns: &Namespace, keys: &[Vec<u8>]) -> StoreResult<Vec<Option<Vec<u8>>>> {
        self.reads().get_many(ns, keys)
    }

    fn put(&self, ns: &Namespace, key: &[u8], value: &[u8]) -> StoreResult<()> {
        self.write(ns, &[key], |store| store.put(ns, key, value))
    }

    fn delete(&self, ns: &Namespace, key: &[u8]) -> StoreResult<()> {
        self.write(ns, &[key], |store| store.delete(ns, key))
    }

    fn compare_and_swap(
        &self,
        ns: &Namespace,
        key: &[u8],
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> StoreResult<Result<(), Conflict>> {
        self.write(ns, &[key], |store| store.compare_and_swap(ns, key, expected, new))
    }

    fn scan(&self, ns: &Namespace, prefix: &[u8], start: Option<&[u8]>, limit: usize) -> StoreResult<Vec<KeyValue>> {
        self.reads().scan(ns, prefix, start, limit)
    }

    fn scan_reverse(
        &self,
        ns: &Namespace,
        prefix: &[u8],
        before: Option<&[u8]>,
        limit: usize,
    ) -> StoreResult<Vec<KeyValue>> {
        self.reads().scan_reverse(ns, prefix, before, limit)
    }

    fn find(&self, ns: &Namespace, prefix: &[u8], needle: &[u8], limit: usize) -> StoreResult<Vec<Vec<u8>>> {
        self.reads().find(ns, prefix, needle, limit)
    }

    fn count_found(&self, ns: &Namespace, prefix: &[u8], needle: &[u8]) -> StoreResult<u64> {
        self.reads().count_found(ns, prefix, needle)
    }

    fn batch(&self, ns: &Namespace, ops: Vec<BatchOp>) -> StoreResult<()> {
        self.write_batch(ns, ops, |store, ops| store.batch(ns, ops))
    }

    fn batch_if(&self, ns: &Namespace, conditions: Vec<Condition>, ops: Vec<BatchOp>) -> StoreResult<bool> {
        self.write_batch(ns, ops, |store, ops| store.batch_if(ns, conditions, ops))
    }

    fn batch_if_shared(&self, ns: Namespace, conditions: Vec<Condition>, ops: Vec<BatchOp>) -> Committed<'_> {
        self.waited_on(ns, conditions, ops, |fjall, ns, conditions, ops| fjall.batch_if_shared(ns, conditions, ops))
    }

    fn batch_if_background(&self, ns: Namespace, conditions: Vec<Condition>, ops: Vec<BatchOp>) -> Committed<'_> {
        self.waited_on(ns, conditions, ops, |fjall, ns, conditions, ops| fjall.batch_if_background(ns, conditions, ops))
    }

    fn combiner(&self) -> Option<&combine::Combiner> {
        None
    }

    fn drop_namespace(&self, ns: &Namespace) -> StoreResult<()> {
        let _writing = self.gate.read().expect("the gate");
        let Some(sled) = self.sled() else { return self.fjall.drop_namespace(ns) };
        sled.drop_namespace(ns)?;
        let _turn = self.turn.lock().expect("the mirror's turn");
        if let Err(e) = self.fjall.drop_namespace(ns) {
            self.abandon(&e);
        }
        Ok(())
    }

    /// sled's flush while it is the store (a write acknowledged then is
    /// in fjall too before the switch syncs it); fjall's after.
    fn durable(&self) -> Pin<Box<dyn Future<Output = StoreResult<()>> + Send + '_>> {
        match self.sled() {
            Some(sled) => Box::pin(async move { sled.durable().await }),
            None => self.fjall.durable(),
        }
    }

    fn lasting_failure(&self) -> Option<String> {
        match self.sled() {
            Some(sled) => sled.lasting_failure(),
            None => self.fjall.lasting_failure(),
        }
    }

    /// None until the switch: sled cannot read one instant while it serves.
    fn snapshot(&self) -> Option<Pairs> {
        match self.switched() {
            true => self.fjall.snapshot(),
            false => None,
        }
    }
}
