//! What a partner's module costs in each language: its first compile on a
//! host, and a fresh instance and a call (median of many) of its first
//! route without parameters, with every import the host offers linked.
//! For the modules `crm-host plugin new --kind module` makes in Rust, Python
//! and JavaScript, which do the same thing (read a counter, write it back):
//! plugins/README.md, "What a call costs, per language", has the figures.
//!
//! Run: `cargo run -p crm-server --example component_cost -- [--calls N] FILE.wasm...`
//! (BENCHMARKS.md, "Components per language"),
//! each file named after its module as `plugin new` names them (`js_hello.wasm`
//! serves the module `js-hello`)
//! (the figures there are of the debug profile the tests build; a release
//! host is faster at the host's own part of a call, the same at the guest's).

#![allow(clippy::indexing_slicing, reason = "a benchmark reading its own samples")]

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crm_runtime::bindings::platform::crm::plugin::types;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut calls = 1_000;
    if args.first().is_some_and(|a| a == "--calls") {
        calls = args.get(1).ok_or("--calls N")?.parse()?;
        args.drain(..2);
    }
    if args.is_empty() {
        return Err("usage: component_cost [--calls N] FILE.wasm...".into());
    }
    let dir = tempfile::tempdir()?;
    let cache = dir.path().join("cache");
    // The host's own components compiled first, so a load below compiles only the partner's.
    let started = Instant::now();
    drop(common::Bench::start(&dir.path().join("warm"), &cache, None, "pro").await?);
    let warm = started.elapsed();
    let started = Instant::now();
    drop(common::Bench::start(&dir.path().join("base"), &cache, None, "pro").await?);
    let base = started.elapsed();
    println!(
        "the host's own components: compiled in {:.1} s, loaded from the cache in {} ms",
        warm.as_secs_f64(),
        base.as_millis()
    );
    for (i, file) in args.iter().map(PathBuf::from).enumerate() {
        let plugins = dir.path().join(format!("plugins-{i}"));
        std::fs::create_dir_all(&plugins)?;
        let name = file.file_name().ok_or("a file")?;
        std::fs::copy(&file, plugins.join(name))?;
        let size = std::fs::metadata(&file)?.len();
        let started = Instant::now();
        drop(common::Bench::start(&dir.path().join(format!("compile-{i}")), &cache, Some(&plugins), "pro").await?);
        let compile = started.elapsed().saturating_sub(base);
        let started = Instant::now();
        let bench = common::Bench::start(&dir.path().join(format!("run-{i}")), &cache, Some(&plugins), "pro").await?;
        let load = started.elapsed().saturating_sub(base);
        // The module's name is the file's, as `crm-host plugin new` names both (`js_hello.wasm`: `js-hello`).
        let stem = file.file_stem().and_then(|s| s.to_str()).ok_or("a file name")?;
        let module = bench.module(&stem.replace('_', "-"));
        let route = module.routes.iter().find(|r| r.method == "GET" && !r.path.contains('{')).ok_or("no GET route")?;
        let request = types::Request {
            method: "GET".into(),
            path: route.path.clone(),
            path_params: vec![],
            query: vec![],
            headers: vec![],
            body: vec![],
        };
        let mut samples = Vec::with_capacity(calls);
        for i in 0..calls + calls / 10 {
            let started = Instant::now();
            let (response, _) = bench
                .runtime
                .handle(&module, Some(bench.caller.clone()), request.clone(), Duration::from_secs(5))
                .await?;
            if i >= calls / 10 {
                samples.push(started.elapsed());
            }
            assert_eq!(response.status, 200, "{}", String::from_utf8_lossy(&response.body));
        }
        samples.sort();
        let at = |p: f64| samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)].as_secs_f64() * 1e6;
        println!(
            "{} ({:.1} MB): first compile {:.2} s, a later load {} ms; instantiate + call of GET {} ({calls} calls): median {:.0} µs, p90 {:.0} µs",
            file.display(),
            size as f64 / 1e6,
            compile.as_secs_f64(),
            load.as_millis(),
            route.path,
            at(0.5),
            at(0.9),
        );
    }
    Ok(())
}
