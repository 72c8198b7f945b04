//! Serving connections: the accept loop of one listener, with every bound a
//! client could otherwise stretch.
//!
//! - **At most `max_connections` at once.** Past it the loop stops accepting
//!   (new connections wait in the kernel's backlog) instead of running out of
//!   file descriptors; an accept error backs off instead of spinning.
//! - **Headers within `header_timeout`.** hyper's header-read timer runs from
//!   the moment a connection waits for a request's head, so it is also the
//!   idle keep-alive timeout; a new connection must send its first byte
//!   within it too. An HTTP/2 connection has no such timer: the
//!   connection's own [`Activity`] closes any connection, HTTP/2's included,
//!   that has had nothing in flight for as long.
//! - **Answers read within `header_timeout` a part.** An answer is in flight
//!   until written, so a slow reader of a large one is not taken for idle;
//!   a reader that stops for the header timeout is dropped ([`activity`]).
//! - **Request heads of at most [`HTTP1_BUFFER`]** (HTTP/2's are hyper's 16 KiB).
//! - **Bodies within `body_timeout`** (in [`crate::http::extract`]).
//! - **A bounded shutdown.** When `stop` fires, the listener closes, every
//!   connection is told to finish its in-flight request and close; what is
//!   still running after `grace` is abandoned.
//! - **TLS when configured** ([`tls`]): the handshake is bounded by the
//!   header timeout too, so a client that opens and stalls holds nothing long.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio_rustls::TlsAcceptor;
use tower_service::Service;

use crate::http::request::{Peer, Protocol};
use crate::http::response::HeldUntilWritten;
use crate::listener::tls::Tls;
use activity::Activity;

mod activity;
pub mod tls;

/// An HTTP/1.1 connection's read buffer, and so the largest request head
/// (431 past it): hyper's default of 408 KiB let 10,000 connections hold
/// 4 GiB of headers. Browsers and proxies send a few KiB (nginx takes 32).
const HTTP1_BUFFER: usize = 64 << 10;

/// The bounds of one listener.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub grace: Duration,
}

/// A connection's byte stream: the socket, or TLS over it.
trait Stream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send {}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send> Stream for T {}

/// Serves `service` (a warp filter made a service) on `listener`, over TLS
/// when `tls` is given, until `stop` resolves, then shuts down within
/// `limits.grace`. Returns whether every connection finished in time.
pub async fn serve<S, B>(
    listener: TcpListener,
    service: S,
    limits: Limits,
    tls: Option<Arc<Tls>>,
    stop: impl Future<Output = ()>,
) -> bool
where
    S: Service<http::Request<hyper::body::Incoming>, Response = http::Response<B>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let (stopping, stopped) = watch::channel(false);
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(limits.header_timeout).max_buf_size(HTTP1_BUFFER);
    let mut stop = std::pin::pin!(stop);
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => permit.expect("the semaphore is never closed"),
            () = &mut stop => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors or a transient error: wait rather than spin.
                    tracing::warn!(error = %e, "accept failed; pausing");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        // Each request carries the peer's address, and counts as in flight until its answer is written.
        let activity = Arc::new(Activity::new());
        let (service, counting) = (service.clone(), activity.clone());
        let service = hyper::service::service_fn(move |mut request: http::Request<hyper::body::Incoming>| {
            let version = request.version();
            request.extensions_mut().insert(Peer(peer));
            request.extensions_mut().insert(Protocol(version));
            let busy = counting.begin();
            let answer = service.clone().call(request);
            async move {
                answer.await.map(|answer| {
                    let (mut parts, body) = answer.into_parts();
                    let held = parts.extensions.remove::<HeldUntilWritten>();
                    http::Response::from_parts(parts, busy.answer(body, held))
                })
            }
        });
        let (builder, mut stopped) = (builder.clone(), stopped.clone());
        let acceptor = tls.as_ref().map(|tls| tls.acceptor());
        tokio::spawn(async move {
            // Until the first byte and the TLS handshake, a shutdown just drops the connection.
            let stream = tokio::select! {
                stream = opened(stream, acceptor, limits.header_timeout) => stream,
                _ = stopped.wait_for(|stop| *stop) => None,
            };
            let Some(stream) = stream else { return drop(permit) };
            let mut connection = std::pin::pin!(builder.serve_connection_with_upgrades(TokioIo::new(stream), service));
            let mut closing = false;
            // An idle HTTP/2 connection's goodbye waits for the client's answer to a
            // ping: a client that does not answer is dropped after a header timeout,
            // unless a request begun as the goodbye left is still running.
            let mut dropped_at = None;
            loop {
                let dropping = async {
                    match dropped_at {
                        Some(at) => tokio::time::sleep_until(at).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    ended = connection.as_mut() => {
                        if let Err(e) = ended {
                            tracing::debug!(error = %e, "connection ended with an error");
                        }
                        break;
                    }
                    // In-flight requests finish; then the connection closes.
                    _ = stopped.wait_for(|stop| *stop), if !closing => {
                        closing = true;
                        connection.as_mut().graceful_shutdown();
                    }
                    () = activity.idle_for(limits.header_timeout), if !closing => {
                        closing = true;
                        connection.as_mut().graceful_shutdown();
                        dropped_at = Some(tokio::time::Instant::now() + limits.header_timeout);
                    }
                    () = activity.stalled_for(limits.header_timeout) => {
                        tracing::debug!("dropped a connection whose reader stopped reading its answer");
                        break;
                    }
                    () = dropping => match activity.busy() {
                        false => break,
                        true => dropped_at = Some(tokio::time::Instant::now() + limits.header_timeout),
                    },
                }
            }
            drop(permit);
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    // Every connection holds a permit until it ends.
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    tokio::time::timeout(limits.grace, permits.acquire_many(all)).await.is_ok()
}

/// A new connection's stream once it sent its first byte and, with TLS,
/// finished its handshake, each within `within`; `None` when it did not.
async fn opened(stream: TcpStream, acceptor: Option<TlsAcceptor>, within: Duration) -> Option<Box<dyn Stream>> {
    // hyper's header timer starts once it knows the protocol, which needs a
    // first byte: a connection that sends none is closed here.
    let mut first = [0u8; 1];
    if !matches!(tokio::time::timeout(within, stream.peek(&mut first)).await, Ok(Ok(1..))) {
        return None;
    }
    let Some(acceptor) = acceptor else { return Some(Box::new(stream)) };
    match tokio::time::timeout(within, acceptor.accept(stream)).await {
        Ok(Ok(tls)) => Some(Box::new(tls)),
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "TLS handshake failed");
            None
        }
        Err(_) => {
            tracing::debug!("TLS handshake timed out");
            None
        }
    }
}

/// Raises the soft limit of open files to the hard limit, where the system
/// allows; returns the soft limit in force.
#[cfg(unix)]
pub fn raise_open_files_limit() -> Option<u64> {
    // SAFETY: getrlimit/setrlimit with a valid pointer to an rlimit struct.
    unsafe {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
        Some(limit.rlim_cur)
    }
}

#[cfg(not(unix))]
pub fn raise_open_files_limit() -> Option<u64> {
    None
}
