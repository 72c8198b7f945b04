//! Serving connections: the accept loop of one listener, with every bound a
//! client could otherwise stretch.
//!
//! - **At most `max_connections` at once.** Past it the loop stops accepting
//!   (new connections wait in the kernel's backlog) instead of running out of
//!   file descriptors; an accept error backs off instead of spinning.
//! - **Headers within `header_timeout`.** hyper's header-read timer runs from
//!   the moment a connection waits for a request's head, so it is also the
//!   idle keep-alive timeout; a new connection must send its first byte
//!   within it too.
//! - **Bodies within `body_timeout`** (in [`crate::http::extract`]).
//! - **A bounded shutdown.** When `stop` fires, the listener closes, every
//!   connection is told to finish its in-flight request and close; what is
//!   still running after `grace` is abandoned.
//! - **TLS when configured** ([`crate::tls`]): the handshake is bounded by the
//!   header timeout too, so a client that opens and stalls holds nothing long.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower_service::Service;

use crate::tls::Tls;

/// The address a request's connection came from, in its extensions.
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub std::net::SocketAddr);

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
    let graceful = GracefulShutdown::new();
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(limits.header_timeout);
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
        let service = service.clone();
        let service = hyper::service::service_fn(move |mut request: http::Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(Peer(peer));
            service.clone().call(request)
        });
        let (builder, watcher) = (builder.clone(), graceful.watcher());
        let acceptor = tls.as_ref().map(|tls| tls.acceptor());
        tokio::spawn(async move {
            // hyper's header timer starts once it knows the protocol, which
            // needs a first byte: a connection that sends none is closed here.
            let mut first = [0u8; 1];
            if !matches!(tokio::time::timeout(limits.header_timeout, stream.peek(&mut first)).await, Ok(Ok(1..))) {
                return drop(permit);
            }
            let stream: Box<dyn Stream> = match acceptor {
                None => Box::new(stream),
                Some(acceptor) => match tokio::time::timeout(limits.header_timeout, acceptor.accept(stream)).await {
                    Ok(Ok(tls)) => Box::new(tls),
                    Ok(Err(e)) => return tracing::debug!(error = %e, "TLS handshake failed"),
                    Err(_) => return tracing::debug!("TLS handshake timed out"),
                },
            };
            let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
            if let Err(e) = watcher.watch(connection.into_owned()).await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    tokio::time::timeout(limits.grace, graceful.shutdown()).await.is_ok()
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
