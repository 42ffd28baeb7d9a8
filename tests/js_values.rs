//! The page's reader and writer of JavaScript values (`js_decode`,
//! `js_encode`, issue 13's size cut) do exactly what serde-wasm-bindgen does:
//! every API shape the page reads, as the server writes it, and each of its
//! fields (nested ones too) removed or replaced by a value of another kind
//! (null, text, fraction, negative, beyond 2^53, object, array) is accepted
//! or refused alike and read as the same value; every value read, every
//! request and message the page writes, is written as the same JSON
//! (`Serializer::json_compatible()`), and refused alike beyond 2^53.

use eldorado_engine::commit::SignedCommitment;
use eldorado_web::api::{
    BuyRequest, Config, ErrorBody, ExclusionRequest, LaunchCodeRequest, LimitsRequest, PageMessage,
    ParentMessage, RealityCheckRequest, RevealRequest, SaleResponse,
};
use eldorado_web::fixtures::{self, FixtureBlock};
use eldorado_web::{js_decode, js_encode};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn replacements() -> Vec<Value> {
    vec![
        Value::Null,
        json!("x"),
        json!(1.5),
        json!(-1),
        json!(9_007_199_254_740_993u64),
        json!(0),
        json!(true),
        json!({}),
        json!([]),
        json!([1, 2]),
        json!({"a": 1}),
    ]
}

/// The value itself, then each field at any depth removed or replaced.
fn variants(value: &Value) -> Vec<Value> {
    let mut out = vec![value.clone()];
    match value {
        Value::Object(map) => {
            for (key, field) in map {
                let mut removed = map.clone();
                removed.remove(key);
                out.push(Value::Object(removed));
                for other in replacements()
                    .into_iter()
                    .chain(variants(field).into_iter().skip(1))
                {
                    let mut changed = map.clone();
                    changed.insert(key.clone(), other);
                    out.push(Value::Object(changed));
                }
            }
        }
        Value::Array(items) => {
            if let Some(first) = items.first() {
                for other in replacements()
                    .into_iter()
                    .chain(variants(first).into_iter().skip(1))
                {
                    let mut changed = items.clone();
                    changed[0] = other;
                    out.push(Value::Array(changed));
                }
            }
        }
        _ => {}
    }
    out
}

/// Both writers give the same JSON text, or both refuse.
fn same_writing<T: Serialize>(value: &T) -> bool {
    let stringify = |js: wasm_bindgen::JsValue| String::from(js_sys::JSON::stringify(&js).unwrap());
    let ours = js_encode::to_value(value).ok().map(stringify);
    let theirs = value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .ok()
        .map(stringify);
    assert_eq!(ours, theirs, "written differently");
    ours.is_some()
}

fn same_reading<T: DeserializeOwned + Serialize>(value: &Value) -> usize {
    let mut accepted = 0;
    for variant in variants(value) {
        let text = variant.to_string();
        let js = js_sys::JSON::parse(&text).unwrap();
        let ours = js_decode::from_value::<T>(js.clone()).ok();
        let theirs = serde_wasm_bindgen::from_value::<T>(js).ok();
        if let Some(read) = &ours {
            assert!(same_writing(read), "refused to write {text}");
        }
        let ours = ours.map(|v| serde_json::to_string(&v).unwrap());
        let theirs = theirs.map(|v| serde_json::to_string(&v).unwrap());
        assert_eq!(ours, theirs, "read differently: {text}");
        accepted += usize::from(ours.is_some());
    }
    accepted
}

fn block() -> FixtureBlock {
    FixtureBlock::new(
        1,
        100,
        &[fixtures::LOSE, fixtures::WIN_2, fixtures::EXTRA_1_WIN_2],
    )
}

#[wasm_bindgen_test]
fn sales_read_as_serde_wasm_bindgen_reads_them() {
    let block = block();
    let sale = serde_json::to_value(block.response(1, 7, 1000)).unwrap();
    assert!(same_reading::<SaleResponse>(&sale) > 0);
    let commitments = serde_json::to_value(vec![block.commitment.clone()]).unwrap();
    assert!(same_reading::<Vec<SignedCommitment>>(&commitments) > 0);
}

#[wasm_bindgen_test]
fn config_reads_as_serde_wasm_bindgen_reads_it() {
    let config = serde_json::to_value(fixtures::config(&block().public_key_hex())).unwrap();
    assert!(same_reading::<Config>(&config) > 0);
}

#[wasm_bindgen_test]
fn errors_and_messages_read_as_serde_wasm_bindgen_reads_them() {
    let limit = json!({"error": {"code": "LIMIT_REACHED", "message": "limit",
        "limit": {"kind": "weekly_stake", "limit_cents": 1000,
                  "used_cents": 950, "frees_at_ms": 1_767_225_600_000u64}}});
    assert!(same_reading::<ErrorBody>(&limit) > 0);
    let excluded =
        json!({"error": {"code": "SELF_EXCLUDED", "message": "x", "excluded_until_ms": 99}});
    assert!(same_reading::<ErrorBody>(&excluded) > 0);
    for message in [
        json!({"type": "balance", "balance_cents": 4900}),
        json!({"type": "round_ended", "sale_id": 3, "prize_cents": 200, "verified": true}),
        json!({"type": "error", "code": "X"}),
    ] {
        assert!(same_reading::<PageMessage>(&message) > 0);
    }
    for message in [
        json!({"type": "mute"}),
        json!({"type": "refresh_balance"}),
        json!("close"),
    ] {
        same_reading::<ParentMessage>(&message);
    }
}

#[wasm_bindgen_test]
fn requests_and_messages_are_written_as_serde_wasm_bindgen_writes_them() {
    let requests = [
        json!({"stake_cents": 100, "idempotency_key": "k-1", "client_nonce": "ab"}),
        json!({"stake_cents": 100, "idempotency_key": "k-1"}),
    ];
    for request in requests {
        assert!(same_reading::<BuyRequest>(&request) > 0);
    }
    assert!(same_reading::<RevealRequest>(&json!({"revealed": 3})) > 0);
    let limits = json!({"weekly_stake_limit_cents": 5000, "weekly_loss_limit_cents": null});
    assert!(same_reading::<LimitsRequest>(&limits) > 0);
    assert!(same_reading::<ExclusionRequest>(&json!({"days": 7})) > 0);
    assert!(same_reading::<ExclusionRequest>(&json!({"days": null})) > 0);
    assert!(same_reading::<RealityCheckRequest>(&json!({"minutes": 30})) > 0);
    assert!(same_reading::<LaunchCodeRequest>(&json!({"code": "c\u{e9}\n\"x"})) > 0);
    let messages = [
        PageMessage::Ready,
        PageMessage::Balance {
            balance_cents: 4900,
        },
        PageMessage::RoundStarted {
            sale_id: 1,
            stake_cents: 100,
        },
        PageMessage::RoundEnded {
            sale_id: 1,
            prize_cents: 0,
            verified: false,
        },
        PageMessage::InsufficientFunds,
        PageMessage::Error { code: "X".into() },
        PageMessage::Resize { height: 640 },
    ];
    for message in &messages {
        assert!(same_writing(message));
    }
    for beyond in [1u64 << 53, (1u64 << 53) + 1, u64::MAX] {
        let message = PageMessage::Balance {
            balance_cents: beyond,
        };
        assert_eq!(same_writing(&message), beyond < (1u64 << 53));
    }
}
