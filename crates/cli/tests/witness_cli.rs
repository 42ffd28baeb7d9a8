//! `eldorado witness` as an operator runs it, against a log served over
//! HTTP by this test (real checkpoints and proofs, built with the engine;
//! the real server's routes are tested end to end elsewhere).

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use eldorado_api::{ConsistencyProof, CosignatureSubmission};
use eldorado_engine::commit::signing_key_from_secret;
use eldorado_engine::transparency::{
    open_checkpoint, sign_checkpoint, LogKey, MemoryTree, WitnessKey,
};
use eldorado_engine::SigningKey;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const ORIGIN: &str = "eldorado.test/log";

fn operator() -> SigningKey {
    signing_key_from_secret([7; 32])
}

fn log_key() -> LogKey {
    LogKey::new(ORIGIN, operator().verifying_key()).unwrap()
}

/// The log's tree; `variant` rewrites record 1 (another history).
fn tree_of(size: u64, variant: u8) -> MemoryTree {
    let mut tree = MemoryTree::default();
    for i in 0..size {
        let record = format!("record {i} {}", if i == 1 { variant } else { 0 });
        tree.append(record.as_bytes()).unwrap();
    }
    tree
}

struct Served {
    tree: MemoryTree,
    size: u64,
    note: String,
    cosignatures: Vec<String>,
    announced_key: String,
}

type Shared = Arc<Mutex<Served>>;

/// The log's routes the witness calls.
struct FakeLog {
    addr: SocketAddr,
    served: Shared,
    _runtime: tokio::runtime::Runtime,
}

impl FakeLog {
    fn start() -> FakeLog {
        let served = Arc::new(Mutex::new(Served {
            tree: MemoryTree::default(),
            size: 0,
            note: String::new(),
            cosignatures: Vec::new(),
            announced_key: log_key().vkey(),
        }));
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new()
            .route("/api/config", get(config))
            .route("/api/log/checkpoint/latest", get(latest))
            .route("/api/log/proof/consistency", get(consistency))
            .route("/api/log/cosignatures", post(cosign))
            .with_state(served.clone());
        runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
        FakeLog {
            addr,
            served,
            _runtime: runtime,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn publish(&self, size: u64, variant: u8) {
        let tree = tree_of(size, variant);
        let note = sign_checkpoint(ORIGIN, size, &tree.root(size).unwrap(), &operator()).unwrap();
        let mut served = self.served.lock().unwrap();
        served.note = String::from_utf8(note).unwrap();
        served.tree = tree;
        served.size = size;
        served.cosignatures.clear();
    }

    fn served_note(&self) -> String {
        let served = self.served.lock().unwrap();
        served.note.clone() + &served.cosignatures.concat()
    }
}

async fn config(State(served): State<Shared>) -> Json<serde_json::Value> {
    let key = served.lock().unwrap().announced_key.clone();
    Json(serde_json::json!({"log": {"origin": ORIGIN, "key": key, "witnesses": [], "quorum": 0}}))
}

async fn latest(State(served): State<Shared>) -> Result<String, StatusCode> {
    let served = served.lock().unwrap();
    if served.note.is_empty() {
        return Err(StatusCode::SERVICE_UNAVAILABLE);
    }
    Ok(served.note.clone() + &served.cosignatures.concat())
}

async fn consistency(
    State(served): State<Shared>,
    Query(query): Query<HashMap<String, u64>>,
) -> Result<Json<ConsistencyProof>, StatusCode> {
    let served = served.lock().unwrap();
    let (from, size) = (query["from"], query["size"]);
    if from > size || size > served.size {
        return Err(StatusCode::BAD_REQUEST);
    }
    let hashes = served.tree.consistency(from, size).unwrap();
    Ok(Json(ConsistencyProof { from, size, hashes }))
}

async fn cosign(
    State(served): State<Shared>,
    Json(submission): Json<CosignatureSubmission>,
) -> StatusCode {
    let mut served = served.lock().unwrap();
    let current = served.note.clone() + &served.cosignatures.concat();
    if submission.checkpoint != current {
        return StatusCode::BAD_REQUEST;
    }
    served.cosignatures.push(submission.cosignature);
    StatusCode::NO_CONTENT
}

fn witness(log: &FakeLog, dir: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["witness", "--log", &log.url()])
        .args(["--key-file", dir.join("witness.key").to_str().unwrap()])
        .args(["--state", dir.join("state").to_str().unwrap()])
        .args(extra)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The `witness key: <vkey>` line, and the key it announces.
fn announced_key(output: &Output) -> WitnessKey {
    let stdout = text(&output.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    let vkey = first
        .strip_prefix("witness key: ")
        .unwrap_or_else(|| panic!("first line {first:?}"));
    WitnessKey::parse(vkey).unwrap()
}

fn assert_cosigned_by(log: &FakeLog, key: &WitnessKey, size: u64) {
    let note = log.served_note();
    let opened =
        open_checkpoint(note.as_bytes(), &log_key(), std::slice::from_ref(key), 1).unwrap();
    assert_eq!(opened.size, size);
}

#[test]
fn a_witness_cosigns_a_growing_log_then_refuses_a_fork_for_good() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::start();
    log.publish(3, 0);

    let first = witness(&log, dir.path(), &["--once"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let key = announced_key(&first);
    assert!(key.name().starts_with("witness-"), "{}", key.vkey());
    assert_cosigned_by(&log, &key, 3);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("witness.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let pinned = std::fs::read_to_string(dir.path().join("state/log-key")).unwrap();
    assert_eq!(pinned.trim(), log_key().vkey());

    log.publish(8, 0);
    let grown = witness(&log, dir.path(), &["--once"]);
    assert!(grown.status.success(), "{}", text(&grown.stderr));
    assert_eq!(
        announced_key(&grown),
        key,
        "the same key file, the same key"
    );
    assert_cosigned_by(&log, &key, 8);
    let saved: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("state/cosigned.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(saved["size"], 8);
    assert_eq!(saved["root"], tree_of(8, 0).root(8).unwrap().to_hex());

    // Another tree of the same size: a fork, exit 3, evidence kept.
    log.publish(8, 1);
    let forked = witness(&log, dir.path(), &["--once"]);
    assert_eq!(forked.status.code(), Some(3), "{}", text(&forked.stderr));
    let stderr = text(&forked.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("FORK: ") && l.contains("size 8")),
        "{stderr}"
    );
    let fork: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("state/fork.json")).unwrap())
            .unwrap();
    assert!(
        fork["reason"].as_str().unwrap().contains("another root"),
        "{fork}"
    );
    assert_ne!(fork["cosigned"]["note"], fork["offered"]["note"]);
    assert!(log.served.lock().unwrap().cosignatures.is_empty());

    // Even the honest log again: a restarted witness still refuses.
    log.publish(9, 0);
    let restarted = witness(&log, dir.path(), &["--once"]);
    assert_eq!(
        restarted.status.code(),
        Some(3),
        "{}",
        text(&restarted.stderr)
    );
    assert!(text(&restarted.stderr)
        .lines()
        .any(|l| l.starts_with("FORK: ")));
    assert!(log.served.lock().unwrap().cosignatures.is_empty());
}

/// A smaller tree (an older copy of the log's database) is not cosigned
/// and is no fork: the witness says so, and cosigns again once the log is
/// back with the tree it cosigned, grown.
#[test]
fn a_rolled_back_log_is_not_cosigned_and_not_a_fork() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::start();
    log.publish(6, 0);
    let first = witness(&log, dir.path(), &["--once"]);
    assert!(first.status.success());
    let key = announced_key(&first);
    log.publish(4, 0);
    let output = witness(&log, dir.path(), &["--once"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("rolled back"));
    assert!(log.served.lock().unwrap().cosignatures.is_empty());
    assert!(!dir.path().join("state/fork.json").exists());
    log.publish(9, 0);
    assert!(witness(&log, dir.path(), &["--once"]).status.success());
    assert_cosigned_by(&log, &key, 9);
}

#[test]
fn a_log_key_other_than_the_pinned_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::start();
    log.publish(2, 0);
    assert!(witness(&log, dir.path(), &["--once"]).status.success());
    let other = LogKey::new(ORIGIN, signing_key_from_secret([8; 32]).verifying_key())
        .unwrap()
        .vkey();
    log.served.lock().unwrap().announced_key = other.clone();
    let output = witness(&log, dir.path(), &["--once"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("pinned"),
        "{}",
        text(&output.stderr)
    );
    let flagged = witness(&log, dir.path(), &["--once", "--log-key", &other]);
    assert_eq!(flagged.status.code(), Some(2));
}

#[test]
fn an_unreachable_log_is_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::start();
    // Nothing signed yet (503), then nothing listening at all.
    let output = witness(&log, dir.path(), &["--once"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(!dir.path().join("state/cosigned.json").exists());
    let output = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["witness", "--log", "http://127.0.0.1:9", "--once"])
        .args([
            "--key-file",
            dir.path().join("witness.key").to_str().unwrap(),
        ])
        .args(["--state", dir.path().join("state").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Polls `GET /status` until `done` accepts it.
fn wait_for_status(
    url: &str,
    done: impl Fn(u16, &serde_json::Value) -> bool,
) -> (u16, serde_json::Value) {
    let client = reqwest::blocking::Client::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut last = None;
    while Instant::now() < deadline {
        if let Ok(response) = client.get(url).send() {
            let code = response.status().as_u16();
            if let Ok(body) = response.text() {
                if let Ok(json) = serde_json::from_str::<serde_json::Value>(&body) {
                    if done(code, &json) {
                        return (code, json);
                    }
                    last = Some((code, json));
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("status never settled; last {last:?}");
}

#[test]
fn the_status_listener_turns_503_on_a_fork_and_keeps_refusing() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::start();
    log.publish(5, 0);
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["witness", "--log", &log.url(), "--poll-ms", "50"])
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args([
            "--key-file",
            dir.path().join("witness.key").to_str().unwrap(),
        ])
        .args(["--state", dir.path().join("state").to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/status");
    let (code, status) = wait_for_status(&url, |_, s| s["size"] == 5);
    assert_eq!(code, 200);
    assert_eq!(status["log"], ORIGIN);
    assert_eq!(status["root"], tree_of(5, 0).root(5).unwrap().to_hex());
    assert!(status["fork"].is_null());
    // What it cosigned is published beside its status, dated.
    let published = |after: u64| -> eldorado_api::WitnessCosignatures {
        let url = format!("http://127.0.0.1:{port}/cosignatures?after={after}");
        serde_json::from_str(&reqwest::blocking::get(url).unwrap().text().unwrap()).unwrap()
    };
    let published_after_4 = published(4);
    let [first] = &published_after_4.cosignatures[..] else {
        panic!("one cosignature: {published_after_4:?}");
    };
    assert!(first.checkpoint.contains("\n5\n"), "{first:?}");
    assert!(first.cosignature.starts_with("— witness-"), "{first:?}");
    assert!(published(5).cosignatures.is_empty());

    log.publish(7, 1);
    let (code, status) = wait_for_status(&url, |_, s| !s["fork"].is_null());
    assert_eq!(code, 503);
    assert!(status["fork"]["reason"]
        .as_str()
        .unwrap()
        .contains("consistency"));
    // Still up, still refusing.
    std::thread::sleep(Duration::from_millis(300));
    assert!(child.try_wait().unwrap().is_none(), "the witness exited");
    assert!(log.served.lock().unwrap().cosignatures.is_empty());
    child.kill().unwrap();
    child.wait().unwrap();
}
