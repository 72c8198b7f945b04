//! A webhook receiver on loopback: records every request it gets and answers
//! as a test tells it (a status, a status with headers, or a hang), so tests
//! see exactly what the host delivers.
//!
//! It serves on a thread of its own, with a runtime of two workers, and
//! stamps a request when its head arrives, before its body is read: a
//! test's own runtime (one thread, which a loaded machine deschedules or a
//! blocking call holds) would leave requests waiting in the socket and then
//! stamp them together, as if they had arrived at once.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use warp::Filter;
use warp::http::Response;

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    /// Header names in lower case.
    pub headers: BTreeMap<String, String>,
    pub body: Vec<u8>,
    /// When its head arrived.
    pub at: Instant,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// Whether one of the request's signatures is the HMAC-SHA256 of
    /// `id.timestamp.body` keyed with `secret` (`whsec_...`), computed here
    /// the way Standard Webhooks verifies it.
    pub fn signed_with(&self, secret: &str) -> bool {
        use base64::Engine;
        use base64::engine::general_purpose::STANDARD;
        use hmac::{Hmac, Mac};
        let Some(key) = secret.strip_prefix("whsec_").and_then(|k| STANDARD.decode(k).ok()) else { return false };
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).expect("any key length");
        mac.update(format!("{}.{}.", self.header("webhook-id"), self.header("webhook-timestamp")).as_bytes());
        mac.update(&self.body);
        let expected = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
        self.header("webhook-signature").split(' ').any(|s| s == expected)
    }

    /// Whether one of the request's `v1a` signatures verifies, with
    /// `ed25519-dalek` (not the library the host signs with), against
    /// `public_key` (`whpk_...`).
    pub fn signed_by(&self, public_key: &str) -> bool {
        use base64::Engine;
        use base64::engine::general_purpose::STANDARD;
        use ed25519_dalek::{Signature, Verifier, VerifyingKey};
        let Some(key) = public_key.strip_prefix("whpk_").and_then(|k| STANDARD.decode(k).ok()) else { return false };
        let Ok(key) = VerifyingKey::try_from(key.as_slice()) else { return false };
        let signed =
            [format!("{}.{}.", self.header("webhook-id"), self.header("webhook-timestamp")).as_bytes(), &self.body]
                .concat();
        self.header("webhook-signature").split(' ').filter_map(|s| s.strip_prefix("v1a,")).any(|s| {
            let signature = STANDARD.decode(s).ok().and_then(|b| Signature::from_slice(&b).ok());
            signature.is_some_and(|signature| key.verify(&signed, &signature).is_ok())
        })
    }
}

/// How the receiver answers one request.
#[derive(Debug, Clone)]
pub enum Answer {
    Status(u16),
    /// A status with headers (`Location`, `Retry-After`).
    With(u16, Vec<(&'static str, String)>),
    /// Never answers (the host's 15 s timeout ends it).
    Hang,
}

#[derive(Default)]
struct State {
    received: Vec<Received>,
    /// Answers for the next requests, in order; then `Status(200)`.
    next: VecDeque<Answer>,
    /// Answers by path, for every request to it (before `next`).
    by_path: BTreeMap<String, Answer>,
}

#[derive(Clone)]
pub struct Receiver {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    state: Arc<Mutex<State>>,
    /// Stops the receiver's thread when the last clone goes.
    _serving: Arc<Serving>,
}

/// Tells the receiver's thread to stop, once dropped.
struct Serving(Option<tokio::sync::oneshot::Sender<()>>);

impl Drop for Serving {
    fn drop(&mut self) {
        if let Some(stop) = self.0.take() {
            let _ = stop.send(());
        }
    }
}

impl Receiver {
    pub async fn start() -> Receiver {
        Receiver::start_on("127.0.0.1:0".parse().unwrap()).await
    }

    pub async fn start_on(addr: SocketAddr) -> Receiver {
        let state = Arc::new(Mutex::new(State::default()));
        let served = state.clone();
        let (bound, bound_at) = tokio::sync::oneshot::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("webhook-receiver".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .expect("the receiver's runtime");
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::bind(addr).await {
                        Ok(listener) => listener,
                        Err(e) => return drop(bound.send(Err(e))),
                    };
                    let _ = bound.send(listener.local_addr());
                    tokio::select! {
                        () = warp::serve(routes(served)).incoming(listener).run() => {}
                        _ = stopped => {}
                    }
                });
                // Dropping the runtime ends the answers still hanging.
            })
            .expect("start the receiver's thread");
        let local = bound_at.await.expect("the receiver's thread").expect("bind the receiver");
        Receiver { url: format!("http://{local}"), state, _serving: Arc::new(Serving(Some(stop))) }
    }

    /// Answers the next requests with these, in order (then 200).
    pub fn answer_next(&self, answers: impl IntoIterator<Item = Answer>) {
        self.state.lock().unwrap().next.extend(answers);
    }

    /// Answers every request to `path` with `answer`.
    pub fn answer_path(&self, path: &str, answer: Answer) {
        self.state.lock().unwrap().by_path.insert(path.to_string(), answer);
    }

    /// Every request so far, oldest first.
    pub fn received(&self) -> Vec<Received> {
        self.state.lock().unwrap().received.clone()
    }

    /// The requests to `path` so far.
    pub fn received_at(&self, path: &str) -> Vec<Received> {
        self.received().into_iter().filter(|r| r.path == path).collect()
    }

    /// Waits until `path` got at least `n` requests; whether it did within `within`.
    pub async fn wait_for(&self, path: &str, n: usize, within: Duration) -> bool {
        crate::shop::eventually(within, || async { self.received_at(path).len() >= n }).await
    }
}

/// What the receiver serves: records each request, stamped as its head
/// arrived, and answers it as `state` says.
fn routes(
    state: Arc<Mutex<State>>,
) -> impl warp::Filter<Extract = (Response<String>,), Error = warp::Rejection> + Clone + Send + Sync + 'static {
    // First, so the stamp is taken before the body is read.
    let arrived = warp::any().map(Instant::now);
    arrived.and(warp::path::full()).and(warp::header::headers_cloned()).and(warp::body::bytes()).then(
        move |at: Instant, path: warp::path::FullPath, headers: warp::http::HeaderMap, body: bytes::Bytes| {
            let state = state.clone();
            async move {
                let received = Received {
                    path: path.as_str().to_string(),
                    headers: headers
                        .iter()
                        .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
                        .collect(),
                    body: body.to_vec(),
                    at,
                };
                let answer = {
                    let mut s = state.lock().unwrap();
                    let answer = s.by_path.get(&received.path).cloned();
                    let answer = answer.or_else(|| s.next.pop_front()).unwrap_or(Answer::Status(200));
                    s.received.push(received);
                    answer
                };
                let (status, extra) = match answer {
                    Answer::Status(status) => (status, Vec::new()),
                    Answer::With(status, headers) => (status, headers),
                    Answer::Hang => {
                        tokio::time::sleep(Duration::from_secs(120)).await;
                        (200, Vec::new())
                    }
                };
                let mut response = Response::builder().status(status);
                for (name, value) in extra {
                    response = response.header(name, value);
                }
                response.body(String::from("ok")).unwrap()
            }
        },
    )
}
