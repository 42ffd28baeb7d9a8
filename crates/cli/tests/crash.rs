//! Issue 9: the real `eldorado serve` killed with SIGKILL, again and again,
//! while players buy tickets at once. After every restart each sale that was
//! acknowledged must still be there with the very same signed bytes, no
//! ticket may have been sold twice, and every balance must reconcile to the
//! cent with the credits, the stakes and the prizes.
//!
//! Players are the operator's (created by credits and sessions with the key
//! from the data directory), which works with or without demo mode.

use reqwest::blocking::Client;
use reqwest::Method;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

#[path = "support/mod.rs"]
mod support;

const KILLS: usize = 10;
const PLAYERS: usize = 6;
const CREDIT_CENTS: u64 = 1_000_000;
/// Acknowledged sales a round waits for before the kill.
const SALES_PER_ROUND: u64 = 30;
/// Bounds that only keep a broken server from hanging the test.
const START_LIMIT: Duration = Duration::from_secs(240);
const ROUND_LIMIT: Duration = Duration::from_secs(20);
const IO_LIMIT: Duration = Duration::from_secs(20);

/// One request on a connection of its own (a pooled one could belong to a
/// server killed since): (status, JSON body).
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> reqwest::Result<(u16, Value)> {
    static CLIENT: OnceLock<Client> = OnceLock::new();
    let client = CLIENT.get_or_init(|| {
        let builder = Client::builder()
            .timeout(IO_LIMIT)
            .pool_max_idle_per_host(0);
        builder.build().expect("an HTTP client")
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
    Ok((
        status,
        serde_json::from_slice(&reply.bytes()?).unwrap_or(Value::Null),
    ))
}

fn free_port() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

/// The running server; dropping it kills it (SIGKILL) and reaps it, also
/// when an assertion fails, so no test leaves a server behind.
struct Server(Child);

impl Server {
    fn kill(mut self) {
        self.0.kill().expect("SIGKILL");
        self.0.wait().expect("reaped");
        // Drop then finds it already dead and reaped.
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _already_dead = self.0.kill();
        let _reaped = self.0.wait();
    }
}

fn start(data: &Path, addr: SocketAddr, flags: &[String]) -> Server {
    let child = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["serve", "--addr", &addr.to_string(), "--data"])
        .arg(data)
        .args(["--web"])
        .arg(data)
        // Every player here shares one address.
        .args(["--sales-per-second", "1000000"])
        .args(flags)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let server = Server(child);
    let started = Instant::now();
    loop {
        if let Ok((200, _)) = http(addr, "GET", "/api/health", None, "") {
            return server;
        }
        assert!(
            started.elapsed() < START_LIMIT,
            "the server never got healthy"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Every sale of a player in the store, by id, through the history.
fn stored_sales(addr: SocketAddr, token: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut path = "/api/history?limit=100".to_owned();
    loop {
        let (status, page) = http(addr, "GET", &path, Some(token), "").unwrap();
        assert_eq!(status, 200, "{page}");
        items.extend(page["items"].as_array().unwrap().iter().cloned());
        match page["next_before"].as_u64() {
            Some(before) => path = format!("/api/history?limit=100&before={before}"),
            None => return items,
        }
    }
}

#[test]
fn acknowledged_sales_survive_sigkill_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    crash_loop(dir.path(), KILLS, SALES_PER_ROUND, &[]);
}

/// The same with every sale dealt by a beacon (issue 22): a kill may fall
/// between a purchase and its deal. Each request left unanswered by a kill
/// is sent again with its key after the last restart, as a client would:
/// then every purchase is dealt, and money reconciles to the cent.
#[test]
fn purchases_survive_sigkill_and_are_dealt_to_the_cent() {
    let dir = tempfile::tempdir().unwrap();
    let (beacon, url, key) =
        support::dealing::beacon(&dir.path().join("beacon.key"), "127.0.0.1:0");
    let vkey = support::dealing::witness_vkey([0x31; 32]);
    let flags: Vec<String> = [
        "--beacon",
        &url,
        "--beacon-key",
        &key,
        "--deal-lead-ms",
        "600",
        "--witness",
        &vkey,
        "--checkpoint-interval-ms",
        "100",
    ]
    .map(str::to_owned)
    .to_vec();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let addr = free_port();
    let witness = support::dealing::witness(dir.path(), &format!("http://{addr}"), [0x31; 32]);
    crash_loop_at(&data, addr, 4, 12, &flags);
    drop((witness, beacon));
}

fn crash_loop(dir: &Path, kills: usize, sales_per_round: u64, flags: &[String]) {
    crash_loop_at(dir, free_port(), kills, sales_per_round, flags);
}

fn crash_loop_at(
    dir: &Path,
    addr: SocketAddr,
    kills: usize,
    sales_per_round: u64,
    flags: &[String],
) {
    let mut server = start(dir, addr, flags);
    let key = std::fs::read_to_string(dir.join("operator-api.key")).unwrap();
    let key = key.trim().to_owned();
    let mut tokens = Vec::new();
    for p in 0..PLAYERS {
        let player = format!("crash-{p}");
        let body = format!(r#"{{"amount_cents":{CREDIT_CENTS},"reference":"seed"}}"#);
        let path = format!("/api/operator/players/{player}/credit");
        let (status, reply) = http(addr, "POST", &path, Some(&key), &body).unwrap();
        assert_eq!(status, 200, "{reply}");
        let body = format!(r#"{{"player_id":"{player}"}}"#);
        let (status, session) =
            http(addr, "POST", "/api/operator/sessions", Some(&key), &body).unwrap();
        assert_eq!(status, 201, "{session}");
        tokens.push(session["token"].as_str().unwrap().to_owned());
    }

    // Sale id -> the signed sale as first acknowledged.
    let mut acknowledged: HashMap<u64, Value> = HashMap::new();
    let mut unanswered = Vec::new();
    for round in 0..kills {
        let acks = Arc::new(AtomicU64::new(0));
        let workers: Vec<_> = tokens
            .iter()
            .enumerate()
            .map(|(p, token)| {
                let token = token.clone();
                let acks = Arc::clone(&acks);
                std::thread::spawn(move || {
                    let mut mine = Vec::new();
                    let mut lost = Vec::new();
                    for i in 0.. {
                        let stake = [50, 100, 200][(p + i) % 3];
                        let body = format!(
                            r#"{{"stake_cents":{stake},"idempotency_key":"r{round}-p{p}-{i:05}"}}"#
                        );
                        match http(addr, "POST", "/api/sales", Some(&token), &body) {
                            Ok((200, reply)) => {
                                mine.push(reply["sale"].clone());
                                acks.fetch_add(1, Ordering::SeqCst);
                            }
                            Ok((status, reply)) => panic!("sale refused: {status} {reply}"),
                            // The server died under this request: its
                            // outcome is unknown, so it is not counted.
                            Err(_) => {
                                lost.push((p, body));
                                break;
                            }
                        }
                    }
                    (mine, lost)
                })
            })
            .collect();
        let started = Instant::now();
        while acks.load(Ordering::SeqCst) < sales_per_round {
            assert!(
                started.elapsed() < ROUND_LIMIT,
                "sales stalled in round {round}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        server.kill();
        for worker in workers {
            let (mine, lost) = worker.join().unwrap();
            unanswered.extend(lost);
            for sale in mine {
                let id = sale["sale_id"].as_u64().unwrap();
                assert!(
                    acknowledged.insert(id, sale).is_none(),
                    "sale id {id} given twice"
                );
            }
        }
        server = start(dir, addr, flags);
    }
    // A request the kill left unanswered, sent again with its key: the
    // sale it made, if it made one, or a new one (each counted once).
    for (p, body) in &unanswered {
        let started = Instant::now();
        let sale = loop {
            match http(addr, "POST", "/api/sales", Some(&tokens[*p]), body) {
                Ok((200, reply)) => break reply["sale"].clone(),
                Ok((503, _)) | Err(_) => {
                    assert!(started.elapsed() < ROUND_LIMIT, "{body} never answered");
                    std::thread::sleep(Duration::from_millis(100));
                }
                Ok((status, reply)) => panic!("sale refused: {status} {reply}"),
            }
        };
        let id = sale["sale_id"].as_u64().unwrap();
        assert!(
            acknowledged.insert(id, sale).is_none(),
            "sale id {id} given twice"
        );
    }

    // Everything acknowledged is there, byte for byte.
    let mut tickets = HashSet::new();
    let mut stored = 0usize;
    let mut delta: i64 = 0;
    for token in &tokens {
        let (status, session) = http(addr, "GET", "/api/session", Some(token), "").unwrap();
        assert_eq!(status, 200, "{session}");
        let balance = session["balance_cents"].as_u64().unwrap();
        let (mut stakes, mut prizes) = (0u64, 0u64);
        for item in stored_sales(addr, token) {
            stored += 1;
            stakes += item["stake_cents"].as_u64().unwrap();
            prizes += item["prize_cents"].as_u64().unwrap();
            let place = (
                item["block"].as_u64().unwrap(),
                item["position"].as_u64().unwrap(),
            );
            assert!(tickets.insert(place), "ticket {place:?} sold twice");
        }
        delta += CREDIT_CENTS as i64 - (balance + stakes) as i64 + prizes as i64;
    }
    for (id, sale) in &acknowledged {
        let token = &tokens[sale["player"].as_str().unwrap()["crash-".len()..]
            .parse::<usize>()
            .unwrap()];
        let (status, reply) =
            http(addr, "GET", &format!("/api/sales/{id}"), Some(token), "").unwrap();
        assert_eq!(status, 200, "acknowledged sale {id} lost: {reply}");
        assert_eq!(
            serde_json::to_string(&reply["sale"]).unwrap(),
            serde_json::to_string(sale).unwrap(),
            "sale {id} changed"
        );
    }
    let logged = every_acknowledged_sale_is_on_the_public_record(addr, &tokens, &acknowledged);
    let audit = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["log", "audit", &format!("http://{addr}")])
        .env("NO_COLOR", "1")
        .output()
        .expect("the audit runs");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&audit.stdout),
        String::from_utf8_lossy(&audit.stderr)
    );
    // A purchase committed just before a kill is logged, and cosigned, only
    // after the restart, later than the round it named: by the rule it is
    // dealt by the first round after its cosignature, and the audit of an
    // honest server finds nothing.
    let findings: Vec<&str> = report
        .lines()
        .filter(|l| l.starts_with("FINDING:"))
        .collect();
    assert!(findings.is_empty(), "log audit after the kills: {report}");
    assert!(
        audit.status.success(),
        "log audit after the kills: {report}"
    );
    server.kill();
    println!(
        "crash test: {kills} SIGKILL restarts, {} acknowledged sales, {stored} stored, \
         {logged} on the public record, {} unanswered at a kill (sent again), \
         money delta {delta} cents",
        acknowledged.len(),
        unanswered.len()
    );
    assert_eq!(
        stored,
        acknowledged.len(),
        "every sale stored was acknowledged"
    );
    assert_eq!(
        delta, 0,
        "balances + stakes - prizes must equal the credits"
    );
}

/// Waits (bounded) until the sequencer has logged every acknowledged sale,
/// then checks that each one's record is the very sale acknowledged: the
/// same signed bytes (docs/PROTOCOL.md §9), inclusion-proved against the
/// newest checkpoint. Returns how many were checked.
fn every_acknowledged_sale_is_on_the_public_record(
    addr: SocketAddr,
    tokens: &[String],
    acknowledged: &HashMap<u64, Value>,
) -> usize {
    use eldorado_engine::transparency::{open_checkpoint, verify_inclusion, LogEntry, LogKey};
    let (_, config) = http(addr, "GET", "/api/config", None, "").unwrap();
    let log_key = LogKey::parse(config["log"]["key"].as_str().unwrap()).unwrap();
    for (id, sale) in acknowledged {
        let token = &tokens[sale["player"].as_str().unwrap()["crash-".len()..]
            .parse::<usize>()
            .unwrap()];
        let started = Instant::now();
        let index = loop {
            let (_, reply) =
                http(addr, "GET", &format!("/api/sales/{id}"), Some(token), "").unwrap();
            if let Some(index) = reply["log_index"].as_u64() {
                break index;
            }
            assert!(started.elapsed() < ROUND_LIMIT, "sale {id} never logged");
            std::thread::sleep(Duration::from_millis(50));
        };
        let note = reqwest::blocking::get(format!("http://{addr}/api/log/checkpoint/latest"))
            .unwrap()
            .text()
            .unwrap();
        let checkpoint = open_checkpoint(note.as_bytes(), &log_key, &[], 0).unwrap();
        let path = format!("/api/log/leaves?start={index}&end={}", index + 1);
        let (status, leaves) = http(addr, "GET", &path, None, "").unwrap();
        assert_eq!(status, 200, "{leaves}");
        let leaf = hex::decode(leaves["leaves"][0].as_str().unwrap()).unwrap();
        let signed: eldorado_engine::SignedSale = serde_json::from_value(sale.clone()).unwrap();
        assert_eq!(
            leaf,
            LogEntry::of_sale(&signed).unwrap().to_leaf().unwrap(),
            "the record of sale {id} is not the sale acknowledged"
        );
        let path = format!(
            "/api/log/proof/inclusion?index={index}&size={}",
            checkpoint.size
        );
        let (status, proof) = http(addr, "GET", &path, None, "").unwrap();
        assert_eq!(status, 200, "{proof}");
        let proof: eldorado_api::InclusionProof = serde_json::from_value(proof).unwrap();
        verify_inclusion(
            &leaf,
            index,
            checkpoint.size,
            &checkpoint.root,
            &proof.hashes,
        )
        .unwrap_or_else(|e| panic!("sale {id}: {e}"));
    }
    acknowledged.len()
}
