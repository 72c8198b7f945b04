//! Group commit: many writers, one flush.
//!
//! A write is acknowledged only once it is on disk, but a disk flush per request
//! would cap writes at the disk's sync rate. Instead each writer takes a ticket and
//! waits; one flusher thread reads the newest ticket, flushes once, and releases
//! every writer up to that ticket. Writers that arrive during a flush share the
//! next one. Since a ticket is taken after its write is applied, the flush that
//! covers the ticket covers the write.
//!
//! The flusher never waits for more writers: on sled the writers come in
//! groups already, those whose batches one combined commit carried
//! ([`crate::combine`], which keeps the wait).

use std::sync::atomic::{AtomicU64, Ordering};
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
    /// Whether that failed flush could not reach its store (a database
    /// without a primary), rather than failed at it.
    failed_unreachable: bool,
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
    pub fn start(flush: impl Fn() -> StoreResult<()> + Send + 'static) -> Arc<GroupCommit> {
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
                            f.failed_unreachable = e.is_unavailable();
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
        let settled = rx.wait_for(|f| f.upto >= ticket).await.map_err(|_| StoreError::new("the flusher stopped"))?;
        match (settled.failed_upto >= ticket, settled.failed_unreachable) {
            (false, _) => {}
            (true, false) => return Err(StoreError::new("flush to disk failed")),
            (true, true) => return Err(StoreError::unavailable("the flush could not reach the database")),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A group whose flush takes `flush_time`, and the count of its flushes.
    fn counting(flush_time: Duration) -> (Arc<GroupCommit>, Arc<AtomicUsize>) {
        let flushes = Arc::new(AtomicUsize::new(0));
        let counter = flushes.clone();
        let flush = move || {
            counter.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(flush_time);
            Ok(())
        };
        (GroupCommit::start(flush), flushes)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_writers_share_flushes() {
        let (group, flushes) = counting(Duration::from_millis(20));
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

    #[tokio::test]
    async fn a_failed_flush_fails_its_writers() {
        let group = GroupCommit::start(|| Err(StoreError::new("disk full")));
        assert!(group.wait_durable().await.is_err());
    }
}
