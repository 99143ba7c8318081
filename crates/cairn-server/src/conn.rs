//! Accepting connections: HTTP/1.1 over TCP, each connection on a task of
//! its own, with two guards against clients that hold connections open
//! without finishing a request (they need no key to do it):
//!
//! - a connection whose request head (request line and headers) is not
//!   complete within [`CapacityLimits::header_timeout`] is closed; so is
//!   an idle kept-alive connection after as long;
//! - at most [`CapacityLimits::max_connections`] connections are open at
//!   once; past it the server accepts no more until one closes (the
//!   others wait in the kernel's queue), so it never runs out of file
//!   descriptors, which the store needs too.
//!
//! Each request carries its peer's address ([`ConnectInfo`]), for limits
//! by client. On shutdown, accepting stops and every connection finishes
//! the request it is answering, then closes.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::CapacityLimits;

/// Whether an accept error concerns only the connection being accepted.
fn connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

/// Serve `app` on `listener` under `limits` until `stop` is cancelled,
/// then wait for the open connections to finish.
pub async fn accept(
    listener: TcpListener,
    app: Router,
    limits: CapacityLimits,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let open = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    // Every connection holds a sender; `recv` answers `None` once all are
    // gone.
    let (alive, mut all_closed) = tokio::sync::mpsc::channel::<()>(1);
    loop {
        let permit = tokio::select! {
            _ = stop.cancelled() => break,
            p = open.clone().acquire_owned() => p.expect("the semaphore is never closed"),
        };
        let accepted = tokio::select! {
            _ = stop.cancelled() => break,
            a = listener.accept() => a,
        };
        let (tcp, peer) = match accepted {
            Ok(a) => a,
            Err(e) if connection_error(&e) => continue,
            Err(e) => {
                // Out of file descriptors, say: wait rather than spin.
                tracing::error!(error = %e, "accept error");
                tokio::select! {
                    _ = stop.cancelled() => break,
                    _ = tokio::time::sleep(Duration::from_millis(200)) => continue,
                }
            }
        };
        let app = app.clone();
        let stop = stop.clone();
        let alive = alive.clone();
        tokio::spawn(async move {
            serve_one(tcp, peer, app, limits.header_timeout, stop).await;
            drop(permit);
            drop(alive);
        });
    }
    drop(listener);
    drop(alive);
    let _ = all_closed.recv().await;
    Ok(())
}

/// One connection, until the client closes it, it times out, or `stop`.
async fn serve_one(
    tcp: TcpStream,
    peer: SocketAddr,
    app: Router,
    header_timeout: Duration,
    stop: CancellationToken,
) {
    // Responses go out in several writes (headers, SSE events): without
    // TCP_NODELAY, Nagle's algorithm and delayed ACKs delay each call.
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!(error = %e, "could not set TCP_NODELAY");
    }
    let service =
        hyper::service::service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            tower_service::Service::call(&mut app.clone(), req)
        });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let conn = builder.serve_connection(TokioIo::new(tcp), service);
    tokio::pin!(conn);
    let done = tokio::select! {
        done = conn.as_mut() => done,
        _ = stop.cancelled() => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = done {
        tracing::debug!(error = %e, %peer, "connection ended");
    }
}
