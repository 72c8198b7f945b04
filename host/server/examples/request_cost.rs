//! What one write request costs the runtime, without HTTP, a load generator
//! or a flush: a contact create, a form's public submit and a nested upsert
//! alone (the `contacts-client` test component), each a fresh contact with a
//! city, called one after the other in this process. Prints the median time
//! of each and its CPU (this process's, per call), and the ratios to a create.
//! Rounds alternate the order, as `scripts/bench-forms.sh` does.
//!
//! Two uses: telling the runtime's share of a cost from the HTTP server's and
//! the load generator's, and profiling one kind of call (`ONLY=form perf
//! record ...`: a profiler attached to a loaded host slows it unevenly, see
//! BENCHMARKS.md). Its ratios are as noisy as a 64-connection run's on this
//! machine. `FORMS_WASM=...` and `CONTACTS_WASM=...` run other builds of the
//! forms and contacts modules.
//!
//! Run: `cargo run --release -p crm-server --example request_cost [calls per round] [rounds]`
//! (`CONTACTS_CLIENT_WASM` defaults to the one the plugins' build leaves in `target/plugins`).

#![allow(clippy::indexing_slicing, reason = "a benchmark reading its own answers and /proc, no client input")]

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crm_runtime::LoadedModule;
use crm_runtime::bindings::platform::crm::plugin::types;

/// The host binary's allocator (`src/main.rs`), so that the costs are its.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// This process's CPU time so far (user and kernel, every thread), from
/// `/proc/self/stat` (in ticks of 1/100 s).
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("read /proc/self/stat");
    // Fields after the command name, which ends with ')'.
    let fields: Vec<&str> = stat.rsplit_once(')').expect("a stat line").1.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_secs_f64(ticks as f64 / 100.0)
}

fn request(method: &str, path: &str, params: &[(&str, &str)], query: &[(&str, &str)], body: &str) -> types::Request {
    let pairs = |p: &[(&str, &str)]| p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    types::Request {
        method: method.into(),
        path: path.into(),
        path_params: pairs(params),
        query: pairs(query),
        headers: vec![("content-type".into(), "application/json".into())],
        body: body.as_bytes().to_vec(),
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    let (calls, rounds) = (args.first().copied().unwrap_or(4000), args.get(1).copied().unwrap_or(4));
    let dir = tempfile::tempdir()?;
    let plugins = plugins_dir(dir.path())?;
    // Compiled components are kept between runs, so that a profile of a run
    // is of the calls, not of compiling them.
    let cache = PathBuf::from("target/request-cost-cache");
    let bench = common::Bench::start(dir.path(), &cache, Some(&plugins), "unlimited").await?;
    let (runtime, ctx) = (bench.runtime.clone(), bench.caller.clone());
    let (contacts, forms, nested) = (bench.module("contacts"), bench.module("forms"), bench.module("contacts-client"));
    let call = |module: Arc<LoadedModule>, req: types::Request| {
        let (runtime, ctx) = (runtime.clone(), ctx.clone());
        async move {
            let (response, _) = runtime.handle(&module, Some(ctx), req, Duration::from_secs(5)).await.expect("a call");
            response
        }
    };
    let created = call(forms.clone(), request("POST", "/admin/forms", &[], &[], r#"{"name":"Bench"}"#)).await;
    assert_eq!(created.status, 201, "{}", String::from_utf8_lossy(&created.body));
    let form: serde_json::Value = serde_json::from_slice(&created.body)?;
    let form = if form["data"].is_object() { &form["data"] } else { &form };
    let (form_id, key) = (form["id"].as_str().unwrap().to_string(), form["publicKey"].as_str().unwrap().to_string());

    let kinds = ["contacts", "form", "nested"];
    let mut results: Vec<(Vec<f64>, Vec<f64>)> = vec![Default::default(); kinds.len()];
    for round in 0..rounds {
        let mut order: Vec<usize> = if round % 2 == 0 { vec![0, 1, 2] } else { vec![2, 1, 0] };
        // `ONLY=form` runs one kind alone (under a profiler, say); `ONLY=contacts,form` two.
        if let Ok(only) = std::env::var("ONLY") {
            order.retain(|k| only.split(',').any(|o| o == kinds[*k]));
        }
        for k in order {
            let mut samples = Vec::with_capacity(calls);
            let cpu_before = cpu_time();
            for n in 0..calls {
                let req = kind_request(kinds[k], round, n, &form_id, &key);
                let module = [&contacts, &forms, &nested][k].clone();
                let started = Instant::now();
                let response = call(module, req).await;
                samples.push(started.elapsed().as_secs_f64() * 1e6);
                // The test component answers 200 with the upsert's own status inside.
                let expected = if kinds[k] == "nested" { 200 } else { 201 };
                assert_eq!(response.status, expected, "{}: {}", kinds[k], String::from_utf8_lossy(&response.body));
            }
            let cpu = (cpu_time() - cpu_before).as_secs_f64() * 1e6 / calls as f64;
            samples.sort_by(f64::total_cmp);
            let median = samples[samples.len() / 2];
            println!("round {round} {:<8} median {median:7.1} µs  CPU {cpu:7.1} µs a call", kinds[k]);
            results[k].0.push(median);
            results[k].1.push(cpu);
        }
    }
    report(&kinds, &results);
    Ok(())
}

/// The plugins dir: the nested-call test component, and other builds of
/// the first-party modules (`FORMS_WASM`, `CONTACTS_WASM`) replacing the
/// embedded ones by name.
fn plugins_dir(dir: &std::path::Path) -> std::io::Result<PathBuf> {
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins)?;
    let client = std::env::var("CONTACTS_CLIENT_WASM")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from("target/plugins/wasm32-wasip2/release/contacts_client.wasm"));
    std::fs::copy(&client, plugins.join("contacts_client.wasm"))?;
    for (variable, file) in [("FORMS_WASM", "forms.wasm"), ("CONTACTS_WASM", "contacts.wasm")] {
        if let Ok(path) = std::env::var(variable) {
            std::fs::copy(path, plugins.join(file))?;
        }
    }
    Ok(plugins)
}

/// The request of one call of `kind`: a create, a form submit, or an upsert
/// through the nested-call test component.
fn kind_request(kind: &str, round: usize, n: usize, form_id: &str, key: &str) -> types::Request {
    const CITIES: [&str; 4] = ["05001", "11001", "76001", "08001"];
    let city = CITIES[n % CITIES.len()];
    match kind {
        "contacts" => request(
            "POST",
            "/contacts",
            &[],
            &[],
            &format!(r#"{{"email":"c{round}-{n}@bench.co","firstName":"Bench","cityCode":"{city}"}}"#),
        ),
        "form" => request(
            "POST",
            &format!("/public/forms/submit/{form_id}"),
            &[("id", form_id)],
            &[("key", key)],
            &format!(
                r#"{{"correo":"f{round}-{n}@bench.co","nombre":"Bench User","cityCode":"{city}","utm_source":"bench"}}"#
            ),
        ),
        _ => request(
            "POST",
            "/contacts-client/upsert",
            &[],
            &[],
            &format!(r#"{{"email":"n{round}-{n}@bench.co","firstName":"Bench","cityCode":"{city}"}}"#),
        ),
    }
}

/// Each kind's medians over the rounds, and their ratio to a create's.
fn report(kinds: &[&str], results: &[(Vec<f64>, Vec<f64>)]) {
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (time0, cpu0) = match results[0].0.is_empty() {
        true => (f64::NAN, f64::NAN),
        false => (median(&results[0].0), median(&results[0].1)),
    };
    for (k, (times, cpus)) in results.iter().enumerate().filter(|(_, (times, _))| !times.is_empty()) {
        let (time, cpu) = (median(times), median(cpus));
        println!("{:<8} median {time:7.1} µs ({:.2}×)  CPU {cpu:7.1} µs ({:.2}×)", kinds[k], time / time0, cpu / cpu0);
    }
}
