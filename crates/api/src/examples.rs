//! The examples of the OpenAPI document, written as a client would see them
//! on the wire. The server's tests parse each one as its type, so an example
//! that drifts from the types fails the build's tests, not a reader.

use eldorado_engine::prize_table::RANKS;
use serde_json::{json, Value};

const PUBLIC_KEY: &str = "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29";
const TOKEN: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const LAUNCH_CODE: &str = "c0ffee0d15ea5e5bb0a7f00dfacade5e1d0c1a55b16b00b5cafebabe8badf00d";
const PLAYER: &str = "demo-4f2c9a1b7e3d5c60";

pub fn config() -> Value {
    // The prize table is the engine's own, so the example shows true figures.
    let prize_table: Vec<Value> = RANKS
        .iter()
        .map(|r| {
            json!({"rank": r.rank, "multiple": r.multiple, "count": r.count, "direct": r.direct,
                   "via_extras": r.via_extras, "decompositions": r.decompositions})
        })
        .collect();
    json!({
        "stakes_cents": [50, 100, 200],
        "public_key": PUBLIC_KEY,
        "rtp_basis_points": 7000,
        "odds": {"tickets": 400000, "winners": 60440},
        "max_win_cents": {"50": 350000, "100": 700000, "200": 1400000},
        "prize_table": prize_table,
        "demo": true,
        "starting_balance_cents": 5000,
        "portal_origins": ["https://casino.example"],
        "log": {
            "origin": "eldorado/3b6a27bcceb6a42d",
            "key": "eldorado/3b6a27bcceb6a42d+f81834c2+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop",
            "witnesses": ["witness.regulator.example+453ecebe+BNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea"],
            "quorum": 1
        },
        "dealing": {
            "beacon_url": "https://beacon.example",
            "public_key": "a013f3d9ac6227d8015e6750d24bbea3dc9fc9c4d47c9297b4522e966d3f297391a68e58904288ec68b30f429e2e3f9f045ab6ec2225c3fc59f99b5f98064fa1e978e7291f4aed8a278b36088f8d83fc6b4a9fbcb7d26c948d14db0ab7b94289",
            "genesis_time_ms": 0,
            "period_ms": 500,
            "lead_ms": 1000,
            "demo": true
        },
        "page": "fb5feaa94ed927ecd334675bcdce646e2c441f095b683adc2a17c09959cdcae1"
    })
}

pub fn signed_commitment() -> Value {
    json!({
        "block": 3,
        "stake_cents": 100,
        "tickets": 400000,
        "money": "real",
        "prize_table": "138b9fc540bd8a4b9f27679f7779d0f4b226a229e3592c04a8a366aacf2eb997",
        "root": "5d41402abc4b2a76b9719d911017c592ae2f6b2b4e6b4d7b6a5d6b2b4e6b4d7b",
        "public_key": PUBLIC_KEY,
        "signature": "8e1f0c4b".repeat(16)
    })
}

pub fn ticket() -> Value {
    json!({
        "position": 1234,
        "stake_cents": 100,
        "grids": ["PPSDR/DRSCR/SDRMR"],
        "prize_cents": 200,
        "extras": 0,
        "salt": "a3c1f09e5b7d2468a3c1f09e5b7d2468"
    })
}

pub fn signed_sale() -> Value {
    json!({
        "sale_id": 17,
        "block": 3,
        "tickets": 400000,
        "ticket": ticket(),
        "proof": ["1f".repeat(32), "e0".repeat(32)],
        "player": PLAYER,
        "sold_at_ms": 1796200000000u64,
        "client_nonce": "00112233445566778899aabbccddeeff",
        "signature": "4a7c".repeat(32),
        "balance_before_cents": 5000,
        "balance_after_cents": 5100
    })
}

pub fn sale_response() -> Value {
    json!({
        "sale": signed_sale(),
        "commitment": signed_commitment(),
        "balance_before_cents": 5000,
        "balance_after_cents": 5100,
        "revealed": 0,
        "complete": false,
        "log_index": 1_203_412,
        "deal": {
            "purchase": "454c444f5241444f2d4255592d5631000000000001595c000000000000000300061a801564656d6f2d34663263396131623765336435633630000001a235dcea0000112233445566778899aabbccddeeff00000000d61fac8300000000000013880000000000001324f7a2a52a87681c0445fa94ec5dd4a8f5f1f30cfa8b7dfd345bb889f1e8533f6bb0f92cd2db8be0196801e437199f63b18b05abd5e03c510f63ce018983e1400c",
            "purchase_log_index": 1_203_398,
            "round_signature": "8d61d9100567de44682506aea1a7a6fa6e5491cd27a0a0ed349ef6910ac5ac20ff7bc3e09d7c046566c9f7f3c6f3b10e",
            "unsold_root": "15e899039d6390ae51bf013d0095bf80552967d7385d96fd013720f2332a5f1b",
            "siblings": [
                {"hash": "84f986159d621e9336ce203e2ab5ec56358d7eee9faf291c666f10384e2b740e", "count": 1},
                {"hash": "980b42c8765072c51eb09007941f3391e118b72a9af8f4190ca2cb26b7d9b2de", "count": 1}
            ]
        }
    })
}

pub fn session() -> Value {
    json!({
        "token": TOKEN,
        "player_id": PLAYER,
        "balance_cents": 5000,
        "started_at_ms": 1796200000000u64,
        "expires_at_ms": 1796286400000u64,
        "money": "real",
        "unrevealed": null,
        "protection": protection(),
        "lobby_url": "https://casino.example/lobby"
    })
}

pub fn protection() -> Value {
    json!({
        "weekly_stake_limit_cents": 1000,
        "weekly_loss_limit_cents": 3000,
        "pending_weekly_stake_limit": null,
        "pending_weekly_loss_limit": {"limit_cents": 5000, "effective_at_ms": 1796372800000u64},
        "stake_used_cents": 350,
        "loss_used_cents": 150,
        "excluded_until_ms": null,
        "excluded_indefinitely": false,
        "reality_check_minutes": 30
    })
}

pub fn limits_request() -> Value {
    json!({"weekly_stake_limit_cents": 1000, "weekly_loss_limit_cents": null})
}

pub fn exclusion_request() -> Value {
    json!({"days": 7})
}

pub fn operator_exclusion_request() -> Value {
    json!({"until_ms": 1798800000000u64})
}

pub fn reality_check_request() -> Value {
    json!({"minutes": 30})
}

pub fn audit_entry() -> Value {
    json!({
        "at_ms": 1796200000000u64,
        "actor": "player",
        "change": "weekly_loss_limit",
        "old": 3000,
        "new": 5000,
        "effective_at_ms": 1796372800000u64
    })
}

pub fn protection_audit() -> Value {
    json!({"player_id": "casino-7731", "protection": protection(), "audit": [audit_entry()]})
}

pub fn launch_request() -> Value {
    json!({"player_id": "casino-7731", "lang": "fr",
           "lobby_url": "https://casino.example/lobby", "mode": "real"})
}

pub fn launch() -> Value {
    json!({"url": format!("https://games.example/?launch={LAUNCH_CODE}&lang=fr"),
           "expires_at_ms": 1796200060000u64})
}

pub fn launch_code_request() -> Value {
    json!({"code": LAUNCH_CODE})
}

pub fn demo_player_request() -> Value {
    json!({})
}

pub fn operator_session_request() -> Value {
    json!({"player_id": "casino-7731"})
}

pub fn buy_request() -> Value {
    json!({
        "stake_cents": 100,
        "idempotency_key": "b1f4-0007-retry",
        "client_nonce": "00112233445566778899aabbccddeeff"
    })
}

pub fn reveal_request() -> Value {
    json!({"revealed": 1})
}

pub fn reveal_ack() -> Value {
    json!({"sale_id": 17, "revealed": 1, "complete": true})
}

pub fn history_item() -> Value {
    json!({
        "sale_id": 17,
        "block": 3,
        "position": 1234,
        "sold_at_ms": 1796200000000u64,
        "stake_cents": 100,
        "prize_cents": 200,
        "extras": 0,
        "status": "revealed",
        "revealed": 1
    })
}

pub fn history_page() -> Value {
    json!({"items": [history_item()], "next_before": null})
}

/// A finished block: only these say what was sold and what is left.
pub fn block_info() -> Value {
    let remaining: Vec<Value> = RANKS
        .iter()
        .map(|r| json!({"rank": r.rank, "remaining": if r.rank == 1 { 1 } else { 0 }}))
        .collect();
    json!({
        "commitment": signed_commitment(),
        "status": "closed",
        "sold": 399_123,
        "remaining_by_rank": remaining,
        "log_index": 1_203_377
    })
}

/// The block on sale: its commitment and status, nothing of what it holds.
pub fn open_block_info() -> Value {
    json!({"commitment": signed_commitment(), "status": "open"})
}

pub fn block_list() -> Value {
    json!({"blocks": [open_block_info(), block_info()]})
}

pub fn transfer_request() -> Value {
    json!({"amount_cents": 2500, "reference": "wallet:tx-88412"})
}

pub fn balance() -> Value {
    json!({"player_id": "casino-7731", "balance_cents": 2500})
}

pub fn sessions_ended() -> Value {
    json!({"player_id": "casino-7731", "sessions_ended": 2})
}

/// Every field shown: a server restored from a copy older than its record.
pub fn health() -> Value {
    json!({"status": "unavailable", "sale_writer": true, "block_generator": true, "store": true,
           "wallet_outbox": {"backlog": 2, "oldest_age_ms": 4100, "most_attempts": 3, "given_up": 0},
           "record_behind": 18250})
}

pub fn error_body() -> Value {
    json!({"error": {"code": "INSUFFICIENT_FUNDS",
                     "message": "your balance of 40 cents does not cover 100 cents"}})
}

pub fn balance_call() -> Value {
    json!({"player_id": "casino-7731"})
}

pub fn balance_answer() -> Value {
    json!({"balance_cents": 2500})
}

pub fn debit_call() -> Value {
    json!({"transaction_id": "debit:5f0c2a9e41b7d3c86a1e0f42", "round_id": "5f0c2a9e41b7d3c86a1e0f42",
           "player_id": "casino-7731", "amount_cents": 100})
}

pub fn credit_call() -> Value {
    json!({"transaction_id": "credit:5f0c2a9e41b7d3c86a1e0f42", "round_id": "5f0c2a9e41b7d3c86a1e0f42",
           "player_id": "casino-7731", "amount_cents": 200})
}

pub fn rollback_call() -> Value {
    json!({"transaction_id": "rollback:5f0c2a9e41b7d3c86a1e0f42", "original_transaction_id": "debit:5f0c2a9e41b7d3c86a1e0f42",
           "round_id": "5f0c2a9e41b7d3c86a1e0f42", "player_id": "casino-7731", "amount_cents": 100})
}

pub fn wallet_answer() -> Value {
    json!({"status": "ok", "balance_cents": 2400})
}

// The public record's examples are docs/PROTOCOL.md §9's worked example.
const LOG_RECORD_HASH_0: &str = "2bfef536130a3ed493d20ec8a7a31e8db1e1c016ce8a41a1430326ba4767e254";
const LOG_CHECKPOINT: &str = "eldorado.test/log\n2\nhdydIOjOjnhWvrW5UqXzSH8nExdiAWmEH7Dt55xvjCw=\n\n\
    — eldorado.test/log YOZDHmODn/ziaW8SeUQFNSVdAU/1dSLUjX4GXOdbL+uC2c6ESdP1YBn1UbK3f7zKY1MYrI9sATqo/AY1Ftf6wf6rPww=\n";

pub fn inclusion_proof() -> Value {
    json!({"index": 1, "size": 2, "hashes": [LOG_RECORD_HASH_0]})
}

pub fn consistency_proof() -> Value {
    json!({"from": 1, "size": 2, "hashes": ["371bd8f4c628a44b4ace1d1488c3678954f12f2c341ce169ddacedb8d6150d6a"]})
}

pub fn log_leaves() -> Value {
    json!({"start": 0, "leaves": [concat!(
        "454c444f5241444f2d434f4d4d49542d5632",
        "0000000000000003000000000000006400061a8000",
        "138b9fc540bd8a4b9f27679f7779d0f4b226a229e3592c04a8a366aacf2eb997",
        "3333333333333333333333333333333333333333333333333333333333333333",
        "3be9c7360a243a43ccd7e99ab73b31fda48128f6069ae525d4df7d8d6c6e1508",
        "92e414cfd8c32ed4125fa7926ba346d71ab5c2086eb395c55bdef3680a0f1d05"
    )]})
}

pub fn cosignature_submission() -> Value {
    json!({
        "checkpoint": LOG_CHECKPOINT,
        "cosignature": "— witness-1.test op1A4wAAAABrD9ZApM01aOFa3QpYIyO9jFgLYFSVlqLy5lXxvSz9Iwkr2GUhqd4289czX+HOl6Rpyn/ILQGI/zHKmx97cVe92HThCQ==\n"
    })
}

pub fn daily_report() -> Value {
    json!({
        "from": "2026-12-04",
        "to": "2026-12-05",
        "days": [{
            "day": "2026-12-04", "stake_cents": 100, "money": "real", "tickets": 1200,
            "stakes_cents": 120000, "prizes_cents": 81500, "ggr_cents": 38500,
            "rtp_basis_points": 6791
        }],
        "blocks": [{
            "block": 12, "stake_cents": 100, "money": "real", "status": "sold_out", "sold": 400000,
            "ranks": [{"rank": 1, "prize_cents": 700000, "in_rules": 2, "sold": 2}]
        }]
    })
}

pub fn page_listing() -> Value {
    json!({
        "fingerprint": "5b0c2ad4c33ec87f8a0d5d3c6c4cbd2d1e8e7f4b8f0a2b7e3b1c9d0e6f5a4b3c",
        "files": {
            "www/pkg/index.html": "9f2a61d8c1b04e3a7d5c2b8e6f1a0d9c4b7e2a5d8c1f0b3e6a9d2c5f8b1e4a7d",
            "www/pkg/page-policy.json": "1c4f7a0d3e6b9c2f5a8d1e4b7c0f3a6d9e2b5c8f1a4d7e0b3c6f9a2d5e8b1c4f"
        }
    })
}
