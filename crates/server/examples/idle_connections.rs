//! Load program for docs/BENCHMARKS.md (issue 23, item 1): while idle,
//! half-open and h2c-idle connections are held open against an `eldorado
//! serve --demo` on loopback (each one opened again as soon as the server
//! closes it), a demo player plays tickets, each on a new connection, at a
//! steady pace. Prints how many plays succeeded and their latency.
//!
//! cargo run --release -p eldorado-server --example idle_connections -- \
//!     ADDR IDLE HALF_OPEN H2C SOURCES PLAYS PLAYS_PER_SECOND [CLIENTS] [shared]
//!
//! The attackers connect from 127.0.0.10 onwards (SOURCES addresses, in
//! turn); the player from 127.0.0.2, or with `shared` from the first
//! attackers' address (clients behind one NAT, issue 49 item 4). CLIENTS
//! (default 1) clients of that player play the PLAYS in turn, at
//! PLAYS_PER_SECOND in all.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const PLAYER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const H2_SETTINGS: &[u8] = &[0, 0, 0, 4, 0, 0, 0, 0, 0];
const PARTIAL: [&[u8]; 3] = [
    b"GET /api/config HTTP/1.1\r\nHost: x\r\n",
    b"PRI * HTTP/2.0\r\n",
    b"G",
];

#[derive(Clone, Copy)]
enum Kind {
    Idle,
    HalfOpen(usize),
    H2cIdle,
}

async fn connect_from(source: Ipv4Addr, addr: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(IpAddr::V4(source), 0))?;
    socket.connect(addr).await
}

/// Holds one connection of `kind` open for ever: opens it again whenever
/// the server closes it (after a pause if it was closed at once).
async fn attacker(addr: SocketAddr, source: Ipv4Addr, kind: Kind, closed: Arc<AtomicU64>) {
    loop {
        let opened = Instant::now();
        if let Ok(mut stream) = connect_from(source, addr).await {
            let sent = match kind {
                Kind::Idle => Ok(()),
                Kind::HalfOpen(i) => stream.write_all(PARTIAL[i % PARTIAL.len()]).await,
                Kind::H2cIdle => match stream.write_all(H2_PREFACE).await {
                    Ok(()) => stream.write_all(H2_SETTINGS).await,
                    Err(e) => Err(e),
                },
            };
            if sent.is_ok() {
                let mut buffer = [0u8; 512];
                while let Ok(n) = stream.read(&mut buffer).await {
                    if n == 0 {
                        break;
                    }
                }
            }
            closed.fetch_add(1, Ordering::Relaxed);
        }
        if opened.elapsed() < Duration::from_secs(1) {
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

async fn request(
    source: Ipv4Addr,
    addr: SocketAddr,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: String,
) -> Result<(StatusCode, serde_json::Value), String> {
    let stream = connect_from(source, addr)
        .await
        .map_err(|e| e.to_string())?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let mut builder = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "eldorado.bench")
        .header("content-type", "application/json");
    if let Some(token) = token {
        builder = builder.header("authorization", format!("Bearer {token}"));
    }
    let request = builder
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status();
    let bytes = response
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    Ok((status, serde_json::from_slice(&bytes).unwrap_or_default()))
}

/// Plays `plays` tickets, the `client`-th of every `clients`, each at its
/// time of a steady pace; the latencies of those sold, and the failures.
async fn play(
    source: Ipv4Addr,
    addr: SocketAddr,
    token: String,
    plays: usize,
    (client, clients): (usize, usize),
    pace: Duration,
    started: Instant,
) -> (Vec<Duration>, usize) {
    let mut latencies = Vec::new();
    let mut failures = 0usize;
    for i in (client..plays).step_by(clients) {
        let due = started + pace * i as u32;
        tokio::time::sleep_until(due.into()).await;
        let body = format!(r#"{{"stake_cents":50,"idempotency_key":"bench-{i:06}"}}"#);
        let t = Instant::now();
        let reply = tokio::time::timeout(
            Duration::from_secs(30),
            request(source, addr, Method::POST, "/api/sales", Some(&token), body),
        )
        .await;
        let elapsed = t.elapsed();
        match reply {
            Ok(Ok((StatusCode::OK, _))) => latencies.push(elapsed),
            Ok(Ok((status, body))) => {
                failures += 1;
                eprintln!("play {i}: {status} {body}");
            }
            Ok(Err(e)) => {
                failures += 1;
                eprintln!("play {i}: {e}");
            }
            Err(_) => {
                failures += 1;
                eprintln!("play {i}: no answer in 30 s");
            }
        }
    }
    (latencies, failures)
}

fn arg<T: std::str::FromStr>(args: &[String], i: usize, name: &str) -> T {
    args.get(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("argument {i}: {name}"))
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr: SocketAddr = arg(&args, 0, "ADDR");
    let idle: usize = arg(&args, 1, "IDLE");
    let half_open: usize = arg(&args, 2, "HALF_OPEN");
    let h2c: usize = arg(&args, 3, "H2C");
    let sources: u8 = arg(&args, 4, "SOURCES");
    let plays: usize = arg(&args, 5, "PLAYS");
    let per_second: u64 = arg(&args, 6, "PLAYS_PER_SECOND");
    let clients: usize = args.get(7).map_or(1, |_| arg(&args, 7, "CLIENTS"));
    let shared = args.get(8).is_some_and(|a| a == "shared");
    assert!((1..=200).contains(&sources), "SOURCES: 1..=200");
    assert!(clients >= 1, "CLIENTS: at least 1");
    let player = if shared {
        Ipv4Addr::new(127, 0, 0, 10)
    } else {
        PLAYER
    };

    let closed = Arc::new(AtomicU64::new(0));
    let kinds = (0..idle)
        .map(|_| Kind::Idle)
        .chain((0..half_open).map(Kind::HalfOpen))
        .chain((0..h2c).map(|_| Kind::H2cIdle));
    for (i, kind) in kinds.enumerate() {
        let source = Ipv4Addr::new(127, 0, 0, 10 + (i % usize::from(sources)) as u8);
        tokio::spawn(attacker(addr, source, kind, Arc::clone(&closed)));
        if i % 200 == 199 {
            // Let the connections open before the next wave.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    println!(
        "attack: {idle} idle + {half_open} half-open + {h2c} h2c-idle connections from {sources} address(es), reopened when closed"
    );

    let (status, body) = request(
        player,
        addr,
        Method::POST,
        "/api/demo/players",
        None,
        "{}".into(),
    )
    .await
    .expect("a demo player");
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let token = body["token"].as_str().unwrap().to_owned();

    println!(
        "{clients} client(s) from {player}{}",
        if shared {
            ", the attackers' address"
        } else {
            ""
        }
    );
    let pace = Duration::from_micros(1_000_000 / per_second.max(1));
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|client| {
            let token = token.clone();
            tokio::spawn(play(
                player,
                addr,
                token,
                plays,
                (client, clients),
                pace,
                started,
            ))
        })
        .collect();
    let mut latencies = Vec::with_capacity(plays);
    let mut failures = 0usize;
    for task in tasks {
        let (sold, failed) = task.await.expect("a client");
        latencies.extend(sold);
        failures += failed;
    }
    latencies.sort();
    let pick = |q: f64| {
        latencies
            .get(((latencies.len() as f64 * q).ceil() as usize).saturating_sub(1))
            .map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0)
    };
    println!(
        "plays: {} of {plays} succeeded, {failures} failed, over {:.1} s",
        latencies.len(),
        started.elapsed().as_secs_f64()
    );
    println!(
        "latency (new connection + sale): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        pick(0.50),
        pick(0.99),
        pick(1.0)
    );
    println!(
        "attack connections closed by the server meanwhile: {}",
        closed.load(Ordering::Relaxed)
    );
}
