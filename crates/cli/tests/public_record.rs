//! Issue 21 end to end: the real `eldorado serve` with a witness it is told
//! to require, the real `eldorado witness` cosigning its checkpoints, a
//! player's sales proved on the cosigned record, and `eldorado log audit`
//! passing on the whole log.

use eldorado_api::{InclusionProof, SaleResponse};
use eldorado_engine::commit::signing_key_from_secret;
use eldorado_engine::transparency::{
    open_checkpoint, verify_inclusion, Cosigner, LogEntry, LogKey, WitnessKey,
};
use reqwest::blocking::Client;
use serde_json::Value;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Bounds that only keep a broken server from hanging the test.
const START_LIMIT: Duration = Duration::from_secs(240);
const WAIT_LIMIT: Duration = Duration::from_secs(30);

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _already_dead = self.0.kill();
        let _reaped = self.0.wait();
    }
}

fn free_port() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
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

fn json<T: serde::de::DeserializeOwned>(reply: reqwest::blocking::Response) -> T {
    serde_json::from_slice(&reply.bytes().unwrap()).expect("a JSON body")
}

/// Polls `get` until it answers `Some`, within [`WAIT_LIMIT`].
fn wait_for<T>(what: &str, mut get: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(found) = get() {
            return found;
        }
        assert!(started.elapsed() < WAIT_LIMIT, "never saw {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A built page in `web`: a few files and the manifest listing them, as
/// `scripts/build-web.sh` leaves it.
fn write_built_page(web: &Path) {
    use sha2::{Digest, Sha256};
    let files: [(&str, &[u8]); 3] = [
        ("www/pkg/index.html", b"<!doctype html><p>Eldorado</p>"),
        ("www/pkg/main-0123456789abcdef.js", b"main();"),
        ("www/pkg/page-policy.json", b"{}"),
    ];
    let mut listed = serde_json::Map::new();
    for (path, bytes) in files {
        let file = web.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, bytes).unwrap();
        listed.insert(path.to_owned(), hex::encode(Sha256::digest(bytes)).into());
    }
    let manifest = serde_json::json!({ "files": listed });
    std::fs::write(web.join("www/pkg/page-manifest.json"), manifest.to_string()).unwrap();
}

fn start(data: &Path, web: &Path, addr: SocketAddr, witness: &str) -> Server {
    let child = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["serve", "--addr", &addr.to_string(), "--data"])
        .arg(data)
        .args(["--web"])
        .arg(web)
        .args(["--demo", "--witness", witness])
        .args(["--checkpoint-interval-ms", "100"])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let server = Server(child);
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
    server
}

#[test]
fn a_witnessed_log_proves_every_sale_and_audits_clean() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let state = dir.path().join("witness");
    let key_file = dir.path().join("witness.key");
    // The witness's key, known to the test as to the operator who pins it.
    std::fs::write(&key_file, hex::encode([0x42; 32])).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(
        &key_file,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    let cosigner = Cosigner::new("witness.test", signing_key_from_secret([0x42; 32])).unwrap();
    let vkey = cosigner.witness_key().vkey();
    let addr = free_port();
    let url = format!("http://{addr}");
    let web = dir.path().join("web");
    write_built_page(&web);
    let _server = start(&data, &web, addr, &vkey);
    let client = Client::new();
    let get = |path: &str| client.get(format!("{url}{path}")).send().unwrap();

    let config: Value = json(get("/api/config"));
    assert_eq!(config["log"]["witnesses"][0], vkey.as_str());
    assert_eq!(config["log"]["quorum"], 1);
    let log_key = LogKey::parse(config["log"]["key"].as_str().unwrap()).unwrap();
    let witnesses = [WitnessKey::parse(&vkey).unwrap()];

    // The blocks put on sale at start are logged, but nobody cosigned yet.
    wait_for("the first checkpoint", || {
        get("/api/log/checkpoint/latest")
            .status()
            .is_success()
            .then_some(())
    });
    let refused = get("/api/log/checkpoint");
    assert_eq!(refused.status(), 503);
    let body: Value = json(refused);
    assert_eq!(body["error"]["code"], "LOG_UNAVAILABLE", "{body}");

    // A player buys; each sale is logged shortly after.
    let player = client
        .post(format!("{url}/api/demo/players"))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .unwrap();
    let player: Value = json(player);
    let token = player["token"].as_str().expect("a demo session").to_owned();
    let mut sales = Vec::new();
    for i in 0..5 {
        let reply = client
            .post(format!("{url}/api/sales"))
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body(serde_json::json!({"stake_cents": 100, "idempotency_key": format!("public-record-{i}"), "client_nonce": format!("{i:032x}")}).to_string())
            .send()
            .unwrap();
        let status = reply.status();
        let body = reply.bytes().unwrap();
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        let sale: SaleResponse = serde_json::from_slice(&body).unwrap();
        sales.push(sale);
    }
    let indices: Vec<u64> = sales
        .iter()
        .map(|sale| {
            wait_for("the sale's log index", || {
                let path = format!("/api/sales/{}", sale.sale.sale.sale_id);
                let reply = client
                    .get(format!("{url}{path}"))
                    .bearer_auth(&token)
                    .send()
                    .unwrap();
                json::<SaleResponse>(reply).log_index
            })
        })
        .collect();

    // The witness cosigns the newest checkpoint, which the log then serves.
    let witness = eldorado(&[
        "witness",
        "--log",
        &url,
        "--key-file",
        key_file.to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
        "--name",
        "witness.test",
        "--once",
    ]);
    assert!(witness.status.success(), "{}", text(&witness));
    assert!(
        String::from_utf8_lossy(&witness.stdout).contains(&format!("witness key: {vkey}")),
        "{}",
        text(&witness)
    );
    let note = get("/api/log/checkpoint").text().unwrap();
    let cosigned = open_checkpoint(note.as_bytes(), &log_key, &witnesses, 1)
        .unwrap_or_else(|e| panic!("{e}: {note}"));
    assert_eq!(cosigned.witnesses, ["witness.test"]);

    // Every receipt proves itself against the cosigned checkpoint.
    for (sale, index) in sales.iter().zip(indices) {
        let leaf = LogEntry::of_sale(&sale.sale).unwrap().to_leaf().unwrap();
        let proof = get(&format!(
            "/api/log/proof/inclusion?index={index}&size={}",
            cosigned.size
        ));
        let proof: InclusionProof = json(proof);
        verify_inclusion(&leaf, index, cosigned.size, &cosigned.root, &proof.hashes).unwrap();
    }
    // A proof past the published tree is refused, not invented.
    let beyond = get(&format!(
        "/api/log/proof/inclusion?index=0&size={}",
        cosigned.size + 1_000
    ));
    assert_eq!(beyond.status(), 404);

    // A cosignature by a key the log does not know is refused.
    let stranger = Cosigner::new("stranger.test", signing_key_from_secret([7; 32])).unwrap();
    let latest = get("/api/log/checkpoint/latest").text().unwrap();
    let forged = client
        .post(format!("{url}/api/log/cosignatures"))
        .header("content-type", "application/json")
        .body(
            serde_json::json!({
                "checkpoint": latest,
                "cosignature": stranger.cosign(latest.as_bytes(), 1_800_000_000).unwrap(),
            })
            .to_string(),
        )
        .send()
        .unwrap();
    assert_eq!(forged.status(), 403);

    // A receipt that proves itself, checked offline and against the live log.
    let sale_id = sales[0].sale.sale.sale_id;
    let receipt: Value = wait_for("a receipt with its record", || {
        let reply = client
            .get(format!("{url}/api/sales/{sale_id}/receipt"))
            .bearer_auth(&token)
            .send()
            .unwrap();
        reply.status().is_success().then(|| json(reply))
    });
    let operator = config["public_key"].as_str().unwrap().to_owned();
    let file = dir.path().join("receipt.json");
    std::fs::write(&file, receipt.to_string()).unwrap();
    let checked = eldorado(&[
        "verify",
        file.to_str().unwrap(),
        "--key",
        &operator,
        "--witness",
        &vkey,
        "--log",
        &url,
    ]);
    assert!(checked.status.success(), "{}", text(&checked));
    for check in ["record_checkpoint", "record_inclusion", "record_live_log"] {
        assert!(
            text(&checked).contains(&format!("ok      {check}")),
            "{}",
            text(&checked)
        );
    }
    // A checkpoint that is not the log's (another root) proves nothing.
    let mut forged = receipt.clone();
    let note = forged["checkpoint"].as_str().unwrap().to_owned();
    let root_line = note.lines().nth(2).unwrap().to_owned();
    let other_root =
        if root_line.starts_with('A') { "B" } else { "A" }.to_owned() + &root_line[1..];
    forged["checkpoint"] = note.replacen(&root_line, &other_root, 1).into();
    std::fs::write(&file, forged.to_string()).unwrap();
    let refused = eldorado(&[
        "verify",
        file.to_str().unwrap(),
        "--key",
        &operator,
        "--witness",
        &vkey,
    ]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert!(
        text(&refused).contains("FAILED  record_checkpoint"),
        "{}",
        text(&refused)
    );

    // The page served is the build the log names, file for file.
    let listing: eldorado_api::PageListing = json(get("/api/log/page"));
    assert_eq!(listing.files.len(), 3);
    let audit = eldorado(&["log", "audit", &url]);
    assert!(audit.status.success(), "{}", text(&audit));
    assert!(text(&audit).contains("page records 1"), "{}", text(&audit));
}
