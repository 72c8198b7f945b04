//! Runs the async driver's work for the synchronous store trait.
//!
//! The driver's connections live on a runtime of this crate's own, so a
//! caller that blocks (a component's host call, a plain thread, a test) can
//! never starve the tasks that drive its own query. A caller on a worker of a
//! multi-threaded tokio runtime waits inside `block_in_place`, which hands
//! that worker's other tasks to another thread meanwhile.

use std::future::Future;
use std::sync::mpsc;

use tokio::runtime::{Handle, Runtime, RuntimeFlavor};

pub(crate) struct Bridge {
    /// `None` only while dropping: see [`Drop`].
    runtime: Option<Runtime>,
}

impl Bridge {
    pub(crate) fn new() -> std::io::Result<Bridge> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("crm-store-postgres")
            .enable_all()
            .build()?;
        Ok(Bridge { runtime: Some(runtime) })
    }

    /// Runs `work` on the store's runtime and waits for its answer.
    pub(crate) fn block_on<T: Send + 'static>(&self, work: impl Future<Output = T> + Send + 'static) -> T {
        let (tx, rx) = mpsc::sync_channel(1);
        self.runtime().spawn(async move {
            let _ = tx.send(work.await);
        });
        let wait = move || rx.recv().expect("the store's runtime dropped a call");
        match Handle::try_current() {
            Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(wait),
            _ => wait(),
        }
    }

    /// The store's runtime, for a thread of the store's own to run work on.
    pub(crate) fn handle(&self) -> Handle {
        self.runtime().handle().clone()
    }

    fn runtime(&self) -> &Runtime {
        self.runtime.as_ref().expect("the runtime lives until drop")
    }
}

impl Drop for Bridge {
    /// A runtime dropped inside another runtime's task would panic; this one
    /// is let go without waiting for its tasks (none is in flight once the
    /// store itself is dropped).
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
