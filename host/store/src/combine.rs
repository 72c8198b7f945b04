//! Commit combining: many requests' conditional batches, one engine commit.
//!
//! sled seals each transaction in its log on its own: it writes out the log
//! buffer before and after, two writes handed to its I/O threads. Under load
//! that was a third of the cost of a contact create (`docs/bench-log/2026-11.md`,
//! "Commit combining"). So a caller that can wait without holding anything
//! scarce ([`crate::Store::batch_if_shared`]) queues its batch instead, and
//! one combiner thread commits everything queued in one transaction per
//! namespace. Inside it each batch checks its conditions in queue order,
//! seeing the writes of the batches before it, and applies whole or not at
//! all, so each caller gets exactly what its own `batch_if` would have given.
//! A crash keeps or loses the combined commit whole.
//!
//! On PostgreSQL a combined commit is one transaction: one lock pass, one
//! set of folded writes and one commit for many requests, instead of each
//! request's own (`crm-store-postgres`, `conditional.rs`).
//!
//! Commits are short, so under load the combiner would often be idle when the
//! next batch comes, and a commit would carry one or two. So it keeps a
//! [`CommitWindow`] (PostgreSQL's `commit_delay`): while many requests are
//! still computing, and so about to write, it waits a moment before it
//! commits, and one commit carries them all. A caller that is the only
//! request computing commits its batch itself, at once, as `batch_if`.
//! The flush that follows ([`crate::group_commit`]) serves the whole group.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use tokio::sync::oneshot;

use crate::{BatchOp, Condition, Namespace, StoreError, StoreResult};

/// How many requests are computing now or waiting to (the runtime's compute
/// turns keep the count): the writers a commit may soon carry.
#[derive(Clone, Default)]
pub struct Computing(Arc<AtomicUsize>);

impl Computing {
    pub fn set(&self, n: usize) {
        self.0.store(n, Ordering::Relaxed);
    }

    pub fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

/// A commit waits `length` before it starts while at least [`SIBLINGS`]
/// requests are computing. The default, a zero length, never waits.
#[derive(Clone, Default)]
pub struct CommitWindow {
    pub length: Duration,
    pub computing: Computing,
}

/// Fewer requests computing than this and a commit starts at once: too few
/// writers would join it to pay for the wait (PostgreSQL's `commit_siblings`).
pub const SIBLINGS: usize = 8;

impl CommitWindow {
    /// Whether the caller is the only request computing: then no other
    /// batch can join its commit, and it commits on its own, at once,
    /// saving the hand-off to the combiner thread (about 10% of a lone
    /// writer's create).
    pub fn alone(&self) -> bool {
        self.computing.get() <= 1
    }

    /// A window that is always open: every shared batch goes through the
    /// combiner (the contract suite and its crash writer use it).
    pub fn always_open(length: Duration) -> CommitWindow {
        let computing = Computing::default();
        computing.set(SIBLINGS);
        CommitWindow { length, computing }
    }

    /// Waits out the window if enough requests may join this commit.
    fn wait(&self) {
        if !self.length.is_zero() && self.computing.get() >= SIBLINGS {
            std::thread::sleep(self.length);
        }
    }
}

/// One caller's conditional batch, as [`crate::Store::batch_if`] takes it.
#[derive(Clone, Debug)]
pub struct Conditional {
    pub conditions: Vec<Condition>,
    pub ops: Vec<BatchOp>,
}

impl Conditional {
    /// A batch with no conditions: applied whole, always.
    pub fn ops(ops: Vec<BatchOp>) -> Conditional {
        Conditional { conditions: Vec::new(), ops }
    }
}

/// Commits `batches` of one namespace as one atomic step, answering for
/// each whether its conditions held (and so whether it was applied).
pub type CommitTogether = dyn Fn(&Namespace, &[Conditional]) -> StoreResult<Vec<bool>> + Send + Sync;

struct Queued {
    ns: Namespace,
    batch: Conditional,
    answer: oneshot::Sender<StoreResult<bool>>,
}

/// The queue between callers and the combiner thread.
pub struct Combiner {
    queue: Mutex<Vec<Queued>>,
    ready: Condvar,
    window: CommitWindow,
}

impl Combiner {
    /// Starts the combiner thread, which commits with `commit`.
    pub fn start(commit: Box<CommitTogether>, window: CommitWindow) -> Arc<Combiner> {
        let combiner = Arc::new(Combiner { queue: Mutex::default(), ready: Condvar::new(), window });
        let weak = Arc::downgrade(&combiner);
        std::thread::Builder::new()
            .name("store-combiner".into())
            .spawn(move || {
                while let Some(combiner) = weak.upgrade() {
                    if !combiner.wait_for_work() {
                        continue;
                    }
                    combiner.window.wait();
                    let queued = std::mem::take(&mut *combiner.queue.lock().expect("combiner lock"));
                    drop(combiner);
                    // A panic fails the callers of this commit (their answers
                    // are dropped), not every commit after it.
                    let committed = std::panic::catch_unwind(AssertUnwindSafe(|| commit_queued(&*commit, queued)));
                    if committed.is_err() {
                        tracing::error!("a combined commit panicked; its callers were answered with an error");
                    }
                }
            })
            .expect("spawn the store combiner thread");
        combiner
    }

    /// [`crate::Store::batch_if_shared`] for a backend: a caller that is the
    /// only request computing commits at once, itself, with `alone` (the
    /// backend's own `batch_if`; see [`CommitWindow::alone`]); any other
    /// queues its batch for the next combined commit.
    pub fn share<'a>(
        &'a self,
        ns: Namespace,
        batch: Conditional,
        alone: impl FnOnce(&Namespace, Conditional) -> StoreResult<bool>,
    ) -> Pin<Box<dyn Future<Output = StoreResult<bool>> + Send + 'a>> {
        if self.window.alone() {
            return Box::pin(std::future::ready(alone(&ns, batch)));
        }
        self.queue(ns, batch)
    }

    /// [`crate::Store::batch_if_background`] for a backend: the batch waits
    /// for the next combined commit whoever else computes.
    pub fn queue(
        &self,
        ns: Namespace,
        batch: Conditional,
    ) -> Pin<Box<dyn Future<Output = StoreResult<bool>> + Send + '_>> {
        crate::count_operation("batch_if");
        Box::pin(self.batch_if(ns, batch))
    }

    /// Queues a conditional batch and resolves with its outcome once the
    /// commit that carried it is applied (not yet flushed: see
    /// [`crate::Store::durable`]).
    pub async fn batch_if(&self, ns: Namespace, batch: Conditional) -> StoreResult<bool> {
        let (answer, outcome) = oneshot::channel();
        self.queue.lock().expect("combiner lock").push(Queued { ns, batch, answer });
        self.ready.notify_one();
        outcome.await.map_err(|_| StoreError::new("the store combiner stopped"))?
    }

    /// Blocks until a batch is queued (or a second passes, so the thread
    /// notices when the store is dropped). Returns whether there is work.
    fn wait_for_work(&self) -> bool {
        let queue = self.queue.lock().expect("combiner lock");
        let queue =
            self.ready.wait_timeout_while(queue, Duration::from_secs(1), |q| q.is_empty()).expect("combiner lock").0;
        !queue.is_empty()
    }
}

/// One commit per namespace, in the order the namespaces first queued.
fn commit_queued(commit: &CommitTogether, mut queued: Vec<Queued>) {
    metrics::histogram!("crm_store_combined_batches").record(queued.len() as f64);
    while let Some(first) = queued.first() {
        let ns = first.ns.clone();
        let (same, rest): (Vec<Queued>, Vec<Queued>) = queued.into_iter().partition(|q| q.ns == ns);
        queued = rest;
        let (batches, answers): (Vec<Conditional>, Vec<_>) = same.into_iter().map(|q| (q.batch, q.answer)).unzip();
        match commit(&ns, &batches) {
            Ok(applied) => answers.into_iter().zip(applied).for_each(|(answer, applied)| {
                let _ = answer.send(Ok(applied));
            }),
            Err(e) => answers.into_iter().for_each(|answer| {
                let _ = answer.send(Err(e.clone()));
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A commit that records how many batches each call carried and applies
    /// every batch whose first condition expects an even key length.
    fn recording() -> (Box<CommitTogether>, Arc<Mutex<Vec<usize>>>) {
        let sizes = Arc::new(Mutex::new(Vec::new()));
        let seen = sizes.clone();
        let commit = move |_: &Namespace, batches: &[Conditional]| {
            seen.lock().unwrap().push(batches.len());
            Ok(batches
                .iter()
                .map(|b| matches!(&b.conditions[..], [Condition::Equals(k, _)] if k.len() % 2 == 0))
                .collect())
        };
        (Box::new(commit), sizes)
    }

    fn batch(key: &str) -> Conditional {
        Conditional { conditions: vec![Condition::Equals(key.into(), None)], ops: vec![] }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn each_caller_gets_its_own_batchs_outcome() {
        let (commit, _) = recording();
        let combiner = Combiner::start(commit, CommitWindow::default());
        assert!(combiner.batch_if(Namespace::org("a"), batch("ab")).await.unwrap());
        assert!(!combiner.batch_if(Namespace::org("a"), batch("abc")).await.unwrap());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn with_few_requests_computing_a_commit_starts_at_once() {
        let (commit, _) = recording();
        let computing = Computing::default();
        computing.set(SIBLINGS - 1);
        // A window far longer than any stall: waiting it would take 10 s.
        let window = CommitWindow { length: Duration::from_secs(10), computing };
        let combiner = Combiner::start(commit, window);
        let started = std::time::Instant::now();
        assert!(combiner.batch_if(Namespace::org("a"), batch("ab")).await.unwrap());
        let waited = started.elapsed();
        assert!(waited < Duration::from_secs(5), "with few requests computing a commit starts at once ({waited:?})");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_commit_that_panics_fails_its_callers_and_not_the_next_commit() {
        let panicked = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let once = panicked.clone();
        let commit = move |_: &Namespace, batches: &[Conditional]| {
            assert!(once.swap(true, std::sync::atomic::Ordering::SeqCst), "the engine broke");
            Ok(vec![true; batches.len()])
        };
        let combiner = Combiner::start(Box::new(commit), CommitWindow::default());
        assert!(combiner.batch_if(Namespace::org("a"), batch("ab")).await.is_err());
        assert!(combiner.batch_if(Namespace::org("a"), batch("ab")).await.unwrap());
    }

    /// Six batches of two namespaces queued 10 ms apart: each its own
    /// commit without a window, one commit per namespace within one (of
    /// 2 s, so that all six are queued within it on a loaded machine).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn batches_queued_within_the_window_share_one_commit_per_namespace() {
        let (commit, sizes) = recording();
        let computing = Computing::default();
        computing.set(SIBLINGS);
        let window = CommitWindow { length: Duration::from_secs(2), computing };
        let combiner = Combiner::start(commit, window);
        let mut calls = Vec::new();
        for i in 0..6 {
            let combiner = combiner.clone();
            calls.push(tokio::spawn(async move {
                let ns = Namespace::org(if i % 2 == 0 { "even" } else { "odd" });
                combiner.batch_if(ns, batch(if i < 3 { "kk" } else { "k" })).await.unwrap()
            }));
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let mut outcomes = Vec::new();
        for call in calls {
            outcomes.push(call.await.unwrap());
        }
        assert_eq!(outcomes, [true, true, true, false, false, false]);
        assert_eq!(*sizes.lock().unwrap(), [3, 3]);
    }
}
