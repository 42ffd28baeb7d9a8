//! Issue 23, item 1: idle connections must not stop the service. On a real
//! loopback listener: connections that send nothing, a partial request
//! or only the HTTP/2 preface are closed after `--header-timeout-ms`
//! while a player on another address plays; beyond `--max-connections` the
//! connection idle the longest makes room; one address holds at most
//! `--max-connections-per-address`, its idle connections closed first to
//! make room for its new ones (issue 49, item 4). Each test waits for the positive
//! marker (the socket reads EOF), bounded so a broken server fails it.

use crate::common::*;
use axum::http::{Method, Request, StatusCode};
use bytes::Bytes;
use eldorado_server::clock::ManualClock;
use eldorado_server::AppState;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::oneshot;

/// The player's address; the idle clients use others of 127.0.0.0/8.
const PLAYER: &str = "127.0.0.2";
/// Longest a test waits for a marker before failing.
const BOUND: Duration = Duration::from_secs(30);

pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    stop: oneshot::Sender<()>,
    server: tokio::task::JoinHandle<Result<(), eldorado_server::ServeError>>,
}

pub(crate) async fn start(adjust: impl FnOnce(&mut eldorado_server::Config)) -> Running {
    let state: AppState = shared_with(
        adjust,
        Arc::new(ManualClock::new(eldorado_server::clock::system_now_ms())),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(eldorado_server::serve_on(listener, state, async {
        let _ = stopped.await;
    }));
    Running { addr, stop, server }
}

impl Running {
    pub(crate) async fn stop(self) {
        let _ = self.stop.send(());
        self.server.await.unwrap().unwrap();
    }
}

async fn connect_from(source: &str, addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(source.parse().unwrap(), 0))
        .unwrap();
    socket.connect(addr).await.unwrap()
}

/// One request on a new HTTP/1.1 connection from `source`.
async fn request(
    addr: SocketAddr,
    source: &str,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (StatusCode, Value) {
    let stream = connect_from(source, addr).await;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut builder = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "eldorado.test")
        .header("content-type", "application/json");
    if let Some(token) = token {
        builder = builder.header("authorization", format!("Bearer {token}"));
    }
    let request = builder
        .body(Full::new(Bytes::from(body.to_owned())))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// A demo player created over the listener; its token.
async fn player(addr: SocketAddr) -> String {
    let (status, body) = request(addr, PLAYER, Method::POST, "/api/demo/players", None, "{}").await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["token"].as_str().unwrap().to_owned()
}

async fn play_over_tcp(addr: SocketAddr, token: &str, key: &str) -> (StatusCode, Value) {
    let body = format!(r#"{{"stake_cents":50,"idempotency_key":"{key}"}}"#);
    request(addr, PLAYER, Method::POST, "/api/sales", Some(token), &body).await
}

/// Reads until the server closes the connection (EOF or reset); fails the
/// test if it is still open after `BOUND`.
async fn closed_by_server(mut stream: TcpStream, what: &str) {
    let mut buffer = [0u8; 1024];
    tokio::time::timeout(BOUND, async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{what}: still open after {BOUND:?}"));
}

const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// An empty SETTINGS frame: length 0, type 4, no flags, stream 0.
const H2_SETTINGS: &[u8] = &[0, 0, 0, 4, 0, 0, 0, 0, 0];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_half_open_and_h2c_idle_connections_are_closed_while_a_player_plays() {
    let server = start(|c| c.limits.header_timeout = Duration::from_millis(1_500)).await;
    let addr = server.addr;
    let mut idle = Vec::new();
    // Nothing sent at all, from two addresses (each under its cap).
    for i in 0..600 {
        let source = if i % 2 == 0 { "127.0.0.3" } else { "127.0.0.4" };
        idle.push(("silent", connect_from(source, addr).await));
    }
    // Half-open: a request (or preface) begun and never finished.
    let partial: [&[u8]; 3] = [
        b"GET /api/config HTTP/1.1\r\nHost: x\r\n",
        b"PRI * HTTP/2.0\r\n",
        b"G",
    ];
    for i in 0..150 {
        let mut stream = connect_from("127.0.0.5", addr).await;
        stream.write_all(partial[i % 3]).await.unwrap();
        idle.push(("half-open", stream));
    }
    // h2c: the preface and SETTINGS, then nothing.
    for _ in 0..50 {
        let mut stream = connect_from("127.0.0.6", addr).await;
        stream.write_all(H2_PREFACE).await.unwrap();
        stream.write_all(H2_SETTINGS).await.unwrap();
        idle.push(("h2c idle", stream));
    }
    // An h2c client that made one request, then idles.
    let stream = connect_from("127.0.0.7", addr).await;
    let (mut h2, h2_connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .unwrap();
    let h2_connection = tokio::spawn(h2_connection);
    let response = h2
        .send_request(
            Request::get(format!("http://{addr}/api/config"))
                .body(Full::new(Bytes::new()))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    drop(response);

    // Meanwhile, a player plays: every ticket sold, each on a new connection.
    let token = player(addr).await;
    for i in 0..20 {
        let (status, body) = play_over_tcp(addr, &token, &format!("idle-{i:04}")).await;
        assert_eq!(status, StatusCode::OK, "play {i}: {body}");
    }

    let waits: Vec<_> = idle
        .into_iter()
        .map(|(what, stream)| tokio::spawn(closed_by_server(stream, what)))
        .collect();
    for wait in waits {
        wait.await.unwrap();
    }
    tokio::time::timeout(BOUND, h2_connection)
        .await
        .expect("the idle h2c connection is closed after its request")
        .unwrap()
        .unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_max_connections_the_oldest_idle_one_makes_room() {
    // A long header timeout: only making room can close a connection here.
    let server = start(|c| {
        c.limits.max_connections = 6;
        c.limits.header_timeout = Duration::from_secs(600);
    })
    .await;
    let addr = server.addr;
    let mut idle = Vec::new();
    for _ in 0..6 {
        idle.push(connect_from("127.0.0.3", addr).await);
    }
    // Accepted in order: the player's connection is the seventh.
    let token = tokio::time::timeout(BOUND, player(addr))
        .await
        .expect("a new connection is served while idle ones fill the server");
    let oldest = idle.remove(0);
    closed_by_server(oldest, "the oldest idle connection").await;
    let (status, body) = tokio::time::timeout(BOUND, play_over_tcp(addr, &token, "room-0001"))
        .await
        .expect("served again");
    assert_eq!(status, StatusCode::OK, "{body}");
    drop(idle);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_holds_at_most_its_share_and_its_busy_connections_are_kept() {
    // Long timeouts: only the share can close a connection here.
    let server = start(|c| {
        c.limits.max_connections_per_address = 3;
        c.limits.header_timeout = Duration::from_secs(600);
        c.limits.body_timeout = Duration::from_secs(600);
    })
    .await;
    let addr = server.addr;
    // Three requests in progress from one address: each sent its head,
    // was told to go on (the handler is reading its body: the request is in
    // progress) and sent part of its body.
    let mut busy = Vec::new();
    for _ in 0..3 {
        let mut stream = connect_from("127.0.0.3", addr).await;
        stream
            .write_all(
                b"POST /api/demo/players HTTP/1.1\r\nHost: x\r\n\
                  Content-Type: application/json\r\nContent-Length: 10\r\n\
                  Expect: 100-continue\r\n\r\n",
            )
            .await
            .unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(BOUND, async {
            let mut byte = [0u8; 1];
            while !answer.ends_with(b"\r\n\r\n") {
                assert_eq!(stream.read(&mut byte).await.unwrap(), 1, "open");
                answer.push(byte[0]);
            }
        })
        .await
        .expect("told to go on");
        assert!(answer.starts_with(b"HTTP/1.1 100"), "{answer:?}");
        stream.write_all(b"{").await.unwrap();
        busy.push(stream);
    }
    // Nothing of that address is idle: a fourth connection is closed.
    let fourth = connect_from("127.0.0.3", addr).await;
    closed_by_server(fourth, "a fourth connection while three are busy").await;
    // Another address is served at once.
    let token = tokio::time::timeout(BOUND, player(addr)).await.unwrap();
    let (status, body) = play_over_tcp(addr, &token, "cap-0001").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    drop(busy);
    server.stop().await;
}

/// Issue 49, item 4: behind one address (a carrier NAT), one client holding
/// 700 idle connections, beyond the address's 512, does not lock out the
/// others: each new connection closes the address's oldest idle one, and
/// 20 clients on the same address play every ticket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_of_one_address_make_room_for_its_active_clients() {
    const SHARE: usize = 512;
    let server = start(|c| {
        c.limits.max_connections_per_address = SHARE;
        c.limits.header_timeout = Duration::from_secs(600);
        // The clients share one address: its sale rate is not what is tried.
        c.limits.sales_per_second = 10_000;
    })
    .await;
    let addr = server.addr;
    let mut idle = Vec::new();
    for _ in 0..700 {
        idle.push(connect_from(PLAYER, addr).await);
    }
    let token = tokio::time::timeout(BOUND, player(addr))
        .await
        .expect("a new connection from a full address is served");
    let clients: Vec<_> = (0..20)
        .map(|client| {
            let token = token.clone();
            tokio::spawn(async move {
                for ticket in 0..3 {
                    let key = format!("nat-{client:02}-{ticket}");
                    let (status, body) = play_over_tcp(addr, &token, &key).await;
                    assert_eq!(
                        status,
                        StatusCode::OK,
                        "client {client}, ticket {ticket}: {body}"
                    );
                }
            })
        })
        .collect();
    for client in clients {
        tokio::time::timeout(BOUND, client)
            .await
            .expect("every client of the full address is served")
            .unwrap();
    }
    // The idle connections that made room were the oldest: the first one
    // is closed, the newest is still open (it is answered).
    let newest = idle.pop().unwrap();
    closed_by_server(idle.remove(0), "the oldest idle connection").await;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(newest))
        .await
        .unwrap();
    tokio::spawn(connection);
    let response = sender
        .send_request(
            Request::get("/api/config")
                .header("host", "x")
                .body(Full::new(Bytes::new()))
                .unwrap(),
        )
        .await
        .expect("the newest idle connection was kept");
    assert_eq!(response.status(), StatusCode::OK);
    drop(idle);
    server.stop().await;
}
