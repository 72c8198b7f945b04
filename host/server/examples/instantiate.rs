//! Instantiate-and-call micro-benchmark: how long the host takes to make a fresh
//! instance of the contacts component and call its handler, for a request that
//! touches no store (`GET /contacts/not-an-id` → 404). Median of 10,000.
//!
//! Run: `cargo run --release -p crm-server --example instantiate`

#![allow(clippy::indexing_slicing, reason = "a benchmark reading its own answers and /proc, no client input")]

mod common;

use std::time::{Duration, Instant};

use crm_runtime::bindings::platform::crm::plugin::types;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let bench = common::Bench::start(dir.path(), &dir.path().join("cache"), None, "pro").await?;
    let (runtime, module, ctx) = (&bench.runtime, bench.module("contacts"), &bench.caller);
    let request = types::Request {
        method: "GET".into(),
        path: "/contacts/not-an-id".into(),
        path_params: vec![("id".into(), "not-an-id".into())],
        query: vec![],
        headers: vec![],
        body: vec![],
    };
    let mut samples = Vec::with_capacity(10_000);
    for i in 0..11_000 {
        let started = Instant::now();
        let (response, _) = runtime.handle(&module, Some(ctx.clone()), request.clone(), Duration::from_secs(5)).await?;
        if i >= 1_000 {
            samples.push(started.elapsed());
        }
        assert_eq!(response.status, 404);
    }
    samples.sort();
    let at = |p: f64| samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)];
    println!(
        "instantiate + call (contacts, 10,000 calls): median {:.1} µs, p90 {:.1} µs, p99 {:.1} µs",
        at(0.5).as_secs_f64() * 1e6,
        at(0.9).as_secs_f64() * 1e6,
        at(0.99).as_secs_f64() * 1e6
    );
    Ok(())
}
