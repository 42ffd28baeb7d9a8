//! Issue 49, item 6: backups that never fork the record. The real
//! `eldorado serve` sells to several buyers at once while `eldorado backup`
//! copies its data directory; the copy, restored into a fresh directory,
//! holds every sale acknowledged before the backup began, the witness goes
//! on cosigning it, and `eldorado log audit` passes. Then a copy older than
//! what the witness has cosigned is refused: restored into its data
//! directory (which keeps the newest witnessed checkpoint) it sells nothing
//! from the start, and restored anywhere else it sells nothing once the
//! witness shows it the checkpoint it cosigned, which it does as soon as it
//! sees the log go back.

use reqwest::blocking::Client;
use reqwest::Method;
use serde_json::Value;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

// The beacon of the support module is not needed here.
#[allow(dead_code)]
#[path = "support/mod.rs"]
mod support;

use support::dealing::{witness, witness_vkey, Killed};

const PLAYERS: usize = 4;
const CREDIT_CENTS: u64 = 1_000_000;
const WITNESS_SECRET: [u8; 32] = [0x49; 32];
/// Bounds that only keep a broken server from hanging the test.
const START_LIMIT: Duration = Duration::from_secs(240);
const WAIT_LIMIT: Duration = Duration::from_secs(60);
const IO_LIMIT: Duration = Duration::from_secs(20);

/// One request on a connection of its own (servers come and go here):
/// (status, `Retry-After`, JSON body).
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> reqwest::Result<(u16, Option<String>, Value)> {
    static CLIENT: OnceLock<Client> = OnceLock::new();
    let client = CLIENT.get_or_init(|| {
        Client::builder()
            .timeout(IO_LIMIT)
            .pool_max_idle_per_host(0)
            .build()
            .expect("an HTTP client")
    });
    let method = Method::from_bytes(method.as_bytes()).expect("an HTTP method");
    let mut request = client.request(method, format!("http://{addr}{path}"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if !body.is_empty() {
        request = request
            .header("content-type", "application/json")
            .body(body.to_owned());
    }
    let reply = request.send()?;
    let status = reply.status().as_u16();
    let retry_after = reply
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let text = reply.text()?;
    Ok((
        status,
        retry_after,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    ))
}

fn get(addr: SocketAddr, path: &str, token: Option<&str>) -> (u16, Value) {
    let (status, _, body) = http(addr, "GET", path, token, "").unwrap();
    (status, body)
}

fn free_port() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// Polls `found` until it gives `Some`, within [`WAIT_LIMIT`].
fn wait_for<T>(what: &str, mut found: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(value) = found() {
            return value;
        }
        assert!(started.elapsed() < WAIT_LIMIT, "never saw {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `eldorado serve` on `data`, requiring the test's witness; returned once
/// it answers its health check (200, or 503 when it refuses to sell).
fn serve(data: &Path, addr: SocketAddr) -> Killed {
    let child = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["serve", "--addr", &addr.to_string(), "--data"])
        .arg(data)
        .args(["--web"])
        .arg(data)
        .args(["--witness", &witness_vkey(WITNESS_SECRET)])
        .args(["--checkpoint-interval-ms", "100"])
        // Every buyer here shares one address.
        .args(["--sales-per-second", "1000000"])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let server = Killed(child);
    let started = Instant::now();
    loop {
        if let Ok((200 | 503, _, _)) = http(addr, "GET", "/api/health", None, "") {
            return server;
        }
        assert!(started.elapsed() < START_LIMIT, "the server never answered");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn eldorado(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("RUST_LOG", "warn")
        .output()
        .expect("the binary runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `eldorado backup` of `data` into `out`: the size of the copy's log.
fn backup(data: &Path, out: &Path) -> u64 {
    let output = eldorado(&[
        "backup",
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("public log size: "))
        .unwrap_or_else(|| panic!("no log size in {stdout}"))
        .parse()
        .unwrap()
}

/// The restore procedure of docs/DEPLOYMENT.md: the old database's files
/// moved aside (its `-wal` would otherwise be replayed into the copy),
/// the backup's files copied into the data directory.
fn restore(backup: &Path, data: &Path) {
    std::fs::create_dir_all(data).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(data, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let aside = data.with_extension("aside");
    std::fs::create_dir_all(&aside).unwrap();
    for entry in std::fs::read_dir(data).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if name.starts_with("eldorado.sqlite3") {
            std::fs::rename(entry.path(), aside.join(&name)).unwrap();
        }
    }
    for entry in std::fs::read_dir(backup).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), data.join(entry.file_name())).unwrap();
    }
}

fn buy(addr: SocketAddr, token: &str, key: &str) -> (u16, Option<String>, Value) {
    let body = format!(r#"{{"stake_cents":100,"idempotency_key":"{key}"}}"#);
    http(addr, "POST", "/api/sales", Some(token), &body).unwrap()
}

struct Buyers {
    tokens: Vec<String>,
}

impl Buyers {
    /// Operator players with money and a session each.
    fn open(addr: SocketAddr, data: &Path) -> Buyers {
        let key = std::fs::read_to_string(data.join("operator-api.key")).unwrap();
        let key = key.trim();
        let tokens = (0..PLAYERS)
            .map(|p| {
                let body = format!(r#"{{"amount_cents":{CREDIT_CENTS},"reference":"seed"}}"#);
                let path = format!("/api/operator/players/backup-{p}/credit");
                let (status, _, reply) = http(addr, "POST", &path, Some(key), &body).unwrap();
                assert_eq!(status, 200, "{reply}");
                let body = format!(r#"{{"player_id":"backup-{p}"}}"#);
                let (status, _, session) =
                    http(addr, "POST", "/api/operator/sessions", Some(key), &body).unwrap();
                assert_eq!(status, 201, "{session}");
                session["token"].as_str().unwrap().to_owned()
            })
            .collect();
        Buyers { tokens }
    }

    fn token_of(&self, sale: &Value) -> &str {
        let player = sale["player"].as_str().unwrap();
        &self.tokens[player["backup-".len()..].parse::<usize>().unwrap()]
    }

    fn buy(&self, addr: SocketAddr, p: usize, key: &str) -> (u16, Option<String>, Value) {
        buy(addr, &self.tokens[p], key)
    }

    /// `count` sales one after the other: the signed sales.
    fn buy_some(&self, addr: SocketAddr, tag: &str, count: usize) -> Vec<Value> {
        (0..count)
            .map(|i| {
                let (status, _, reply) = self.buy(addr, i % PLAYERS, &format!("{tag}-{i:04}"));
                assert_eq!(status, 200, "{reply}");
                reply["sale"].clone()
            })
            .collect()
    }

    /// The record index of a stored sale, once logged.
    fn logged(&self, addr: SocketAddr, sale: &Value) -> Option<u64> {
        let id = sale["sale_id"].as_u64().unwrap();
        let (status, reply) = get(addr, &format!("/api/sales/{id}"), Some(self.token_of(sale)));
        assert_eq!(status, 200, "sale {id}: {reply}");
        reply["log_index"].as_u64()
    }
}

/// The size of the newest checkpoint cosigned by the witness (the quorum).
fn cosigned_size(addr: SocketAddr) -> Option<u64> {
    let (status, note) = get(addr, "/api/log/checkpoint", None);
    (status == 200).then(|| checkpoint_size(note.as_str().unwrap()))
}

/// The tree size of a checkpoint note (its second line).
fn checkpoint_size(note: &str) -> u64 {
    note.lines().nth(1).unwrap().parse().unwrap()
}

/// Waits until every one of `sales` is on a checkpoint the witness cosigned.
fn wait_cosigned(addr: SocketAddr, buyers: &Buyers, sales: &[Value]) -> u64 {
    wait_for("every sale on a cosigned checkpoint", || {
        let last = sales
            .iter()
            .map(|sale| buyers.logged(addr, sale))
            .try_fold(0, |top, index| index.map(|i| top.max(i + 1)))?;
        cosigned_size(addr).filter(|&size| size >= last)
    })
}

fn assert_refuses_to_sell(addr: SocketAddr, buyers: &Buyers, cosigned: u64, key: &str) {
    let (status, body) = get(addr, "/api/health", None);
    assert_eq!(
        (status, body["record_behind"].as_u64()),
        (503, Some(cosigned)),
        "{body}"
    );
    let (status, retry_after, body) = buyers.buy(addr, 0, key);
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "RECORD_BEHIND", "{body}");
    assert!(retry_after.is_some(), "a 503 says when to retry");
}

#[test]
fn a_backup_under_load_restores_every_acknowledged_sale_and_an_older_copy_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let addr = free_port();
    let server = serve(&data, addr);
    let url = format!("http://{addr}");
    let buyers = Buyers::open(addr, &data);

    // The witness vouches for the blocks' commitments, then is down while
    // the backup is taken: a copy holding all it cosigned can continue.
    let witnessing = witness(dir.path(), &url, WITNESS_SECRET);
    wait_for("a cosigned checkpoint", || cosigned_size(addr));
    drop(witnessing);

    // Buyers buy at once; the backup starts once some sales are acknowledged.
    let acknowledged: Arc<Mutex<Vec<Value>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let count = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..PLAYERS)
        .map(|p| {
            let (acknowledged, stop, count) = (acknowledged.clone(), stop.clone(), count.clone());
            let token = buyers.tokens[p].clone();
            std::thread::spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::SeqCst) {
                    let (status, _, reply) = buy(addr, &token, &format!("load-{p}-{i:05}"));
                    assert_eq!(status, 200, "{reply}");
                    acknowledged.lock().unwrap().push(reply["sale"].clone());
                    count.fetch_add(1, Ordering::SeqCst);
                    i += 1;
                }
            })
        })
        .collect();
    wait_for("sales under way", || {
        (count.load(Ordering::SeqCst) >= 40).then_some(())
    });
    let before_backup: Vec<Value> = acknowledged.lock().unwrap().clone();
    let first_backup = dir.path().join("backup-1");
    backup(&data, &first_backup);
    let during = count.load(Ordering::SeqCst) as usize - before_backup.len();
    let at_end = count.load(Ordering::SeqCst) + 20;
    wait_for("sales after the backup", || {
        (count.load(Ordering::SeqCst) >= at_end).then_some(())
    });
    stop.store(true, Ordering::SeqCst);
    for worker in workers {
        worker.join().unwrap();
    }
    drop(server);

    // The copy is private, holds the keys, and not the witnessed checkpoint.
    assert_eq!(
        eldorado_server::data_dir::too_open_under(&first_backup).unwrap(),
        vec![]
    );
    let mut files: Vec<_> = std::fs::read_dir(&first_backup)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "eldorado.sqlite3",
            "operator-api.key",
            "operator-ed25519.key"
        ]
    );
    // A backup never overwrites another.
    let again = eldorado(&[
        "backup",
        "--data",
        data.to_str().unwrap(),
        "--out",
        first_backup.to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(text(&again).contains("already exists"), "{}", text(&again));

    // Restored into a fresh directory: every sale acknowledged before the
    // backup began is there, byte for byte, and the witness goes on.
    let restored = dir.path().join("restored");
    restore(&first_backup, &restored);
    let addr = free_port();
    let url = format!("http://{addr}");
    let server = serve(&restored, addr);
    let witnessing = witness(dir.path(), &url, WITNESS_SECRET);
    for sale in &before_backup {
        let id = sale["sale_id"].as_u64().unwrap();
        let (status, reply) = get(
            addr,
            &format!("/api/sales/{id}"),
            Some(buyers.token_of(sale)),
        );
        assert_eq!(status, 200, "acknowledged sale {id} lost: {reply}");
        assert_eq!(reply["sale"], *sale, "sale {id} changed");
    }
    wait_cosigned(addr, &buyers, &before_backup);
    let (status, health) = get(addr, "/api/health", None);
    assert_eq!(status, 200, "{health}");
    let audit = eldorado(&["log", "audit", &url]);
    assert!(audit.status.success(), "{}", text(&audit));
    assert!(!text(&audit).contains("FINDING"), "{}", text(&audit));

    // A second backup while the log is quiet, then sales the witness
    // cosigns: the copy is now older than the public record.
    let settled = buyers.buy_some(addr, "settled", 8);
    wait_cosigned(addr, &buyers, &settled);
    let older = dir.path().join("backup-2");
    let older_size = backup(&restored, &older);
    let later = buyers.buy_some(addr, "later", 8);
    let cosigned = wait_cosigned(addr, &buyers, &later);
    assert!(cosigned > older_size, "{cosigned} > {older_size}");
    // The server keeps what was cosigned beside the database.
    let kept_note = || std::fs::read_to_string(restored.join("witnessed-checkpoint")).ok();
    wait_for("the witnessed checkpoint kept", || {
        kept_note().filter(|note| checkpoint_size(note) >= cosigned)
    });
    drop((server, witnessing));
    let kept = checkpoint_size(&kept_note().unwrap());
    let state = std::fs::read_to_string(dir.path().join("witness-state/cosigned.json")).unwrap();
    let witnessed: Value = serde_json::from_str(&state).unwrap();
    assert_eq!(witnessed["size"].as_u64(), Some(kept), "{witnessed}");

    // Restored into its own data directory, with no witness running: the
    // kept checkpoint refuses it from the start.
    restore(&older, &restored);
    let server = serve(&restored, addr);
    assert_refuses_to_sell(addr, &buyers, kept, "refused-at-start");
    let key = std::fs::read_to_string(restored.join("operator-api.key")).unwrap();
    let (status, _, body) = http(
        addr,
        "POST",
        "/api/operator/players/backup-0/credit",
        Some(key.trim()),
        r#"{"amount_cents":100,"reference":"late"}"#,
    )
    .unwrap();
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (503, Some("RECORD_BEHIND"))
    );
    drop(server);

    // Restored into a fresh directory: the witness sees the log go back,
    // shows it the checkpoint it cosigned, and the server stops selling.
    let elsewhere = dir.path().join("elsewhere");
    restore(&older, &elsewhere);
    let addr = free_port();
    let server = serve(&elsewhere, addr);
    let witnessing = witness(dir.path(), &format!("http://{addr}"), WITNESS_SECRET);
    wait_for("the witness's report", || {
        let (_, health) = get(addr, "/api/health", None);
        health["record_behind"].as_u64()
    });
    assert_refuses_to_sell(addr, &buyers, kept, "refused-when-told");
    for sale in &later {
        let id = sale["sale_id"].as_u64().unwrap();
        let (status, _) = get(
            addr,
            &format!("/api/sales/{id}"),
            Some(buyers.token_of(sale)),
        );
        assert_eq!(status, 404, "sale {id} was made after the copy");
    }
    // Nothing was logged from the older copy, so the witness saw no fork.
    let (_, latest) = get(addr, "/api/log/checkpoint/latest", None);
    assert_eq!(checkpoint_size(latest.as_str().unwrap()), older_size);
    assert!(!dir.path().join("witness-state/fork.json").exists());
    drop((server, witnessing));
    println!(
        "backup test: {} sales acknowledged before the backup, {during} during it, \
         copy of {older_size} records refused against {kept} cosigned",
        before_backup.len()
    );
}
