//! `eldorado serve` refusing to start, as an operator sees it: a message
//! on stderr and a non-zero exit, before it listens or generates anything.

use eldorado_engine::commit::{leaf_hash, signing_key_from_secret};
use eldorado_engine::merkle::MerkleTree;
use eldorado_engine::{Block, Money, Params, Salt, Stake, Ticket};
use eldorado_server::clock::SystemClock;
use eldorado_server::state::DATABASE_FILE;
use eldorado_server::store::sqlite::SqliteStore;
use eldorado_server::store::{BlockSeeding, PlayerKind, Store};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A refusal comes at once; a server that starts instead would never exit.
const DEADLINE: Duration = Duration::from_secs(60);

fn serve(data: &Path, extra: &[&str]) -> Output {
    serve_within(data, extra, DEADLINE)
}

/// Runs `eldorado serve` to its exit; past `deadline` it is killed and the
/// test fails with what it printed, rather than hanging the suite.
fn serve_within(data: &Path, extra: &[&str], deadline: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(data)
        .args(extra)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Read on threads, so that a full pipe never blocks the child.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child is waited for") {
            break status;
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = String::from_utf8_lossy(&stderr.join().unwrap()).into_owned();
            panic!("`eldorado serve {extra:?}` still ran after {deadline:?}: {stderr}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

fn refused(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "it started: {stderr}");
    stderr
}

#[test]
fn a_server_that_starts_instead_of_refusing_fails_the_test_in_time() {
    let data = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let failure = std::panic::catch_unwind(|| {
        serve_within(data.path(), &["--demo"], Duration::from_millis(500))
    })
    .expect_err("a demo server runs until it is stopped");
    let message = failure.downcast_ref::<String>().unwrap();
    assert!(message.contains("still ran after 500ms"), "{message}");
    assert!(started.elapsed() < DEADLINE);
}

#[test]
fn a_demo_seed_on_a_data_directory_with_operator_players_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&data.path().join(DATABASE_FILE), Arc::new(SystemClock)).unwrap();
    store
        .create_player("ext-1", PlayerKind::Operator, 100)
        .unwrap();
    drop(store);
    let stderr = refused(&serve(data.path(), &["--demo", "--demo-seed", "5"]));
    assert!(
        stderr.contains("eldorado: --demo-seed 5 is refused")
            && stderr.contains("operator players")
            && stderr.contains("fresh data directory"),
        "{stderr}"
    );
    let store = SqliteStore::open(&data.path().join(DATABASE_FILE), Arc::new(SystemClock)).unwrap();
    assert!(store.blocks().unwrap().is_empty(), "no block generated");
}

#[test]
fn seeded_blocks_on_hand_are_refused_without_the_seed() {
    let data = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&data.path().join(DATABASE_FILE), Arc::new(SystemClock)).unwrap();
    // A one-ticket play-money block, stored as a --demo-seed server would.
    let ticket = Ticket {
        position: 0,
        stake_cents: 50,
        grids: vec!["CSDRS/DRSCR/SDRMR".parse().unwrap()],
        prize_cents: 0,
        extras: 0,
        salt: Salt([2; 16]),
    };
    let block = Block {
        id: 4,
        stake: Stake::HALF_EURO,
        params: Params::default(),
        tree: MerkleTree::build(vec![leaf_hash(4, &ticket)]),
        tickets: vec![ticket],
    };
    let signed = block
        .commitment(Money::Play)
        .sign(&signing_key_from_secret([4; 32]));
    store
        .insert_block(&block, &signed, BlockSeeding::Demo, 1)
        .unwrap();
    drop(store);
    for flags in [&[][..], &["--demo"][..]] {
        let stderr = refused(&serve(data.path(), flags));
        assert!(
            stderr.contains("drawn from a fixed --demo-seed (blocks 4)")
                && stderr.contains("fresh data directory"),
            "{flags:?}: {stderr}"
        );
    }
}

#[test]
fn demo_mode_is_asked_for_by_name() {
    let data = tempfile::tempdir().unwrap();
    let stderr = refused(&serve(data.path(), &["--demo-seed", "5"]));
    assert!(stderr.contains("unless --demo is given"), "{stderr}");
    // The old switch is gone: real money only is the default.
    let stderr = refused(&serve(data.path(), &["--no-demo"]));
    assert!(stderr.contains("--no-demo"), "{stderr}");
}

#[test]
fn a_seamless_wallet_needs_its_secret() {
    let data = tempfile::tempdir().unwrap();
    let wallet = ["--wallet", "http://127.0.0.1:9/wallet"];
    let empty = data.path().join("empty.secret");
    std::fs::write(&empty, "\n").unwrap();
    for (file, says) in [
        (empty.clone(), "the file is empty"),
        (data.path().join("missing.secret"), "missing.secret"),
    ] {
        let mut flags = wallet.to_vec();
        flags.extend(["--wallet-secret-file", file.to_str().unwrap()]);
        let output = serve(data.path(), &flags);
        let stderr = refused(&output);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("--wallet-secret-file") && stderr.contains(says),
            "{stderr}"
        );
    }
    // Both flags or neither.
    let output = serve(data.path(), &wallet);
    assert_eq!(output.status.code(), Some(2));
    assert!(refused(&output).contains("--wallet-secret-file"));
    let output = serve(
        data.path(),
        &["--wallet-secret-file", empty.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(refused(&output).contains("--wallet"));
    // Nothing was created: the refusal comes before the data directory is opened.
    assert!(!data.path().join(DATABASE_FILE).exists());
}

#[test]
fn protection_flags_out_of_range_are_refused() {
    for (flags, expected) in [
        (
            ["--reality-check-minutes", "20"],
            "--reality-check-minutes must be 15, 30 or 60",
        ),
        (
            ["--default-weekly-stake-limit", "0"],
            "--default-weekly-stake-limit must be 1..=100000000 cents",
        ),
    ] {
        let data = tempfile::tempdir().unwrap();
        let stderr = refused(&serve(data.path(), &flags));
        assert!(stderr.contains(expected), "{stderr}");
    }
}
