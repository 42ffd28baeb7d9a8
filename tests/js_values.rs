//! The page's reader and writer of JavaScript values (`js_read` and
//! `js_write`, by hand: issue 13's size cut) do exactly what
//! serde-wasm-bindgen does with the types' serde derives: every API shape
//! the page reads, as the server writes it, and each of its fields (nested
//! ones too) removed or replaced by a value of another kind (null, text,
//! fraction, negative, past u8 or u32, beyond 2^53, object, array) is
//! accepted or refused alike and read as the same value; so are values only
//! a posted message or a script can hold (`undefined`, `BigInt`, `Map`,
//! `Set`, bytes, symbols, functions). Every request, message and commitment
//! book the page writes, in every variant serde-wasm-bindgen reads, is
//! written as the same JSON (`Serializer::json_compatible()`), and refused
//! alike beyond 2^53.

use eldorado_engine::commit::SignedCommitment;
use eldorado_engine::{ClientNonce, Hash, PublicKeyBytes, Salt, SignatureBytes};
use eldorado_web::api::{
    BlockList, BuyRequest, Config, ErrorBody, ExclusionRequest, HistoryPage, LaunchCodeRequest,
    LimitsRequest, PageMessage, ParentMessage, Protection, RealityCheckRequest, RevealAck,
    RevealRequest, SaleResponse, Session,
};
use eldorado_web::fixtures::{self, FixtureBlock};
use eldorado_web::js_read::FromJs;
use eldorado_web::js_write::ToJs;
use js_sys::{Array, BigInt, Map, Object, Reflect, Set, Symbol, Uint8Array};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn replacements() -> Vec<Value> {
    vec![
        Value::Null,
        json!("x"),
        json!(1.5),
        json!(-1),
        json!(9_007_199_254_740_993u64),
        // Past u8 and u32.
        json!(256),
        json!(4_294_967_296u64),
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
fn same_writing<T: Serialize + ToJs + ?Sized>(value: &T) -> bool {
    let stringify = |js: wasm_bindgen::JsValue| String::from(js_sys::JSON::stringify(&js).unwrap());
    let ours = value.to_js().ok().map(stringify);
    let theirs = value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .ok()
        .map(stringify);
    assert_eq!(ours, theirs, "written differently");
    ours.is_some()
}

/// Both readers accept `js` or both refuse it, and read the same value
/// (ours is returned).
fn same_read<T: FromJs + DeserializeOwned + Serialize>(js: &JsValue, what: &str) -> Option<T> {
    let ours = T::from_js(js).ok();
    let theirs = serde_wasm_bindgen::from_value::<T>(js.clone()).ok();
    let text = |v: &T| serde_json::to_string(v).unwrap();
    assert_eq!(
        ours.as_ref().map(text),
        theirs.as_ref().map(text),
        "read differently: {what}"
    );
    ours
}

/// [`same_read`] for every variant of `value`; those accepted.
fn same_reading<T: FromJs + DeserializeOwned + Serialize>(value: &Value) -> Vec<T> {
    variants(value)
        .iter()
        .filter_map(|variant| {
            let text = variant.to_string();
            same_read::<T>(&js_sys::JSON::parse(&text).unwrap(), &text)
        })
        .collect()
}

/// A type the page only writes: every variant serde-wasm-bindgen reads is
/// written alike by both writers; how many were read.
fn same_writing_of_variants<T: DeserializeOwned + Serialize + ToJs>(value: &Value) -> usize {
    let mut read = 0;
    for variant in variants(value) {
        let text = variant.to_string();
        let js = js_sys::JSON::parse(&text).unwrap();
        if let Ok(value) = serde_wasm_bindgen::from_value::<T>(js) {
            assert!(same_writing(&value), "refused to write {text}");
            read += 1;
        }
    }
    read
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
    assert!(!same_reading::<SaleResponse>(&sale).is_empty());
    let commitments = serde_json::to_value(vec![block.commitment.clone()]).unwrap();
    let books = same_reading::<Vec<SignedCommitment>>(&commitments);
    assert!(!books.is_empty());
    for book in &books {
        assert!(same_writing(book.as_slice()), "refused to write {book:?}");
    }
    let ack = json!({"sale_id": 7, "revealed": 2, "complete": true});
    assert!(!same_reading::<RevealAck>(&ack).is_empty());
}

/// Texts around `bytes` bytes of hex: either case, a digit or a pair
/// short or long, a character not hex (an ASCII one, a sign, a space, one
/// of two UTF-8 bytes that keeps the length); how many both readers took.
fn same_hex_reading<T: FromJs + DeserializeOwned + Serialize>(bytes: usize) -> usize {
    let pairs = |n: usize, pair: &str| pair.repeat(n);
    let texts = [
        pairs(bytes, "0f"),
        pairs(bytes, "A9"),
        pairs(bytes, "aF"),
        String::new(),
        pairs(bytes, "ab")[1..].to_owned(),
        pairs(bytes - 1, "ab"),
        pairs(bytes, "ab") + "a",
        pairs(bytes, "ab") + "ab",
        "g".to_owned() + &pairs(bytes, "ab")[1..],
        pairs(bytes - 1, "ab") + "0x",
        "+f".to_owned() + &pairs(bytes - 1, "ab"),
        " f".to_owned() + &pairs(bytes - 1, "ab"),
        "é".to_owned() + &pairs(bytes - 1, "ab"),
    ];
    texts
        .iter()
        .filter_map(|text| same_read::<T>(&JsValue::from_str(text), text))
        .count()
}

#[wasm_bindgen_test]
fn hex_reads_as_serde_wasm_bindgen_reads_it() {
    assert_eq!(same_hex_reading::<Salt>(16), 3);
    assert_eq!(same_hex_reading::<ClientNonce>(16), 3);
    assert_eq!(same_hex_reading::<Hash>(32), 3);
    assert_eq!(same_hex_reading::<PublicKeyBytes>(32), 3);
    assert_eq!(same_hex_reading::<SignatureBytes>(64), 3);
}

#[wasm_bindgen_test]
fn config_reads_as_serde_wasm_bindgen_reads_it() {
    let mut config = fixtures::config(&block().public_key_hex());
    config.portal_origins = vec!["https://casino.example".into()];
    let config = serde_json::to_value(config).unwrap();
    assert!(!same_reading::<Config>(&config).is_empty());
}

fn protection() -> Value {
    json!({"weekly_stake_limit_cents": 5000, "weekly_loss_limit_cents": null,
        "pending_weekly_stake_limit": {"limit_cents": 8000, "effective_at_ms": 1_767_225_600_000u64},
        "pending_weekly_loss_limit": {"limit_cents": null, "effective_at_ms": 5},
        "stake_used_cents": 300, "loss_used_cents": 0, "excluded_until_ms": null,
        "excluded_indefinitely": false, "reality_check_minutes": 30})
}

#[wasm_bindgen_test]
fn sessions_and_protection_read_as_serde_wasm_bindgen_reads_them() {
    let unrevealed = serde_json::to_value(block().response(2, 9, 800)).unwrap();
    let session = json!({"token": "ab12", "player_id": "p-1", "balance_cents": 4900,
        "expires_at_ms": 1_767_225_600_000u64, "money": "play", "unrevealed": unrevealed,
        "protection": protection(), "lobby_url": "https://casino.example/lobby"});
    assert!(!same_reading::<Session>(&session).is_empty());
    let mut plain = session.clone();
    plain["unrevealed"] = Value::Null;
    plain["money"] = json!("real");
    assert!(!same_reading::<Session>(&plain).is_empty());
    // An enum's variant may also be written `{"name": null}`.
    for money in [json!({"play": null}), json!({"play": 1}), json!(["play"])] {
        plain["money"] = money;
        same_reading::<Session>(&plain);
    }
    assert!(!same_reading::<Protection>(&protection()).is_empty());
}

#[wasm_bindgen_test]
fn history_and_blocks_read_as_serde_wasm_bindgen_reads_them() {
    let page = json!({"items": [{"sale_id": 7, "block": 1, "position": 3,
        "sold_at_ms": 1_767_225_600_000u64, "stake_cents": 100, "prize_cents": 200,
        "extras": 1, "status": "unrevealed", "revealed": 1}], "next_before": 7});
    assert!(!same_reading::<HistoryPage>(&page).is_empty());
    let commitment = serde_json::to_value(block().commitment.clone()).unwrap();
    let blocks = json!({"blocks": [{"commitment": commitment, "status": "sold_out", "sold": 3,
        "remaining_by_rank": [{"rank": 1, "remaining": 0}]}]});
    assert!(!same_reading::<BlockList>(&blocks).is_empty());
    for status in ["open", "pending", "closed", "sold-out", "SoldOut"] {
        let open = json!({"blocks": [{"commitment": commitment, "status": status}]});
        same_reading::<BlockList>(&open);
    }
}

#[wasm_bindgen_test]
fn errors_and_messages_read_as_serde_wasm_bindgen_reads_them() {
    let limit = json!({"error": {"code": "LIMIT_REACHED", "message": "limit",
        "limit": {"kind": "weekly_stake", "limit_cents": 1000,
                  "used_cents": 950, "frees_at_ms": 1_767_225_600_000u64}}});
    assert!(!same_reading::<ErrorBody>(&limit).is_empty());
    let excluded = json!({"error": {"code": "SELF_EXCLUDED", "message": "x",
        "excluded_until_ms": 99, "excluded_indefinitely": true}});
    assert!(!same_reading::<ErrorBody>(&excluded).is_empty());
    for message in [
        json!({"type": "mute"}),
        json!({"type": "unmute", "extra": {"a": [1, null, "x"]}}),
        json!({"type": "refresh_balance"}),
        json!({"type": "close"}),
        json!("close"),
        json!(["close"]),
        json!(["close", 1]),
        json!({"type": "credit"}),
    ] {
        same_reading::<ParentMessage>(&message);
    }
}

fn object(properties: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (key, value) in properties {
        Reflect::set(&object, &JsValue::from_str(key), value).unwrap();
    }
    object.into()
}

fn map(entries: &[(JsValue, JsValue)]) -> JsValue {
    let map = Map::new();
    for (key, value) in entries {
        map.set(key, value);
    }
    map.into()
}

fn big(text: &str) -> JsValue {
    BigInt::new(&JsValue::from_str(text)).unwrap().into()
}

/// Values JSON cannot hold but a posted message (or a script) can.
fn exotic() -> Vec<(&'static str, JsValue)> {
    vec![
        ("undefined", JsValue::UNDEFINED),
        ("BigInt 5", big("5")),
        ("BigInt -1", big("-1")),
        ("BigInt 2^64", big("18446744073709551616")),
        ("BigInt 2^70", big("1180591620717411303424")),
        ("Set", Set::new(&Array::of2(&1.into(), &2.into())).into()),
        ("Map", map(&[(1.into(), 2.into())])),
        ("bytes", Uint8Array::from(&b"type"[..]).into()),
        ("symbol", Symbol::for_("s").into()),
        ("function", js_sys::Function::new_no_args("return 1").into()),
        ("date", js_sys::Date::new_0().into()),
        ("array of undefined", Array::of1(&JsValue::UNDEFINED).into()),
    ]
}

#[wasm_bindgen_test]
fn posted_messages_of_any_kind_read_as_serde_wasm_bindgen_reads_them() {
    let tag = |name: &str| (JsValue::from_str("type"), JsValue::from_str(name));
    let bytes_key = JsValue::from(Uint8Array::from(&b"type"[..]));
    let mut cases = vec![
        ("Map", map(&[tag("mute")])),
        ("Map, other key", map(&[tag("mute"), (1.into(), 2.into())])),
        (
            "Map, bytes key",
            map(&[(bytes_key.clone(), "close".into())]),
        ),
        (
            "Map, tag twice",
            map(&[tag("mute"), (bytes_key.clone(), "close".into())]),
        ),
        ("Map, no tag", map(&[(2.into(), "close".into())])),
        ("Set", Set::new(&Array::of1(&"mute".into())).into()),
        ("array of one", Array::of1(&"unmute".into()).into()),
        ("empty array", Array::new().into()),
        ("tag undefined", object(&[("type", JsValue::UNDEFINED)])),
        ("tag bytes", object(&[("type", bytes_key.clone())])),
    ];
    for (what, value) in exotic() {
        cases.push((what, value.clone()));
        cases.push((
            what,
            object(&[("type", "mute".into()), ("x", value.clone())]),
        ));
        cases.push((what, map(&[tag("close"), (value.clone(), 1.into())])));
        cases.push((what, Array::of2(&"close".into(), &value).into()));
    }
    let mut accepted = 0;
    for (what, value) in &cases {
        accepted += usize::from(same_read::<ParentMessage>(value, what).is_some());
    }
    assert!(
        accepted > 0 && accepted < cases.len(),
        "{accepted} of {}",
        cases.len()
    );
}

#[wasm_bindgen_test]
fn fields_of_any_kind_read_as_serde_wasm_bindgen_reads_them() {
    let ack = |sale_id: JsValue, revealed: JsValue| {
        object(&[
            ("sale_id", sale_id),
            ("revealed", revealed),
            ("complete", true.into()),
        ])
    };
    let config = serde_json::to_value(fixtures::config(&block().public_key_hex())).unwrap();
    let config = js_sys::JSON::parse(&config.to_string()).unwrap();
    let with = |field: &str, value: &JsValue| {
        let copy = Object::assign(&Object::new(), config.unchecked_ref());
        Reflect::set(&copy, &JsValue::from_str(field), value).unwrap();
        JsValue::from(copy)
    };
    let pairs = Array::of1(&Array::of2(&"100".into(), &5.into()));
    let mut accepted = 0;
    for (what, value) in exotic() {
        let value = if what == "array of undefined" {
            // serde-wasm-bindgen lets the TypeError of `undefined[0]` escape
            // when it reads this as a map: checked below instead.
            Array::of1(&Array::of1(&JsValue::UNDEFINED)).into()
        } else {
            value
        };
        accepted +=
            usize::from(same_read::<RevealAck>(&ack(value.clone(), 1.into()), what).is_some());
        accepted +=
            usize::from(same_read::<RevealAck>(&ack(7.into(), value.clone()), what).is_some());
        for field in [
            "stakes_cents",
            "max_win_cents",
            "portal_origins",
            "demo",
            "odds",
        ] {
            accepted += usize::from(same_read::<Config>(&with(field, &value), what).is_some());
        }
        let session_protection = Object::assign(
            &Object::new(),
            js_sys::JSON::parse(&protection().to_string())
                .unwrap()
                .unchecked_ref(),
        );
        Reflect::set(&session_protection, &"excluded_until_ms".into(), &value).unwrap();
        accepted += usize::from(same_read::<Protection>(&session_protection, what).is_some());
    }
    for (what, value) in [
        ("pairs", pairs.into()),
        (
            "Map",
            map(&[("100".into(), 5.into()), ("50".into(), 2.into())]),
        ),
        (
            "Set of pairs",
            Set::new(&Array::of1(&Array::of2(&"1".into(), &2.into()))).into(),
        ),
        (
            "repeated key",
            Array::of2(
                &Array::of2(&"1".into(), &2.into()),
                &Array::of2(&"1".into(), &3.into()),
            )
            .into(),
        ),
    ] {
        accepted +=
            usize::from(same_read::<Config>(&with("max_win_cents", &value), what).is_some());
    }
    accepted += usize::from(
        same_read::<Config>(
            &with(
                "stakes_cents",
                &Set::new(&Array::of2(&50.into(), &100.into())).into(),
            ),
            "a Set of stakes",
        )
        .is_some(),
    );
    assert!(accepted > 10, "{accepted}");
    for item in [JsValue::UNDEFINED, JsValue::NULL] {
        let items = Array::of1(&item);
        assert!(Config::from_js(&with("max_win_cents", &items.into())).is_err());
    }
}

#[wasm_bindgen_test]
fn requests_and_messages_are_written_as_serde_wasm_bindgen_writes_them() {
    let requests = [
        json!({"stake_cents": 100, "idempotency_key": "k-1", "client_nonce": "00112233445566778899aabbccddeeff"}),
        json!({"stake_cents": 100, "idempotency_key": "k-1"}),
    ];
    for request in requests {
        assert!(same_writing_of_variants::<BuyRequest>(&request) > 0);
    }
    assert!(same_writing_of_variants::<RevealRequest>(&json!({"revealed": 3})) > 0);
    let limits = json!({"weekly_stake_limit_cents": 5000, "weekly_loss_limit_cents": null});
    assert!(same_writing_of_variants::<LimitsRequest>(&limits) > 0);
    assert!(same_writing_of_variants::<ExclusionRequest>(&json!({"days": 7})) > 0);
    assert!(same_writing_of_variants::<ExclusionRequest>(&json!({"days": null})) > 0);
    assert!(same_writing_of_variants::<RealityCheckRequest>(&json!({"minutes": 30})) > 0);
    let code = json!({"code": "c\u{e9}\n\"x"});
    assert!(same_writing_of_variants::<LaunchCodeRequest>(&code) > 0);
    for message in [
        json!({"type": "balance", "balance_cents": 4900}),
        json!({"type": "round_ended", "sale_id": 3, "prize_cents": 200, "verified": true}),
        json!({"type": "error", "code": "X"}),
    ] {
        assert!(same_writing_of_variants::<PageMessage>(&message) > 0);
    }
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
        let mut commitment = block().commitment;
        commitment.commitment.block = beyond;
        let book = [commitment];
        assert_eq!(same_writing(&book[..]), beyond < (1u64 << 53));
    }
}
