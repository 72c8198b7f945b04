//! `webhook-receiver`: answers every POST with 204 and counts them, for the
//! event benchmark (`scripts/bench-events.sh`). `GET /count` is the count.
//!
//! Usage: `webhook-receiver 127.0.0.1:18900`

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use warp::Filter;

#[tokio::main]
async fn main() {
    let addr: std::net::SocketAddr =
        std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:18900".into()).parse().expect("an address");
    let count = Arc::new(AtomicU64::new(0));
    let counted = count.clone();
    let post = warp::post().and(warp::body::bytes()).map(move |_body: bytes::Bytes| {
        counted.fetch_add(1, Ordering::Relaxed);
        warp::http::StatusCode::NO_CONTENT
    });
    let read = warp::get().and(warp::path("count")).map(move || count.load(Ordering::Relaxed).to_string());
    println!("webhook-receiver: listening on http://{addr}");
    warp::serve(post.or(read)).run(addr).await;
}
