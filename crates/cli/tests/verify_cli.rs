//! `eldorado verify RECEIPT --key HEX` on a genuine receipt, and on every
//! single-field tampering of it.

use eldorado_api::SaleResponse;
use eldorado_engine::commit::{public_key_of, signing_key_from_secret};
use eldorado_engine::{
    generate_block, BlockRng, ClientNonce, Money, Params, Sale, SeedableRng, Stake,
};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const NONCE: &str = "00112233445566778899aabbccddeeff";

fn eldorado(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A genuine receipt for the first winning ticket with Extras of a seeded
/// block, as `GET /api/sales/{id}` returns it, and the operator key.
fn genuine_receipt() -> (Value, String) {
    let key = signing_key_from_secret([3; 32]);
    let mut rng = BlockRng::seed_from_u64(2024);
    let block = generate_block(5, Stake::ONE_EURO, &Params::default(), &mut rng).unwrap();
    let ticket = block
        .tickets
        .iter()
        .find(|t| t.prize_cents > 0 && t.extras > 0)
        .expect("a seeded block has winners with Extras")
        .clone();
    let proof = block.proof(ticket.position).unwrap();
    let sale = Sale {
        sale_id: 77,
        block: block.id,
        tickets: block.tickets.len() as u32,
        proof,
        player: "casino-7731".to_owned(),
        sold_at_ms: 1_796_200_000_000,
        client_nonce: ClientNonce::from_hex(NONCE).unwrap(),
        // A V3 sale: the operator signs the balances too.
        balance_before_cents: Some(1_000),
        balance_after_cents: Some(1_000 - ticket.stake_cents + ticket.prize_cents),
        ticket: ticket.clone(),
    }
    .sign(&key)
    .unwrap();
    let response = SaleResponse {
        sale,
        commitment: block.commitment(Money::Real).sign(&key),
        balance_before_cents: 1_000,
        balance_after_cents: 1_000 - ticket.stake_cents + ticket.prize_cents,
        revealed: 0,
        complete: false,
        log_index: None,
        deal: None,
    };
    (
        serde_json::to_value(&response).unwrap(),
        public_key_of(&key).to_hex(),
    )
}

fn verify(dir: &Path, receipt: &Value, extra: &[&str]) -> Output {
    let file = dir.join("receipt.json");
    std::fs::write(&file, serde_json::to_vec_pretty(receipt).unwrap()).unwrap();
    let mut args = vec!["verify", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    eldorado(&args)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Every scalar of the JSON, by its path, changed to another value of the
/// same type that still parses.
fn tamperings(value: &Value, path: String, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (name, inner) in map {
                tamperings(inner, format!("{path}/{name}"), out);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                tamperings(inner, format!("{path}/{i}"), out);
            }
        }
        Value::Number(n) => out.push((path, Value::from(n.as_u64().unwrap() + 1))),
        Value::Bool(b) => out.push((path, Value::from(!b))),
        Value::String(s) => {
            let changed = if s == "real" {
                "play".to_owned()
            } else if s.contains('/') {
                // A grid: one cell becomes another symbol.
                let first = if s.starts_with('R') { 'M' } else { 'R' };
                format!("{first}{}", &s[1..])
            } else if s.chars().all(|c| c.is_ascii_hexdigit()) {
                let last = if s.ends_with('0') { '1' } else { '0' };
                format!("{}{last}", &s[..s.len() - 1])
            } else {
                format!("{s}x")
            };
            out.push((path, Value::from(changed)));
        }
        Value::Null => {}
    }
}

#[test]
fn a_genuine_receipt_passes_every_check_that_needs_no_session() {
    let dir = tempfile::tempdir().unwrap();
    let (receipt, key) = genuine_receipt();
    let output = verify(dir.path(), &receipt, &["--key", &key]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    for check in [
        "commitment_signature",
        "prize_table",
        "block_size",
        "sale_signature",
        "same_block",
        "rules",
        "merkle_proof",
        "balance",
    ] {
        assert!(
            text.lines()
                .any(|l| l.starts_with("ok") && l.contains(check)),
            "{check} not passed: {text}"
        );
    }
    assert!(!text.contains("FAILED"), "{text}");
    assert!(text.contains("VERIFIED"), "{text}");
    // The buyer can add what only they know.
    let output = verify(
        dir.path(),
        &receipt,
        &["--key", &key, "--player", "casino-7731", "--nonce", NONCE],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(text.contains("ok      player"), "{text}");
    assert!(text.contains("ok      client_nonce"), "{text}");
}

#[test]
fn every_single_field_tampering_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (receipt, key) = genuine_receipt();
    let mut cases = Vec::new();
    tamperings(&receipt, String::new(), &mut cases);
    // Reveal progress is the player's, not the ticket's: nothing signs it.
    cases.retain(|(path, _)| path != "/revealed" && path != "/complete");
    assert!(cases.len() > 40, "{} fields", cases.len());
    for (path, changed) in cases {
        let mut tampered = receipt.clone();
        *tampered.pointer_mut(&path).unwrap() = changed;
        let output = verify(dir.path(), &tampered, &["--key", &key]);
        let text = stdout(&output);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{path} changed and not refused: {text}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(text.contains("REFUSED: failed"), "{path}: {text}");
    }
}

#[test]
fn another_key_another_buyer_or_a_bad_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (receipt, key) = genuine_receipt();
    let stranger = public_key_of(&signing_key_from_secret([4; 32])).to_hex();
    let output = verify(dir.path(), &receipt, &["--key", &stranger]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("FAILED  commitment_signature"));
    let output = verify(dir.path(), &receipt, &["--key", &key, "--player", "other"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("FAILED  player"));
    let other_nonce = "ffeeddccbbaa99887766554433221100";
    let output = verify(
        dir.path(),
        &receipt,
        &["--key", &key, "--nonce", other_nonce],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("FAILED  client_nonce"));
    // Bad input: a clear one-line error and exit 2.
    let output = verify(dir.path(), &receipt, &["--key", "xyz"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--key"));
    let output = eldorado(&["verify", "/nonexistent/receipt.json", "--key", &key]);
    assert_eq!(output.status.code(), Some(2));
    let output = verify(
        dir.path(),
        &serde_json::json!({"sale": 1}),
        &["--key", &key],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("is not a receipt"));
}

#[test]
fn every_bad_argument_exits_2_with_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let (receipt, key) = genuine_receipt();
    let long_player = "p".repeat(256);
    // 64 hex digits that decode to no point of the curve.
    let off_curve = format!("02{}", "00".repeat(31));
    let not_hex = "zz".repeat(16);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--key", &key, "--player", ""], "--player"),
        (vec!["--key", &key, "--player", &long_player], "--player"),
        (vec!["--key", ""], "--key"),
        (vec!["--key", "  "], "--key"),
        (vec!["--key", &key[..62]], "--key"),
        (vec!["--key", &off_curve], "--key"),
        (vec!["--key", &key, "--nonce", ""], "--nonce"),
        (vec!["--key", &key, "--nonce", "0011"], "--nonce"),
        (vec!["--key", &key, "--nonce", &not_hex], "--nonce"),
    ];
    for (args, flag) in cases {
        let output = verify(dir.path(), &receipt, &args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}{stderr}",
            stdout(&output)
        );
        assert!(stderr.contains(flag), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stdout(&output).is_empty(), "{args:?}: nothing checked");
    }
    // The receipt argument: empty, a directory, missing.
    for receipt_path in ["", dir.path().to_str().unwrap(), "/nonexistent/r.json"] {
        let output = eldorado(&["verify", receipt_path, "--key", &key]);
        assert_eq!(output.status.code(), Some(2), "{receipt_path:?}");
    }
}

/// Issue 21: both balances shifted by the same amount still tell a
/// consistent story (after = before − stake + prize), and a V3 receipt
/// refuses them all the same: the operator signed the true ones.
#[test]
fn a_receipt_with_both_balances_shifted_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (receipt, key) = genuine_receipt();
    let mut shifted = receipt.clone();
    for field in ["balance_before_cents", "balance_after_cents"] {
        let value = shifted[field].as_u64().unwrap();
        shifted[field] = (value + 1_000_000).into();
    }
    let output = verify(dir.path(), &shifted, &["--key", &key]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("FAILED  balance"), "{text}");
    // Shifting the signed ones as well breaks the operator's signature.
    for field in ["balance_before_cents", "balance_after_cents"] {
        let value = shifted["sale"][field].as_u64().unwrap();
        shifted["sale"][field] = (value + 1_000_000).into();
    }
    let output = verify(dir.path(), &shifted, &["--key", &key]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("FAILED  sale_signature"), "{text}");
}
