//! A WAN link in user space (this machine's kernel has no `netem`): a TCP
//! proxy that holds every chunk for the one-way delay in each direction,
//! and that a test can cut and mend.
//!
//! Chunks are held, not serialized: many are in flight at once, as on a
//! real link, so the delay costs latency and not bandwidth. A cut link
//! loses nothing and says nothing, as a real one: bytes already sent wait,
//! a new connection is accepted but never reaches the other side, and when
//! the link is mended everything held moves on (TCP would retransmit it).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

pub struct Wan {
    port: u16,
    /// `true` while the link is cut.
    cut: Arc<watch::Sender<bool>>,
}

impl Wan {
    /// A link to `target` (a loopback port) that delays each direction by
    /// `one_way`, on a free port. It runs on a thread of its own until the
    /// process ends.
    pub fn to(target: u16, one_way: Duration) -> Wan {
        Wan::listening_on(SocketAddr::from(([127, 0, 0, 1], 0)), target, one_way)
    }

    /// [`Wan::to`], listening on `listen`.
    pub fn listening_on(listen: SocketAddr, target: u16, one_way: Duration) -> Wan {
        let (cut, _) = watch::channel(false);
        let cut = Arc::new(cut);
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let link = cut.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
            runtime.block_on(async move {
                let listener = TcpListener::bind(listen).await.expect("bind the WAN proxy");
                port_tx.send(listener.local_addr().unwrap().port()).unwrap();
                loop {
                    let Ok((client, _)) = listener.accept().await else { continue };
                    tokio::spawn(carry(client, SocketAddr::from(([127, 0, 0, 1], target)), one_way, link.subscribe()));
                }
            });
        });
        Wan { port: port_rx.recv().expect("the WAN proxy's port"), cut }
    }

    /// The port to connect to instead of the target's.
    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn cut(&self) {
        self.cut.send_replace(true);
    }

    pub fn mend(&self) {
        self.cut.send_replace(false);
    }
}

/// One connection: waits out a cut before reaching the target, then moves
/// each direction's chunks with the delay.
async fn carry(client: TcpStream, target: SocketAddr, one_way: Duration, mut cut: watch::Receiver<bool>) {
    if cut.wait_for(|cut| !*cut).await.is_err() {
        return;
    }
    let Ok(server) = TcpStream::connect(target).await else { return };
    let _ = (client.set_nodelay(true), server.set_nodelay(true));
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    let there = tokio::spawn(direction(client_read, server_write, one_way, cut.clone()));
    direction(server_read, client_write, one_way, cut).await;
    let _ = there.await;
}

/// One direction: a reader that stamps each chunk with when it may arrive,
/// and a writer that delivers it then, once the link is not cut.
async fn direction(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    one_way: Duration,
    mut cut: watch::Receiver<bool>,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let reader = tokio::spawn(async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send((Instant::now() + one_way, buf[..n].to_vec())).is_err() {
                        break;
                    }
                }
            }
        }
    });
    while let Some((due, chunk)) = rx.recv().await {
        tokio::time::sleep_until(due).await;
        if cut.wait_for(|cut| !*cut).await.is_err() || to.write_all(&chunk).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
    reader.abort();
}
