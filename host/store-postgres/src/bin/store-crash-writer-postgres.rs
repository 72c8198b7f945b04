//! The writer the contract suite's crash test kills, for the PostgreSQL
//! backend: `store-crash-writer-postgres postgres://... FIRST` (see
//! [`crash::write_until_killed`]).

use std::sync::Arc;
use std::time::Duration;

use crm_store::combine::CommitWindow;
use crm_store::contract::crash;
use crm_store_postgres::PostgresStore;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let first: u64 = args[2].parse().expect("FIRST is a number");
    // Shared batches always combined, as under load.
    let window = CommitWindow::always_open(Duration::from_micros(200));
    let store = PostgresStore::connect_with(&args[1], 4, window).expect("connect to the database");
    crash::write_until_killed(Arc::new(store), first).await;
}
