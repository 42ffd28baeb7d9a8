//! Issue 49, item 2: the answers hyper makes before any handler runs, to a
//! request head it cannot parse, keep the contract of every answer: the
//! error body of docs/PROTOCOL.md and the security headers. Each kind is
//! sent raw over TCP to a real listener, and the answer read to the end
//! (the server closes the connection after it).

use crate::connections::start;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends `request` and reads everything until the server closes. The
/// server may answer and close before all of a huge head is sent: the
/// answer is read while the request is still being written.
async fn raw(addr: std::net::SocketAddr, request: Vec<u8>) -> String {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut stream, mut sending) = stream.into_split();
    let writer = tokio::spawn(async move {
        let _ = sending.write_all(&request).await;
        sending
    });
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await
    .expect("the server answers and closes");
    drop(writer.await);
    String::from_utf8_lossy(&answer).into_owned()
}

fn many_headers() -> Vec<u8> {
    let mut request = b"GET /api/config HTTP/1.1\r\nHost: x\r\n".to_vec();
    for i in 0..10_000 {
        request.extend_from_slice(format!("X-Filler-{i}: {i}\r\n").as_bytes());
    }
    request.extend_from_slice(b"\r\n");
    request
}

fn long_url() -> Vec<u8> {
    let mut request = b"GET /api/config?".to_vec();
    request.extend(std::iter::repeat_n(b'a', 64 * 1024));
    request.extend_from_slice(b" HTTP/1.1\r\nHost: x\r\n\r\n");
    request
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_to_unparsable_heads_keep_the_error_contract() {
    let server = start(|_| {}).await;
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        ("10,000 header fields", many_headers(), 431),
        ("a 64 KiB URL", long_url(), 414),
        (
            "two Content-Lengths",
            b"POST /api/demo/players HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"
                .to_vec(),
            400,
        ),
        (
            "a NUL in the path",
            b"GET /api/con\0fig HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            400,
        ),
        (
            "a folded header",
            b"GET /api/config HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\n\r\n".to_vec(),
            400,
        ),
        (
            "a valid request, then a broken one on the same connection",
            b"GET /api/config HTTP/1.1\r\nHost: x\r\n\r\nGET /api/con\0fig HTTP/1.1\r\nHost: x\r\n\r\n"
                .to_vec(),
            400,
        ),
    ];
    for (what, request, status) in cases {
        let answer = raw(server.addr, request).await;
        // The last answer on the connection is the refusal.
        let last = answer.rfind("HTTP/1.1 ").map_or("", |at| &answer[at..]);
        let (head, body) = last
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("{what}: no whole answer: {answer:?}"));
        let head = head.to_ascii_lowercase();
        assert!(
            head.starts_with(&format!("http/1.1 {status} ")),
            "{what}: {head}"
        );
        for header in [
            "content-type: application/json",
            "x-content-type-options: nosniff",
            "referrer-policy: no-referrer",
            "content-security-policy: default-src 'none'",
            "connection: close",
        ] {
            assert!(head.contains(header), "{what}: no {header}: {head}");
        }
        let body: serde_json::Value = serde_json::from_str(body)
            .unwrap_or_else(|e| panic!("{what}: the body is not the error body ({e}): {body:?}"));
        assert_eq!(body["error"]["code"], "BAD_REQUEST", "{what}: {body}");
        assert!(body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
    }
    server.stop().await;
}
