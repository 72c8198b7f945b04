//! Group commit: many writers, one flush.
//!
//! A write is acknowledged only once it is on disk, but a disk flush per request
//! would cap writes at the disk's sync rate. Instead each writer takes a ticket and
//! waits; one flusher thread reads the newest ticket, flushes once, and releases
//! every writer up to that ticket. Writers that arrive during a flush share the
//! next one. Since a ticket is taken after its write is applied, the flush that
//! covers the ticket covers the write.
//!
//! Under load a flush would still serve only one or two writers: flushes are
//! short, so the flusher is idle when the next writer asks. Each flush costs
//! the engine a log write and a round of thread wake-ups, so the flusher
//! keeps a [`FlushWindow`] (PostgreSQL's `commit_delay`): while many other
//! requests are still computing, and so about to write, it waits a moment
//! before flushing, and one flush serves them all. A lone writer never waits.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use tokio::sync::watch;

use crate::{StoreError, StoreResult};

/// What the flusher has done so far.
#[derive(Debug, Clone, Copy, Default)]
struct Flushed {
    /// Every ticket up to this one is settled.
    upto: u64,
    /// Tickets up to this one were settled by a failed flush.
    failed_upto: u64,
}

/// How many requests are computing now or waiting to (the runtime's compute
/// turns keep the count): the writers a flush may soon serve.
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

/// A flush waits `length` before it starts while at least [`SIBLINGS`]
/// requests are computing. The default, a zero length, never waits.
#[derive(Clone, Default)]
pub struct FlushWindow {
    pub length: Duration,
    pub computing: Computing,
}

/// Fewer requests computing than this and a flush starts at once: too few
/// writers would join it to pay for the wait (PostgreSQL's `commit_siblings`).
pub const SIBLINGS: usize = 8;

impl FlushWindow {
    /// Waits out the window if enough requests may join this flush.
    pub(crate) fn wait(&self) {
        if !self.length.is_zero() && self.computing.get() >= SIBLINGS {
            std::thread::sleep(self.length);
        }
    }
}

/// The shared state between writers and the flusher thread.
pub struct GroupCommit {
    issued: AtomicU64,
    wake: Mutex<bool>,
    wake_cv: Condvar,
    flushed: watch::Sender<Flushed>,
}

impl GroupCommit {
    /// Starts the flusher thread; `flush` is the engine's blocking flush.
    pub fn start(flush: impl Fn() -> Result<(), String> + Send + 'static, window: FlushWindow) -> Arc<GroupCommit> {
        let group = Arc::new(GroupCommit {
            issued: AtomicU64::new(0),
            wake: Mutex::new(false),
            wake_cv: Condvar::new(),
            flushed: watch::channel(Flushed::default()).0,
        });
        let weak = Arc::downgrade(&group);
        std::thread::Builder::new()
            .name("store-flusher".into())
            .spawn(move || {
                while let Some(group) = weak.upgrade() {
                    if !group.wait_for_work() {
                        continue;
                    }
                    window.wait();
                    let target = group.issued.load(Ordering::SeqCst);
                    let started = std::time::Instant::now();
                    let outcome = flush();
                    let settled = group.flushed.borrow().upto;
                    metrics::histogram!("crm_store_flush_seconds").record(started.elapsed().as_secs_f64());
                    metrics::histogram!("crm_store_flush_batch_size").record(target.saturating_sub(settled) as f64);
                    group.flushed.send_modify(|f| {
                        f.upto = target;
                        if let Err(e) = &outcome {
                            tracing::error!(error = %e, "store flush failed");
                            f.failed_upto = target;
                        }
                    });
                }
            })
            .expect("spawn the store flusher thread");
        group
    }

    /// Blocks until a writer asks for a flush (or a second passes, so the thread
    /// notices when the store is dropped). Returns whether there is work.
    fn wait_for_work(&self) -> bool {
        let mut wake = self.wake.lock().expect("flusher lock");
        if !*wake {
            wake = self.wake_cv.wait_timeout(wake, Duration::from_secs(1)).expect("flusher lock").0;
        }
        std::mem::replace(&mut *wake, false)
    }

    /// Resolves once a flush that started after this call has finished.
    pub async fn wait_durable(&self) -> StoreResult<()> {
        let mut rx = self.flushed.subscribe();
        let ticket = self.issued.fetch_add(1, Ordering::SeqCst) + 1;
        {
            *self.wake.lock().expect("flusher lock") = true;
            self.wake_cv.notify_one();
        }
        let settled = rx.wait_for(|f| f.upto >= ticket).await.map_err(|_| StoreError("the flusher stopped".into()))?;
        if settled.failed_upto >= ticket {
            return Err(StoreError("flush to disk failed".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A group whose flush takes `flush_time`, and the count of its flushes.
    fn counting(flush_time: Duration, window: FlushWindow) -> (Arc<GroupCommit>, Arc<AtomicUsize>) {
        let flushes = Arc::new(AtomicUsize::new(0));
        let counter = flushes.clone();
        let flush = move || {
            counter.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(flush_time);
            Ok(())
        };
        (GroupCommit::start(flush, window), flushes)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_writers_share_flushes() {
        let (group, flushes) = counting(Duration::from_millis(20), FlushWindow::default());
        let waits: Vec<_> = (0..64)
            .map(|_| {
                let g = group.clone();
                tokio::spawn(async move { g.wait_durable().await })
            })
            .collect();
        for w in waits {
            w.await.unwrap().unwrap();
        }
        let n = flushes.load(Ordering::SeqCst);
        assert!((1..64).contains(&n), "64 writers caused {n} flushes");
    }

    /// 30 writers that ask one after another, 1 ms apart (a flush takes
    /// 0.1 ms): how many flushes they cause under `window`.
    async fn flushes_for_spaced_writers(window: FlushWindow) -> usize {
        let (group, flushes) = counting(Duration::from_micros(100), window);
        let mut waits = Vec::new();
        for _ in 0..30 {
            let g = group.clone();
            waits.push(tokio::spawn(async move { g.wait_durable().await }));
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        for w in waits {
            w.await.unwrap().unwrap();
        }
        flushes.load(Ordering::SeqCst)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_flush_waits_for_more_writers_only_while_many_requests_compute() {
        let computing = Computing::default();
        let window = FlushWindow { length: Duration::from_millis(5), computing: computing.clone() };
        let at_once = flushes_for_spaced_writers(window.clone()).await;
        computing.set(SIBLINGS);
        let paced = flushes_for_spaced_writers(window.clone()).await;
        // About one flush a writer at once; about one per 5 ms window paced.
        assert!(paced * 2 <= at_once, "30 spaced writers: {paced} flushes paced, {at_once} at once");

        computing.set(SIBLINGS - 1);
        let started = std::time::Instant::now();
        GroupCommit::start(|| Ok(()), window).wait_durable().await.unwrap();
        let waited = started.elapsed();
        assert!(waited < Duration::from_millis(5), "with few requests computing a flush starts at once ({waited:?})");
    }

    #[tokio::test]
    async fn a_failed_flush_fails_its_writers() {
        let group = GroupCommit::start(|| Err("disk full".into()), FlushWindow::default());
        assert!(group.wait_durable().await.is_err());
    }
}
