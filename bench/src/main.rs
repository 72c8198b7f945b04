//! `crm-load`: drives a running host over loopback and prints requests per second
//! and latency percentiles. Plain HTTP, or TLS for an `https://` URL (`--cacert`:
//! the authority to trust). The crate's other binaries: `crm-stats`
//! (`src/bin/crm-stats.rs`), the bench scripts' one statistics routine, and
//! `crm-floor` (`src/bin/crm-floor.rs`), the least a durable create costs.
//!
//! Each of `--connections` keeps one HTTP/1.1 keep-alive connection and sends
//! requests back to back for `--duration` seconds (after `--warmup`), or until
//! `--requests` were sent. Request bodies may contain `{n}`, replaced by a number
//! unique to the request (so a write benchmark creates distinct records), and
//! `{city}`, replaced by one of 20 municipality codes in turn; `--paths-file`
//! sends each request to the next path of a file. Non-2xx/3xx
//! answers are counted as errors and reported.
//!
//! With `--rate`, requests leave on a fixed schedule (request `n` is due
//! `n / rate` seconds after the start) instead of back to back, and each
//! latency of a request that finds its connection still busy counts from
//! its due time, not from when the connection got free: a host that falls
//! behind the schedule shows it in the percentiles (the "coordinated
//! omission" correction of wrk2). That measures the latency a given load
//! sees below saturation.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use clap::Parser;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::http::uri::Authority;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore};

#[derive(Debug, Parser, Clone)]
#[command(name = "crm-load", about = "HTTP/1.1 load generator for crm-host (plain or TLS)")]
struct Args {
    /// Full URL, e.g. http://127.0.0.1:8080/api/me
    url: String,
    #[arg(short, long, default_value_t = 64)]
    connections: usize,
    /// Measured seconds.
    #[arg(short, long, default_value_t = 10.0)]
    duration: f64,
    /// Unmeasured seconds first.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    #[arg(short = 'X', long, default_value = "GET")]
    method: String,
    /// `Name: value`; repeatable.
    #[arg(short = 'H', long = "header")]
    headers: Vec<String>,
    /// Request body; `{n}` is replaced by a unique number.
    #[arg(short, long)]
    body: Option<String>,
    /// Stop after this many requests (the duration still bounds the run).
    #[arg(long)]
    requests: Option<u64>,
    /// Worker threads of the generator.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// A file of paths (with query), one per line: request `n` goes to line
    /// `n` (in turn) instead of the URL's path, e.g. one record per request.
    #[arg(long)]
    paths_file: Option<std::path::PathBuf>,
    /// Requests a second, on a fixed schedule shared by all connections
    /// (open loop); without it each connection sends back to back.
    #[arg(long)]
    rate: Option<f64>,
    /// For an `https://` URL: a PEM file of the authority to trust.
    #[arg(long)]
    cacert: Option<std::path::PathBuf>,
}

/// One keep-alive HTTP/1.1 connection to `authority`, over TLS when given.
async fn open(authority: &Authority, tls: Option<&TlsConnector>) -> SendRequest<Full<Bytes>> {
    let stream = TcpStream::connect(authority.as_str()).await.expect("connect");
    stream.set_nodelay(true).ok();
    let Some(tls) = tls else {
        let (sender, conn) = http1::handshake(TokioIo::new(stream)).await.expect("handshake");
        tokio::spawn(conn);
        return sender;
    };
    let name = ServerName::try_from(authority.host().to_string()).expect("a TLS server name");
    let stream = tls.connect(name, stream).await.expect("TLS handshake");
    let (sender, conn) = http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(conn);
    sender
}

/// A TLS client trusting the authorities of `cacert`, speaking HTTP/1.1.
fn tls_connector(cacert: Option<&std::path::Path>) -> TlsConnector {
    let cacert = cacert.expect("an https URL needs --cacert");
    let pem = std::fs::read(cacert).expect("the --cacert file");
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        roots.add(cert.expect("a PEM certificate")).expect("an authority");
    }
    let provider = Arc::new(tokio_rustls::rustls::crypto::aws_lc_rs::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    TlsConnector::from(Arc::new(config))
}

fn main() {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads.max(1))
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(run(args));
}

/// Codes `{city}` cycles through: capitals and large towns.
const CITIES: [&str; 20] = [
    "05001", "08001", "11001", "13001", "15001", "17001", "18001", "19001", "20001", "23001", "25175", "27001",
    "41001", "44001", "47001", "50001", "52001", "54001", "63001", "76001",
];

/// What every connection of a run shares.
struct Shared {
    /// Requests taken so far: the next one's `n`.
    counter: AtomicU64,
    errors: AtomicU64,
    args: Args,
    paths: Vec<String>,
    authority: Authority,
    tls: Option<TlsConnector>,
    clock: Clock,
}

/// When the run started, when its measurement starts (after the warm-up)
/// and when it ends.
struct Clock {
    start: Instant,
    measure_from: Instant,
    end: Instant,
}

async fn run(args: Args) {
    let uri: hyper::Uri = args.url.parse().expect("a valid URL");
    let authority = uri.authority().expect("URL with host:port").clone();
    let paths: Vec<String> = match &args.paths_file {
        Some(file) => std::fs::read_to_string(file).expect("the paths file").lines().map(str::to_string).collect(),
        None => vec![uri.path_and_query().expect("a path").to_string()],
    };
    let start = Instant::now();
    let measure_from = start + Duration::from_secs_f64(args.warmup);
    let end = measure_from + Duration::from_secs_f64(args.duration);
    let tls = (uri.scheme_str() == Some("https")).then(|| tls_connector(args.cacert.as_deref()));
    let shared = Arc::new(Shared {
        counter: AtomicU64::new(0),
        errors: AtomicU64::new(0),
        args: args.clone(),
        paths,
        authority,
        tls,
        clock: Clock { start, measure_from, end },
    });
    let tasks: Vec<_> = (0..args.connections).map(|_| tokio::spawn(connection(shared.clone()))).collect();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.expect("worker"));
    }
    report(&shared, all);
}

/// One keep-alive connection, sending requests back to back (or at their
/// due times with `--rate`) until the run ends: the latencies it measured.
async fn connection(shared: Arc<Shared>) -> Vec<Duration> {
    let (args, clock) = (&shared.args, &shared.clock);
    let mut sender = open(&shared.authority, shared.tls.as_ref()).await;
    let mut latencies = Vec::with_capacity(100_000);
    while Instant::now() < clock.end {
        let n = shared.counter.fetch_add(1, Ordering::Relaxed);
        if args.requests.is_some_and(|max| n >= max) {
            break;
        }
        let now = started_at(args.rate, clock.start, n).await;
        if now >= clock.end {
            break;
        }
        sender.ready().await.expect("connection ready");
        let res = sender.send_request(request(&shared, n)).await.expect("response");
        let status = res.status();
        let _ = res.into_body().collect().await;
        if now >= clock.measure_from {
            latencies.push(now.elapsed());
            if !(status.is_success() || status.is_redirection()) {
                shared.errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    latencies
}

/// When request `n`'s latency starts: at its due time if this connection
/// was still busy then (the host fell behind), else when the timer woke it
/// (tokio's timer wakes up to a millisecond late, which is the generator's,
/// not the host's).
async fn started_at(rate: Option<f64>, start: Instant, n: u64) -> Instant {
    let Some(rate) = rate else { return Instant::now() };
    let due = start + Duration::from_secs_f64(n as f64 / rate);
    if Instant::now() < due {
        tokio::time::sleep_until(due.into()).await;
        Instant::now()
    } else {
        due
    }
}

/// Request `n`: its path from the list, the headers, the body with `{n}`
/// and `{city}` filled in.
fn request(shared: &Shared, n: u64) -> Request<Full<Bytes>> {
    let args = &shared.args;
    let path = &shared.paths[n as usize % shared.paths.len()];
    let mut req = Request::builder().method(args.method.as_str()).uri(path.as_str());
    req = req.header("host", shared.authority.as_str());
    for h in &args.headers {
        if let Some((k, v)) = h.split_once(':') {
            req = req.header(k.trim(), v.trim());
        }
    }
    let body = args
        .body
        .as_ref()
        .map(|b| b.replace("{n}", &n.to_string()).replace("{city}", CITIES[n as usize % CITIES.len()]))
        .unwrap_or_default();
    req.body(Full::new(Bytes::from(body))).expect("request")
}

/// The run's two lines: what was sent, and the rate and latencies measured.
fn report(shared: &Shared, mut all: Vec<Duration>) {
    let (args, clock) = (&shared.args, &shared.clock);
    all.sort();
    let n = all.len();
    let pct = |p: f64| all.get(((n as f64 * p) as usize).min(n.saturating_sub(1))).copied().unwrap_or_default();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{} {}  connections={}  duration={:.0}s  requests={}  errors={}",
        args.method,
        args.url,
        args.connections,
        args.duration,
        n,
        shared.errors.load(Ordering::Relaxed)
    );
    let measured = (Instant::now().min(clock.end) - clock.measure_from.min(Instant::now())).as_secs_f64().max(1e-9);
    println!(
        "req/s={:.0}  p50={:.2}ms  p90={:.2}ms  p99={:.2}ms  max={:.2}ms",
        n as f64 / measured.min(args.duration),
        ms(pct(0.50)),
        ms(pct(0.90)),
        ms(pct(0.99)),
        ms(all.last().copied().unwrap_or_default())
    );
}
