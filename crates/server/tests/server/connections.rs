//! Issue 23, item 1: idle connections must not stop the service. On a real
//! loopback listener: connections that send nothing, a partial request
//! or only the HTTP/2 preface are closed after `--header-timeout-ms`
//! while a player on another address plays; beyond `--max-connections` the
//! connection idle the longest makes room; one address holds at most
//! `--max-connections-per-address`. Each test waits for the positive
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

struct Running {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    server: tokio::task::JoinHandle<Result<(), eldorado_server::ServeError>>,
}

async fn start(adjust: impl FnOnce(&mut eldorado_server::Config)) -> Running {
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
    async fn stop(self) {
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
async fn one_address_holds_at_most_its_share_of_connections() {
    let server = start(|c| {
        c.limits.max_connections_per_address = 3;
        c.limits.header_timeout = Duration::from_secs(600);
    })
    .await;
    let addr = server.addr;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(connect_from("127.0.0.3", addr).await);
    }
    let fourth = connect_from("127.0.0.3", addr).await;
    closed_by_server(fourth, "a fourth connection from one address").await;
    // Another address is served at once.
    let token = tokio::time::timeout(BOUND, player(addr)).await.unwrap();
    let (status, body) = play_over_tcp(addr, &token, "cap-0001").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    drop(held);
    server.stop().await;
}
