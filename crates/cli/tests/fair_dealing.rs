//! Issue 22 end to end: the real `eldorado serve --beacon` with the real
//! `eldorado beacon`. Every sale is bought, logged, then dealt by a later
//! round; `eldorado log audit` re-deals every one and passes, and refuses
//! the same log against another beacon. A beacon outage leaves a paid
//! purchase waiting (DEAL_PENDING); a server killed meanwhile starts again
//! during the outage and deals it once the beacon is back, to the cent.

use eldorado_api::{LoggedReceipt, SaleResponse};
use eldorado_engine::deal::{verify_evidence, BeaconKey, EvidenceError};
use eldorado_engine::{Hash, PublicKeyBytes};
use reqwest::blocking::Client;
use serde_json::{json, Value};
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::dealing::{witness, witness_vkey, Killed as Process};

#[path = "support/mod.rs"]
mod support;
#[path = "support/wallet.rs"]
mod wallet;

/// The witness's key, known to the test as to the operator who pins it.
const WITNESS_SECRET: [u8; 32] = [0x42; 32];

/// The beacon on `addr` with the key in `key_file` (created once).
fn beacon(key_file: &Path, addr: SocketAddr) -> (Process, String) {
    let (process, _, key) = support::dealing::beacon(key_file, &addr.to_string());
    (process, key)
}

/// Bounds that only keep a broken server from hanging the test.
const START_LIMIT: Duration = Duration::from_secs(240);

fn free_port() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

fn serve_command(data: &Path, addr: SocketAddr) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_eldorado"));
    command
        .args(["serve", "--addr", &addr.to_string(), "--data"])
        .arg(data)
        .arg("--web")
        .arg(data)
        .args(["--demo", "--demo-seed", "3"])
        .args(["--checkpoint-interval-ms", "100"])
        .env("RUST_LOG", "warn");
    command
}

/// The witness polls every 100 ms: 600 ms covers its cosignature, and a
/// purchase names the first round after the second that follows.
fn serve(data: &Path, addr: SocketAddr, beacon: SocketAddr, key: &str) -> Process {
    serve_with(data, addr, beacon, key, &[])
}

/// [`serve`] with more flags.
fn serve_with(
    data: &Path,
    addr: SocketAddr,
    beacon: SocketAddr,
    key: &str,
    extra: &[&str],
) -> Process {
    let mut command = serve_command(data, addr);
    command
        .args(extra)
        .args(["--beacon", &format!("http://{beacon}"), "--beacon-key", key])
        .args(["--deal-lead-ms", "600", "--deal-wait-ms", "4000"])
        .args(["--witness", &witness_vkey(WITNESS_SECRET)]);
    start_server(command, addr)
}

/// Starts `command`, a server on `addr`, and waits until it is healthy.
fn start_server(mut command: Command, addr: SocketAddr) -> Process {
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let server = Process(child);
    wait_healthy(addr);
    server
}

/// Waits until the server on `addr` answers its health check.
fn wait_healthy(addr: SocketAddr) {
    let client = Client::new();
    let started = Instant::now();
    while !client
        .get(format!("http://{addr}/api/health"))
        .send()
        .is_ok_and(|r| r.status().is_success())
    {
        assert!(
            started.elapsed() < START_LIMIT,
            "the server never got healthy"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn read<T: serde::de::DeserializeOwned>(response: reqwest::blocking::Response) -> T {
    serde_json::from_slice(&response.bytes().unwrap()).expect("a JSON body")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn audit(url: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["log", "audit", url])
        .args(extra)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the auditor runs")
}

struct Player {
    client: Client,
    url: String,
    token: String,
}

impl Player {
    fn new(url: &str) -> Player {
        let client = Client::new();
        let body: Value = read(
            client
                .post(format!("{url}/api/demo/players"))
                .send()
                .unwrap(),
        );
        Player {
            token: body["token"].as_str().unwrap().to_owned(),
            client,
            url: url.to_owned(),
        }
    }

    fn buy(&self, key: &str) -> reqwest::blocking::Response {
        self.client
            .post(format!("{}/api/sales", self.url))
            .bearer_auth(&self.token)
            .header("content-type", "application/json")
            .body(json!({"stake_cents": 50, "idempotency_key": key}).to_string())
            .send()
            .unwrap()
    }

    /// Waits until the sale is on the public record.
    fn wait_logged(&self, sale_id: u64) {
        let started = Instant::now();
        loop {
            let body: Value = read(
                self.client
                    .get(format!("{}/api/sales/{sale_id}", self.url))
                    .bearer_auth(&self.token)
                    .send()
                    .unwrap(),
            );
            if body["log_index"].is_u64() {
                return;
            }
            assert!(
                started.elapsed() < START_LIMIT,
                "sale {sale_id} never logged"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Asks for the sale of `key` again until it is dealt (each answer
    /// before is `DEAL_PENDING`, after the server's own wait).
    fn buy_until_dealt(&self, key: &str) -> SaleResponse {
        loop {
            let answer = self.buy(key);
            if answer.status() == 200 {
                return read(answer);
            }
            let body: Value = read(answer);
            assert_eq!(body["error"]["code"], "DEAL_PENDING", "{body}");
        }
    }

    /// The sale's receipt with its record, once the sale is on a
    /// cosigned checkpoint.
    fn receipt(&self, sale_id: u64) -> Value {
        let started = Instant::now();
        loop {
            let answer = self
                .client
                .get(format!("{}/api/sales/{sale_id}/receipt", self.url))
                .bearer_auth(&self.token)
                .send()
                .unwrap();
            if answer.status() == 200 {
                return read(answer);
            }
            assert!(
                started.elapsed() < START_LIMIT,
                "sale {sale_id}: no receipt"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn balance(&self) -> u64 {
        let body: Value = read(
            self.client
                .get(format!("{}/api/session", self.url))
                .bearer_auth(&self.token)
                .send()
                .unwrap(),
        );
        body["balance_cents"].as_u64().unwrap()
    }
}

/// The buyer's check of its sale's deal: `Err` when any part is off.
fn check_deal(sale: &SaleResponse, operator: &str, beacon: &str) -> Result<u64, EvidenceError> {
    let operator =
        eldorado_engine::commit::verifying_key(&PublicKeyBytes::from_hex(operator).unwrap())
            .unwrap();
    let beacon = BeaconKey::from_bytes(&hex::decode(beacon).unwrap().try_into().unwrap()).unwrap();
    let signed = &sale.sale.sale;
    let evidence = sale
        .deal
        .as_ref()
        .expect("a dealt sale carries its evidence");
    let parts = evidence
        .parts(signed.tickets, signed.ticket.position)
        .unwrap();
    verify_evidence(&operator, &beacon, signed, &parts).map(|p| parts.dealing_round(p.round))
}

/// The purchase a dealt sale's evidence shows, as logged.
fn purchase_of(sale: &SaleResponse) -> eldorado_engine::deal::Purchase {
    let evidence = sale.deal.as_ref().expect("dealt by the beacon");
    let leaf = hex::decode(&evidence.purchase).unwrap();
    match eldorado_engine::transparency::LogEntry::parse(&leaf) {
        Ok(eldorado_engine::transparency::LogEntry::Purchase { purchase, .. }) => purchase,
        other => panic!("the evidence's purchase is not a purchase record: {other:?}"),
    }
}

fn sold(response: reqwest::blocking::Response) -> SaleResponse {
    assert_eq!(response.status(), 200);
    read(response)
}

#[test]
fn every_sale_is_dealt_by_the_beacon_and_the_audit_re_deals_it() {
    let dir = tempfile::tempdir().unwrap();
    let (beacon_addr, addr) = (free_port(), free_port());
    let (_beacon, key) = beacon(&dir.path().join("beacon.key"), beacon_addr);
    let _server = serve(&dir.path().join("data"), addr, beacon_addr, &key);
    let url = format!("http://{addr}");
    let _witness = witness(dir.path(), &url, WITNESS_SECRET);
    let player = Player::new(&url);

    let config: Value = read(
        player
            .client
            .get(format!("{url}/api/config"))
            .send()
            .unwrap(),
    );
    assert_eq!(config["dealing"]["public_key"], key.as_str());
    assert_eq!(config["dealing"]["period_ms"], 200);

    let operator = config["public_key"].as_str().unwrap().to_owned();
    let start = player.balance();
    let mut positions = std::collections::HashSet::new();
    let mut prizes = 0;
    let mut last_sale = 0;
    for i in 0..12 {
        let sale = sold(player.buy(&format!("fair-sale-{i:02}")));
        last_sale = sale.sale.sale.sale_id;
        assert!(positions.insert(sale.sale.sale.ticket.position));
        assert_eq!(
            sale.balance_after_cents + 50,
            sale.balance_before_cents + sale.sale.sale.ticket.prize_cents,
            "each sale's own effect: the stake out, its prize in"
        );
        prizes += sale.sale.sale.ticket.prize_cents;
        check_deal(&sale, &operator, &key).expect("dealt by the rule");
        if i == 0 {
            // Any part changed is refused: another root, a moved count,
            // another round's signature.
            let mut other = sale.clone();
            other.deal.as_mut().unwrap().unsold_root = Hash([1; 32]);
            assert!(check_deal(&other, &operator, &key).is_err());
            let mut other = sale.clone();
            let siblings = &mut other.deal.as_mut().unwrap().siblings;
            let last = siblings.len() - 1;
            siblings[last].count -= 1;
            siblings[0].count += 1;
            assert!(check_deal(&other, &operator, &key).is_err());
            let mut other = sale.clone();
            let signature = &mut other.deal.as_mut().unwrap().round_signature;
            *signature = format!("{}00", &signature[..signature.len() - 2]);
            assert!(check_deal(&other, &operator, &key).is_err());
        }
    }
    assert_eq!(player.balance(), start - 12 * 50 + prizes);
    // A replay answers the same sale, dealt once.
    let again = sold(player.buy("fair-sale-00"));
    assert_eq!(player.balance(), start - 12 * 50 + prizes);
    assert!(positions.contains(&again.sale.sale.ticket.position));
    player.wait_logged(last_sale);

    let passed = audit(&url, &[]);
    let report = text(&passed);
    assert!(passed.status.success(), "{report}");
    assert!(
        report.contains("purchases 12, dealt by the rule 12, waiting 0"),
        "{report}"
    );

    // The same log against another beacon: its rounds verify under its own
    // key, but deal other positions.
    let other_addr = free_port();
    let (_other, other_key) = beacon(&dir.path().join("other.key"), other_addr);
    let other_url = format!("http://{other_addr}");
    let refused = audit(&url, &["--beacon", &other_url, "--beacon-key", &other_key]);
    let report = text(&refused);
    assert_eq!(refused.status.code(), Some(1), "{report}");
    assert!(
        report.contains("the server announces the beacon key"),
        "{report}"
    );
    assert!(report.contains("where the rule deals position"), "{report}");

    // `eldorado verify` checks the receipt's deal under the beacon key,
    // the witnesses and the beacon's schedule it is given, on the receipt
    // with its record; without any of them a dealt receipt is not verified.
    let receipt = dir.path().join("receipt.json");
    std::fs::write(&receipt, serde_json::to_string(&again).unwrap()).unwrap();
    let verify = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_eldorado"))
            .arg("verify")
            .arg(&receipt)
            .args(["--key", &operator])
            .args(extra)
            .output()
            .expect("the binary runs")
    };
    let unkeyed = verify(&[]);
    assert_eq!(unkeyed.status.code(), Some(2), "{}", text(&unkeyed));
    assert!(
        text(&unkeyed).contains("give --beacon-key"),
        "{}",
        text(&unkeyed)
    );
    let unrecorded = verify(&["--beacon-key", &key]);
    assert_eq!(unrecorded.status.code(), Some(2), "{}", text(&unrecorded));
    assert!(
        text(&unrecorded).contains("verify its receipt with its record"),
        "{}",
        text(&unrecorded)
    );
    let logged = player.receipt(again.sale_id());
    assert!(logged["purchase"]["checkpoint"].is_string(), "{logged}");
    std::fs::write(&receipt, logged.to_string()).unwrap();
    let witness_key = witness_vkey(WITNESS_SECRET);
    let genesis = config["dealing"]["genesis_time_ms"].to_string();
    let unwitnessed = verify(&["--beacon-key", &key]);
    assert_eq!(unwitnessed.status.code(), Some(2), "{}", text(&unwitnessed));
    assert!(
        text(&unwitnessed).contains("give --witness"),
        "{}",
        text(&unwitnessed)
    );
    let unscheduled = verify(&["--beacon-key", &key, "--witness", &witness_key]);
    assert_eq!(unscheduled.status.code(), Some(2), "{}", text(&unscheduled));
    assert!(
        text(&unscheduled).contains("not drand quicknet"),
        "{}",
        text(&unscheduled)
    );
    let full = |beacon: &str, period: &str| {
        verify(&[
            "--beacon-key",
            beacon,
            "--witness",
            &witness_key,
            "--beacon-genesis-ms",
            &genesis,
            "--beacon-period-ms",
            period,
        ])
    };
    let checked = full(&key, "200");
    assert!(checked.status.success(), "{}", text(&checked));
    for line in [
        "ok      fair_deal",
        "ok      record_deal_timing",
        "VERIFIED",
    ] {
        assert!(text(&checked).contains(line), "{}", text(&checked));
    }
    let other = full(&other_key, "200");
    assert_eq!(other.status.code(), Some(1), "{}", text(&other));
    assert!(
        text(&other).contains("FAILED  fair_deal"),
        "{}",
        text(&other)
    );
    // Rounds twice as frequent number the cosignature's time twice as
    // high: the round that dealt it is not the one its cosignature gives.
    let moved = full(&key, "100");
    assert_eq!(moved.status.code(), Some(1), "{}", text(&moved));
    assert!(
        text(&moved).contains("FAILED  record_deal_timing"),
        "{}",
        text(&moved)
    );
    // A receipt with its deal taken away, against the beacon: refused.
    let mut undealt: LoggedReceipt = serde_json::from_value(logged.clone()).unwrap();
    undealt.sale.deal = None;
    std::fs::write(&receipt, serde_json::to_string(&undealt).unwrap()).unwrap();
    let missing = full(&key, "200");
    assert_eq!(missing.status.code(), Some(1), "{}", text(&missing));
    assert!(
        text(&missing).contains("FAILED  fair_deal"),
        "{}",
        text(&missing)
    );
    // One whose purchase's proof is taken away: its timing is unproved.
    let mut unproved: LoggedReceipt = serde_json::from_value(logged).unwrap();
    unproved.purchase = None;
    std::fs::write(&receipt, serde_json::to_string(&unproved).unwrap()).unwrap();
    let unproved = full(&key, "200");
    assert_eq!(unproved.status.code(), Some(1), "{}", text(&unproved));
    assert!(
        text(&unproved).contains("FAILED  record_deal_timing"),
        "{}",
        text(&unproved)
    );
}

#[test]
fn a_purchase_waits_out_a_beacon_outage_and_a_crash_then_is_dealt_to_the_cent() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let beacon_key = dir.path().join("beacon.key");
    let (beacon_addr, addr) = (free_port(), free_port());
    let url = format!("http://{addr}");
    let (beacon_process, key) = beacon(&beacon_key, beacon_addr);
    let server = serve(&data, addr, beacon_addr, &key);
    let _witness = witness(dir.path(), &url, WITNESS_SECRET);
    let player = Player::new(&url);
    let start = player.balance();
    let first = sold(player.buy("before-outage"))
        .sale
        .sale
        .ticket
        .prize_cents;
    let after_first = player.balance();
    assert_eq!(after_first, start - 50 + first);

    drop(beacon_process);
    let pending = player.buy("during-outage");
    assert_eq!(pending.status(), 503);
    let body: Value = read(pending);
    assert_eq!(body["error"]["code"], "DEAL_PENDING", "{body}");
    assert_eq!(player.balance(), after_first - 50, "bought and paid");

    // Killed with the purchase undealt: a server without the beacon may
    // not take over its database.
    drop(server);
    let refused = serve_command(&data, addr).output().unwrap();
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("start with --beacon"),
        "{}",
        text(&refused)
    );

    // Started again while the beacon is still down: on the beacon's
    // schedule as it last read it, it serves at once, and the purchase
    // still waits for its round.
    assert!(data.join("beacon-schedule.json").is_file());
    let restarted = serve(&data, addr, beacon_addr, &key);
    let still = player.buy("during-outage");
    assert_eq!(still.status(), 503);
    let body: Value = read(still);
    assert_eq!(body["error"]["code"], "DEAL_PENDING", "{body}");
    assert_eq!(player.balance(), after_first - 50, "paid once");

    let (_beacon, same_key) = beacon(&beacon_key, beacon_addr);
    assert_eq!(same_key, key);
    let dealt = sold(player.buy("during-outage"));
    let second = dealt.sale.sale.ticket.prize_cents;
    assert_eq!(
        player.balance(),
        start - 100 + first + second,
        "two stakes out, two prizes in"
    );
    player.wait_logged(dealt.sale.sale.sale_id);
    let passed = audit(&url, &[]);
    assert!(passed.status.success(), "{}", text(&passed));
    assert!(
        text(&passed).contains("purchases 2, dealt by the rule 2, waiting 0"),
        "{}",
        text(&passed)
    );

    // Everything dealt, a server may sell in order again; the block the
    // beacon dealt from closes (in order, its next position could be dealt
    // already), and the next one of its line sells.
    let dealt_from = dealt.sale.sale.block;
    drop(restarted);
    let _in_order = start_server(serve_command(&data, addr), addr);
    let block: Value = read(
        player
            .client
            .get(format!("{url}/api/blocks/{dealt_from}"))
            .send()
            .unwrap(),
    );
    assert_eq!(block["status"], "closed", "{block}");
    let in_order = sold(player.buy("after-the-beacon"));
    assert_ne!(in_order.sale.sale.block, dealt_from);
    assert!(in_order.deal.is_none(), "sold in order");
}

/// With the seamless wallet (`--wallet`): the stake is debited at the
/// operator's wallet, the paid round becomes a purchase dealt by the
/// beacon like any other, and each prize is credited there once, under
/// its round's credit id. The operator's books end at start − stakes +
/// prizes of the tickets dealt, and the audit re-deals every one.
#[test]
fn purchases_paid_at_the_operators_wallet_are_dealt_then_credited_there() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (beacon_addr, addr) = (free_port(), free_port());
    let url = format!("http://{addr}");
    let (_beacon, key) = beacon(&dir.path().join("beacon.key"), beacon_addr);
    let wallet = wallet::Wallet::start();
    let secret = dir.path().join("wallet.secret");
    std::fs::write(&secret, "a secret shared with the wallet\n").unwrap();
    let secret = secret.display().to_string();
    let _server = serve_with(
        &data,
        addr,
        beacon_addr,
        &key,
        &[
            "--wallet",
            &wallet.url,
            "--wallet-secret-file",
            &secret,
            // An hour between the outbox's own passes: each credit goes
            // because its deal wakes the outbox.
            "--wallet-retry-ms",
            "3600000",
            "--wallet-retry-max-ms",
            "3600000",
        ],
    );
    let _witness = witness(dir.path(), &url, WITNESS_SECRET);
    let client = Client::new();
    let operator_key = std::fs::read_to_string(data.join("operator-api.key")).unwrap();
    const START: u64 = 10_000;
    wallet.set_balance("casino-1", START);
    let session: Value = read(
        client
            .post(format!("{url}/api/operator/sessions"))
            .bearer_auth(operator_key.trim())
            .header("content-type", "application/json")
            .body(json!({"player_id": "casino-1"}).to_string())
            .send()
            .unwrap(),
    );
    let player = Player {
        token: session["token"].as_str().expect("a session").to_owned(),
        client,
        url: url.clone(),
    };
    let config: Value = read(
        player
            .client
            .get(format!("{url}/api/config"))
            .send()
            .unwrap(),
    );
    let operator = config["public_key"].as_str().unwrap().to_owned();

    let (mut prizes, mut winners, mut last_sale) = (0, 0, 0);
    for i in 0..12 {
        let sale = sold(player.buy(&format!("wallet-sale-{i:02}")));
        assert_eq!(
            sale.commitment.commitment.money,
            eldorado_engine::Money::Real
        );
        check_deal(&sale, &operator, &key).expect("dealt by the rule");
        let prize = sale.sale.sale.ticket.prize_cents;
        assert_eq!(
            sale.balance_after_cents + 50,
            sale.balance_before_cents + prize,
            "the operator's balance around the stake, then the prize"
        );
        prizes += prize;
        winners += u64::from(prize > 0);
        last_sale = sale.sale.sale.sale_id;
    }
    // A replay answers the same sale: nothing debited twice.
    let again = sold(player.buy("wallet-sale-00"));
    assert_eq!(again.sale.sale.sale_id + 11, last_sale);

    // The prizes reach the operator's wallet through the outbox.
    let expected = START - 12 * 50 + prizes;
    let started = Instant::now();
    while wallet.balance("casino-1") != expected {
        assert!(
            started.elapsed() < START_LIMIT,
            "the wallet holds {}, not {expected}",
            wallet.balance("casino-1")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let credits = wallet.credits();
    assert_eq!(credits.len() as u64, winners);
    assert_eq!(credits.values().sum::<u64>(), prizes);
    assert!(credits.keys().all(|id| id.starts_with("credit:")));

    player.wait_logged(last_sale);
    let passed = audit(&url, &[]);
    assert!(passed.status.success(), "{}", text(&passed));
    assert!(
        text(&passed).contains("purchases 12, dealt by the rule 12, waiting 0"),
        "{}",
        text(&passed)
    );
}

/// Issue 43: nothing is dealt before a quorum of witnesses proved the
/// purchase on the record. With the witness down past the round the
/// purchase names, the purchase waits; once the witness cosigns, it is
/// dealt by the first round after that cosignature's second, not by its
/// own, and the buyer's check and the audit both hold it to that round.
#[test]
fn a_purchase_waits_for_its_witness_then_is_dealt_by_a_later_round() {
    let dir = tempfile::tempdir().unwrap();
    let (beacon_addr, addr) = (free_port(), free_port());
    let (_beacon, key) = beacon(&dir.path().join("beacon.key"), beacon_addr);
    let _server = serve(&dir.path().join("data"), addr, beacon_addr, &key);
    let url = format!("http://{addr}");
    let player = Player::new(&url);
    let start = player.balance();

    // No witness yet: the purchase is paid, logged, and not dealt; the
    // answer comes 4 s later, well after the round it names (at most
    // lead + 1 s + a period after it).
    let pending = player.buy("before-the-witness");
    assert_eq!(pending.status(), 503);
    let body: Value = read(pending);
    assert_eq!(body["error"]["code"], "DEAL_PENDING", "{body}");
    assert_eq!(player.balance(), start - 50, "bought and paid");

    let published = free_port();
    let _witness = support::dealing::witness_at(
        dir.path(),
        &url,
        WITNESS_SECRET,
        Some(&published.to_string()),
        100,
    );
    let dealt = player.buy_until_dealt("before-the-witness");
    let purchase = purchase_of(&dealt);
    let config: Value = read(
        player
            .client
            .get(format!("{url}/api/config"))
            .send()
            .unwrap(),
    );
    let operator = config["public_key"].as_str().unwrap();
    let round = check_deal(&dealt, operator, &key).expect("dealt by the rule");
    assert!(
        round > purchase.round,
        "dealt by round {round}, not after the round {} it names",
        purchase.round
    );
    assert_eq!(
        player.balance(),
        start - 50 + dealt.sale.sale.ticket.prize_cents
    );
    player.wait_logged(dealt.sale.sale.sale_id);
    // The audit holds the deal to what the witness itself published too.
    let passed = audit(&url, &["--witness-url", &format!("http://{published}")]);
    let report = text(&passed);
    assert!(passed.status.success(), "{report}");
    assert!(!report.contains("FINDING"), "{report}");
    assert!(
        report.contains("purchases 1, dealt by the rule 1, waiting 0"),
        "{report}"
    );
}

/// Issue 43: the server pushes each checkpoint to its witness (C2SP
/// tlog-witness `add-checkpoint`) and keeps the cosignature answered. The
/// witness here polls once a minute: only the push can prove the
/// purchases in time, and every one is dealt by the round it names.
#[test]
fn pushed_checkpoints_are_cosigned_at_once_and_their_purchases_dealt_in_time() {
    let dir = tempfile::tempdir().unwrap();
    let (beacon_addr, addr, listen) = (free_port(), free_port(), free_port());
    let (_beacon, key) = beacon(&dir.path().join("beacon.key"), beacon_addr);
    let witness_url = format!("http://{listen}");
    let _server = serve_with(
        &dir.path().join("data"),
        addr,
        beacon_addr,
        &key,
        &["--witness-url", &witness_url],
    );
    let url = format!("http://{addr}");
    let _witness = support::dealing::witness_at(
        dir.path(),
        &url,
        WITNESS_SECRET,
        Some(&listen.to_string()),
        60_000,
    );
    let player = Player::new(&url);
    let config: Value = read(
        player
            .client
            .get(format!("{url}/api/config"))
            .send()
            .unwrap(),
    );
    let operator = config["public_key"].as_str().unwrap().to_owned();
    let mut last = None;
    for i in 0..6 {
        let answer = player.buy(&format!("pushed-{i}"));
        assert_eq!(answer.status(), 200, "purchase {i} not dealt in time");
        let sale: SaleResponse = read(answer);
        let purchase = purchase_of(&sale);
        let round = check_deal(&sale, &operator, &key).expect("dealt by the rule");
        assert_eq!(
            round, purchase.round,
            "proven in time for the round it names"
        );
        last = Some(sale.sale.sale.sale_id);
    }
    player.wait_logged(last.unwrap());
    let passed = audit(&url, &["--witness-url", &witness_url]);
    let report = text(&passed);
    assert!(passed.status.success(), "{report}");
    assert!(
        report.contains("purchases 6, dealt by the rule 6, waiting 0"),
        "{report}"
    );
}

/// Issue 43, a cheat: the operator changes a logged purchase's round in
/// its database to one it likes (here 40 rounds later) before the deal.
/// The dealer deals by it, but the logged leaf names the first: the
/// buyer's record check, `eldorado verify` and `log audit` all refuse the
/// deal.
#[test]
fn a_round_changed_in_the_database_after_logging_is_refused_by_every_checker() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (beacon_addr, addr) = (free_port(), free_port());
    let (_beacon, key) = beacon(&dir.path().join("beacon.key"), beacon_addr);
    let _server = serve(&data, addr, beacon_addr, &key);
    let url = format!("http://{addr}");
    let player = Player::new(&url);
    // No witness yet: the purchase is logged and waits.
    let pending = player.buy("moved-round");
    assert_eq!(pending.status(), 503);
    let moved = rusqlite::Connection::open(data.join("eldorado.sqlite3"))
        .unwrap()
        .execute(
            "UPDATE purchases SET round = round + 40 WHERE sale_id IS NULL",
            [],
        )
        .unwrap();
    assert_eq!(moved, 1);
    let _witness = witness(dir.path(), &url, WITNESS_SECRET);
    let dealt = player.buy_until_dealt("moved-round");
    let config: Value = read(
        player
            .client
            .get(format!("{url}/api/config"))
            .send()
            .unwrap(),
    );
    let operator = config["public_key"].as_str().unwrap().to_owned();
    let purchase = purchase_of(&dealt);
    // The round and the position are genuine, the round is not the rule's.
    let round = check_deal(&dealt, &operator, &key).expect("a genuine round, by the rule");
    assert_eq!(round, purchase.round + 40);
    player.wait_logged(dealt.sale.sale.sale_id);

    let logged = player.receipt(dealt.sale_id());
    let receipt = dir.path().join("receipt.json");
    std::fs::write(&receipt, logged.to_string()).unwrap();
    let genesis = config["dealing"]["genesis_time_ms"].to_string();
    let verified = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .arg("verify")
        .arg(&receipt)
        .args(["--key", &operator, "--beacon-key", &key])
        .args(["--witness", &witness_vkey(WITNESS_SECRET)])
        .args(["--beacon-genesis-ms", &genesis, "--beacon-period-ms", "200"])
        .output()
        .unwrap();
    assert_eq!(verified.status.code(), Some(1), "{}", text(&verified));
    assert!(
        text(&verified).contains("FAILED  record_deal_timing"),
        "{}",
        text(&verified)
    );
    let audited = audit(&url, &[]);
    let report = text(&audited);
    assert_eq!(audited.status.code(), Some(1), "{report}");
    assert!(report.contains("where the rule deals position"), "{report}");
}

/// Issue 43 item 5: `--beacon` repeated names relays of one beacon, raced
/// for each round; one that does not answer at all costs nothing.
#[test]
fn a_relay_that_does_not_answer_beside_one_that_does_costs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (beacon_addr, addr, dead) = (free_port(), free_port(), free_port());
    let (_beacon, key) = beacon(&dir.path().join("beacon.key"), beacon_addr);
    let _server = serve_with(
        &dir.path().join("data"),
        addr,
        beacon_addr,
        &key,
        &["--beacon", &format!("http://{dead}")],
    );
    let url = format!("http://{addr}");
    let _witness = witness(dir.path(), &url, WITNESS_SECRET);
    let player = Player::new(&url);
    let config: Value = read(
        player
            .client
            .get(format!("{url}/api/config"))
            .send()
            .unwrap(),
    );
    let operator = config["public_key"].as_str().unwrap().to_owned();
    for i in 0..3 {
        let sale = player.buy_until_dealt(&format!("raced-relay-{i}"));
        check_deal(&sale, &operator, &key).expect("dealt by the rule");
    }
}
