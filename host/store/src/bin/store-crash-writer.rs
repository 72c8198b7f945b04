//! The writer the contract suite's crash test kills, for the embedded
//! backends: `store-crash-writer sled:DIR FIRST` or `fjall:DIR FIRST` (see
//! [`crash::write_until_killed`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crm_store::combine::CommitWindow;
use crm_store::contract::crash;
use crm_store::sled_store::DEFAULT_CACHE_BYTES;
use crm_store::{FjallStore, SledStore, Store, StoreResult};

fn open(spec: &str) -> Arc<dyn Store> {
    let (engine, dir) = spec.split_once(':').expect("BACKEND is sled:DIR or fjall:DIR");
    // The previous holder of the store (the checking process) may take a
    // moment to release its lock.
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        // The window always open: the writer's shared batches are combined.
        let window = CommitWindow::always_open(Duration::from_micros(200));
        let opened: StoreResult<Arc<dyn Store>> = match engine {
            "sled" => SledStore::open_with(dir.as_ref(), DEFAULT_CACHE_BYTES, window).map(|s| Arc::new(s) as _),
            "fjall" => FjallStore::open_with(dir.as_ref(), 32 << 20, window).map(|s| Arc::new(s) as _),
            other => panic!("no engine {other}"),
        };
        match opened {
            Ok(store) => return store,
            Err(e) if Instant::now() > until => panic!("cannot open {dir}: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let first: u64 = args[2].parse().expect("FIRST is a number");
    crash::write_until_killed(open(&args[1]), first).await;
}
