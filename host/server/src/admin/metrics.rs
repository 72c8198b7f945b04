//! Prometheus metrics, served in the text format at `GET /metrics` on the
//! admin listener (private, like the admin API; no token, so a scraper
//! needs none).
//!
//! Recorded where each thing happens, through the `metrics` facade:
//! - requests by route pattern, method and status, and their latency
//!   (`crm_http_requests_total`, `crm_http_request_seconds`), here; the
//!   request body bytes held (`crm_http_body_bytes_held`), in
//!   `crate::http::body_budget`;
//! - component calls by component and outcome (`ok`, `trap`, `deadline`,
//!   `memory_cap`) and their latency, in `crm_runtime::runtime`;
//! - provider calls by provider, operation and outcome, in
//!   `crm_runtime::providers`;
//! - store operations by kind, group-commit flush latency and batch size, in
//!   `crm_store`;
//! - `crm_build_info{version}`.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use http::{HeaderValue, StatusCode};
use metrics::SharedString;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::http::Response;

/// Latency buckets, in seconds: 0.5 ms to 30 s.
const SECONDS: &[f64] = &[0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];
/// Writers settled by one flush.
const BATCH: &[f64] = &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 1024.0];

/// Installs the process's recorder (once, at start) and keeps its
/// histograms rotating.
pub fn install() -> Result<PrometheusHandle, String> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS)
        .and_then(|b| b.set_buckets_for_metric(Matcher::Full("crm_store_flush_batch_size".into()), BATCH))
        .map_err(|e| format!("metrics: {e}"))?
        .install_recorder()
        .map_err(|e| format!("cannot install the metrics recorder: {e}"))?;
    metrics::gauge!("crm_build_info", "version" => env!("CARGO_PKG_VERSION")).set(1.0);
    let upkeep = handle.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(5)).await;
            upkeep.run_upkeep();
        }
    });
    Ok(handle)
}

/// Counts one answered request under its route pattern (`unmatched` when no
/// route took it: the path itself could be anything a client sends). No
/// label allocates: the pattern is shared, the others are static.
pub fn record_request(route: Option<&Arc<str>>, method: &http::Method, status: u16, elapsed: Duration) {
    let route = route.map_or(SharedString::const_str("unmatched"), |r| SharedString::from(r.clone()));
    let method = method_label(method);
    let status: &'static str = STATUSES.get(usize::from(status)).map_or("other", String::as_str);
    metrics::counter!("crm_http_requests_total", "route" => route.clone(), "method" => method, "status" => status)
        .increment(1);
    metrics::histogram!("crm_http_request_seconds", "route" => route, "method" => method).record(elapsed.as_secs_f64());
}

/// Status codes as label text, made once.
static STATUSES: LazyLock<Vec<String>> = LazyLock::new(|| (0..600).map(|s| s.to_string()).collect());

fn method_label(method: &http::Method) -> &'static str {
    match *method {
        http::Method::GET => "GET",
        http::Method::POST => "POST",
        http::Method::PUT => "PUT",
        http::Method::PATCH => "PATCH",
        http::Method::DELETE => "DELETE",
        http::Method::OPTIONS => "OPTIONS",
        http::Method::HEAD => "HEAD",
        _ => "other",
    }
}

/// `GET /metrics`.
pub fn render(handle: &PrometheusHandle) -> Response {
    let mut response = Response::empty(StatusCode::OK);
    response.headers.push((http::header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4")));
    response.body = handle.render().into();
    response
}
