//! Clients that open connections and never finish a request: over real
//! TCP, they are closed after the header timeout, at most so many are
//! held at once, and a normal client is still served.

use std::time::{Duration, Instant};

use cairn_server::CapacityLimits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::browser::{request, status};
use crate::http::RawHttp;
use crate::state;

/// A connection that sends half a request head and then nothing.
async fn half_sent(addr: std::net::SocketAddr) -> TcpStream {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1")
        .await
        .unwrap();
    tcp
}

/// Whether the server closed `tcp` within `wait`.
async fn closed_within(tcp: &mut TcpStream, wait: Duration) -> bool {
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout(wait, tcp.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            // Whatever it says first (a 408, say), it must then close.
            Ok(Ok(_)) => continue,
        }
    }
}

#[tokio::test]
async fn half_sent_requests_are_closed_and_a_normal_client_is_still_served() {
    let state = state().with_capacity(CapacityLimits {
        header_timeout: Duration::from_millis(800),
        max_connections: 40,
        ..Default::default()
    });
    let http = RawHttp::start_with(state, None).await;
    let mut slow = Vec::new();
    for _ in 0..120 {
        slow.push(half_sent(http.addr).await);
    }
    // Also an idle connection after one whole request (keep-alive).
    let mut idle = TcpStream::connect(http.addr).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let host = format!("localhost:{}", http.addr.port());
    let reply = tokio::time::timeout(
        Duration::from_secs(20),
        http.exchange(&request("GET", "/healthz", &host, "", "")),
    )
    .await
    .expect("a normal client is served while 120 connections hang");
    assert_eq!(status(&reply), 200, "{reply}");
    for (i, tcp) in slow.iter_mut().enumerate() {
        assert!(
            closed_within(tcp, Duration::from_secs(10)).await,
            "half-sent connection {i} is still open"
        );
    }
    assert!(
        closed_within(&mut idle, Duration::from_secs(10)).await,
        "an idle kept-alive connection is closed too"
    );
    http.stop().await;
}

#[tokio::test]
async fn past_the_connection_limit_the_server_accepts_no_more_until_one_closes() {
    let timeout = Duration::from_millis(1500);
    let state = state().with_capacity(CapacityLimits {
        header_timeout: timeout,
        max_connections: 2,
        ..Default::default()
    });
    let http = RawHttp::start_with(state, None).await;
    let _a = half_sent(http.addr).await;
    let _b = half_sent(http.addr).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let host = format!("localhost:{}", http.addr.port());
    let started = Instant::now();
    let reply = tokio::time::timeout(
        Duration::from_secs(10),
        http.exchange(&request("GET", "/healthz", &host, "", "")),
    )
    .await
    .expect("served once a slot is free");
    assert_eq!(status(&reply), 200, "{reply}");
    let waited = started.elapsed();
    assert!(
        waited >= timeout / 2,
        "served after {waited:?}: the two open connections should have held both slots"
    );
    http.stop().await;
}
