//! `crm-floor PORT FILE`: the least a durable create can cost on this machine,
//! for issue 70's budget: an HTTP/1.1 server (hyper, tokio's two workers, as
//! the host) whose every `POST` appends its body and a newline to FILE (so
//! FILE's lines count what it acknowledged) and answers 201 with
//! a contact-sized JSON body once an `fdatasync` covers it. Syncs are
//! grouped: one thread syncs whatever was appended since its last sync and
//! then wakes every request it covered, as the host's group commit does.
//!
//! What it leaves out is everything a create does beyond moving bytes: no
//! authentication, JSON, city, record, index or Wasm. Its CPU a request
//! (`scripts/bench-create-budget.sh` runs it beside the host) is the floor
//! the stages above it stand on.

use std::convert::Infallible;
use std::io::Write;
use std::sync::{Arc, Condvar, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// About the size of a created contact's answer (its flattened JSON).
const ANSWER: &str = concat!(
    r#"{"success":true,"message":"Contact created","data":{"id":"6b11aa120002722cddb8dc71","firstName":"N","#,
    r#""lastName":"","fullName":"N","company":"","companyId":null,"email":"r1n300@w.co","mobile":"","phone":"","#,
    r#""city":"Medellín","cityCode":"05001","state":"Antioquia","stateCode":"05","country":"Colombia","#,
    r#""idType":null,"idNumber":null,"linkedConversationId":null,"leadScore":0,"attribution":null,"tags":[],"#,
    r#""createdAt":"2026-12-03T17:42:42.926Z","updatedAt":"2026-12-03T17:42:42.926Z"}}"#
);

/// Appended bodies not yet synced, and the requests waiting on them.
#[derive(Default)]
struct Pending {
    bytes: Vec<u8>,
    waiting: Vec<oneshot::Sender<()>>,
}

struct Log {
    pending: Mutex<Pending>,
    ready: Condvar,
}

impl Log {
    async fn append(&self, body: &[u8]) {
        let (synced, wait) = oneshot::channel();
        {
            let mut pending = self.pending.lock().expect("the log");
            pending.bytes.extend_from_slice(body);
            pending.bytes.push(b'\n');
            pending.waiting.push(synced);
        }
        self.ready.notify_one();
        let _ = wait.await;
    }

    /// The sync thread: writes and syncs what was appended, then wakes its requests.
    fn sync_forever(&self, mut file: std::fs::File) {
        loop {
            let taken = {
                let pending = self.pending.lock().expect("the log");
                let mut pending = self.ready.wait_while(pending, |p| p.waiting.is_empty()).expect("the log");
                std::mem::take(&mut *pending)
            };
            file.write_all(&taken.bytes).expect("append");
            file.sync_data().expect("fdatasync");
            taken.waiting.into_iter().for_each(|w| {
                let _ = w.send(());
            });
        }
    }
}

async fn answer(log: Arc<Log>, req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = match Limited::new(req.into_body(), 64 << 10).collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return Ok(Response::builder().status(400).body(Full::default()).expect("response")),
    };
    log.append(&body).await;
    Ok(Response::builder()
        .status(StatusCode::CREATED)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(ANSWER.as_bytes())))
        .expect("response"))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(port), Some(path)) = (args.next(), args.next()) else {
        eprintln!("usage: crm-floor PORT FILE");
        std::process::exit(2);
    };
    let file = std::fs::OpenOptions::new().create(true).append(true).open(&path).expect("the log file");
    let log = Arc::new(Log { pending: Mutex::default(), ready: Condvar::new() });
    let syncing = log.clone();
    std::thread::spawn(move || syncing.sync_forever(file));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    runtime.block_on(async move {
        let listener = TcpListener::bind(("127.0.0.1", port.parse::<u16>().expect("a port"))).await.expect("bind");
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let _ = stream.set_nodelay(true);
            let log = log.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| answer(log.clone(), req));
                let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
}
