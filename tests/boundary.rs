//! The page's boundary with JavaScript values (`src/js_value.rs`, through
//! serde-wasm-bindgen), in the browser: every request, portal message and
//! saved commitment book is written as the very JSON the server's
//! serde_json writes; every answer the server sends is read back as the
//! value it sent; an answer of another shape, however malformed, is an
//! error (never a panic, never a value read in part).

use eldorado_engine::commit::SignedCommitment;
use eldorado_engine::ClientNonce;
use eldorado_web::api::{
    BlockInfo, BlockList, BlockStatus, BuyRequest, Config, ErrorBody, ExclusionRequest,
    HistoryPage, LaunchCodeRequest, LimitsRequest, NetError, PageMessage, ParentMessage,
    Protection, RealityCheckRequest, RevealAck, RevealRequest, SaleResponse, Session,
};
use eldorado_web::fixtures::{self, FixtureBlock};
use eldorado_web::js_value;
use eldorado_web::net::read_config;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::fmt::Debug;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn parse(json: &Value) -> JsValue {
    js_sys::JSON::parse(&json.to_string()).unwrap()
}

/// Written by the page as serde_json writes it (same keys, same order).
fn written_as_the_server_would<T: Serialize + ?Sized>(value: &T) {
    assert_eq!(
        js_value::to_json(value).unwrap(),
        serde_json::to_string(value).unwrap()
    );
    let written = js_value::write(value).unwrap();
    assert_eq!(
        String::from(js_sys::JSON::stringify(&written).unwrap()),
        serde_json::to_string(value).unwrap()
    );
}

/// Read by the page as the value the server wrote.
fn read_back<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: &T) {
    let json = serde_json::to_value(value).unwrap();
    assert_eq!(&js_value::read::<T>(&parse(&json)).unwrap(), value);
}

fn block() -> FixtureBlock {
    FixtureBlock::new(1, 100, &[fixtures::EXTRA_1_WIN_2])
}

#[wasm_bindgen_test]
fn requests_messages_and_the_book_are_written_as_json() {
    written_as_the_server_would(&BuyRequest {
        stake_cents: 100,
        idempotency_key: "k-1".to_owned(),
        client_nonce: Some(ClientNonce([9; 16])),
    });
    written_as_the_server_would(&BuyRequest {
        stake_cents: 200,
        idempotency_key: "k-2".to_owned(),
        client_nonce: None,
    });
    written_as_the_server_would(&LaunchCodeRequest {
        code: "ab".repeat(32),
    });
    written_as_the_server_would(&RevealRequest { revealed: 2 });
    written_as_the_server_would(&LimitsRequest {
        weekly_stake_limit_cents: Some(2050),
        weekly_loss_limit_cents: None,
    });
    written_as_the_server_would(&ExclusionRequest { days: None });
    written_as_the_server_would(&ExclusionRequest { days: Some(7) });
    written_as_the_server_would(&RealityCheckRequest { minutes: 30 });
    for message in [
        PageMessage::Ready,
        PageMessage::Balance {
            balance_cents: 5000,
        },
        PageMessage::RoundStarted {
            sale_id: 1,
            stake_cents: 100,
        },
        PageMessage::RoundEnded {
            sale_id: 1,
            prize_cents: 200,
            verified: true,
        },
        PageMessage::InsufficientFunds,
        PageMessage::Error {
            code: "SOLD_OUT".to_owned(),
        },
        PageMessage::Resize { height: 640 },
    ] {
        written_as_the_server_would(&message);
    }
    let book: Vec<SignedCommitment> = vec![block().commitment, block().commitment];
    written_as_the_server_would(&book);
    // The messages reach the portal as plain objects, the tag first.
    assert_eq!(
        js_value::to_json(&PageMessage::Resize { height: 640 }).unwrap(),
        r#"{"type":"resize","height":640}"#
    );
}

#[wasm_bindgen_test]
fn an_integer_javascript_cannot_hold_is_refused_not_rounded() {
    let too_big = BuyRequest {
        stake_cents: (1 << 53) + 1,
        idempotency_key: "k".to_owned(),
        client_nonce: None,
    };
    assert!(js_value::write(&too_big).is_err());
    assert_eq!(eldorado_web::net::to_json(&too_big), Err(NetError::Decode));
}

#[wasm_bindgen_test]
fn every_answer_is_read_as_the_server_wrote_it() {
    let block = block();
    let sale = block.response(0, 1, 5000);
    read_back(&sale);
    let config = fixtures::config(&block.public_key_hex());
    read_back(&config);
    let config_json = parse(&serde_json::to_value(&config).unwrap());
    assert_eq!(read_config(&config_json), Ok(config));
    read_back(&Session {
        token: "t".to_owned(),
        player_id: fixtures::PLAYER.to_owned(),
        balance_cents: 5000,
        started_at_ms: 1_767_139_200_000,
        expires_at_ms: 1_767_225_600_000,
        money: eldorado_engine::Money::Real,
        unrevealed: Some(sale.clone()),
        lobby_url: Some("https://casino.example/lobby".to_owned()),
        protection: Protection {
            weekly_loss_limit_cents: Some(1000),
            excluded_until_ms: Some(1_767_225_600_000),
            ..Protection::default()
        },
    });
    read_back(&BlockList {
        blocks: vec![BlockInfo {
            status: BlockStatus::SoldOut,
            log_index: None,
            sold: Some(400_000),
            commitment: block.commitment.clone(),
            remaining_by_rank: None,
        }],
    });
    read_back(&RevealAck {
        sale_id: 1,
        revealed: 2,
        complete: true,
    });
    read_back(&HistoryPage {
        items: Vec::new(),
        next_before: Some(7),
    });
    let error: ErrorBody = serde_json::from_value(json!({"error": {
        "code": "LIMIT_REACHED", "message": "weekly stake limit reached",
        "limit": {"kind": "weekly_stake", "limit_cents": 1000, "used_cents": 950,
                  "frees_at_ms": 1_767_225_600_000u64}}}))
    .unwrap();
    read_back(&error);
    // A portal's message, with anything else beside its tag.
    assert_eq!(
        js_value::read::<ParentMessage>(&parse(&json!({"type": "refresh_balance", "n": [1]}))).ok(),
        Some(ParentMessage::RefreshBalance)
    );
}

/// `sale` with the field at `path` replaced by `by` (`None`: removed).
fn changed(sale: &Value, path: &[&str], by: Option<Value>) -> Value {
    let mut out = sale.clone();
    let (last, parents) = path.split_last().unwrap();
    let mut at = &mut out;
    for key in parents {
        at = &mut at[*key];
    }
    let object = at.as_object_mut().unwrap();
    match by {
        Some(value) => object.insert((*last).to_owned(), value),
        None => object.remove(*last),
    };
    out
}

#[wasm_bindgen_test]
fn a_malformed_answer_is_an_error() {
    let sale = serde_json::to_value(block().response(0, 1, 5000)).unwrap();
    let refused = |json: Value| {
        assert!(
            js_value::read::<SaleResponse>(&parse(&json)).is_err(),
            "read: {json}"
        );
    };
    refused(changed(&sale, &["balance_after_cents"], None));
    refused(changed(&sale, &["balance_after_cents"], Some(json!(1.5))));
    refused(changed(&sale, &["balance_after_cents"], Some(json!(-1))));
    refused(changed(
        &sale,
        &["balance_after_cents"],
        Some(json!("5100")),
    ));
    refused(changed(
        &sale,
        &["balance_after_cents"],
        Some(json!(9_007_199_254_740_993u64)),
    ));
    refused(changed(&sale, &["revealed"], Some(json!(256))));
    refused(changed(&sale, &["sale", "signature"], Some(json!("zz"))));
    refused(changed(
        &sale,
        &["sale", "ticket", "grids"],
        Some(json!(["XXXXX/XXXXX/XXXXX"])),
    ));
    refused(changed(
        &sale,
        &["commitment", "money"],
        Some(json!("gold")),
    ));
    refused(changed(&sale, &["sale"], Some(json!([]))));
    refused(json!(null));
    refused(json!("sale"));
    refused(json!([sale]));

    // The configuration's one map, however it is broken.
    let config = serde_json::to_value(fixtures::config(&block().public_key_hex())).unwrap();
    for amounts in [
        json!([null]),
        json!([[null, 1]]),
        json!([]),
        json!(7),
        json!({"100": -1}),
    ] {
        let broken = changed(&config, &["max_win_cents"], Some(amounts.clone()));
        assert_eq!(
            read_config(&parse(&broken)),
            Err(NetError::Decode),
            "{amounts}"
        );
    }
    // A portal message that is not one of the four.
    for message in [
        json!({"type": "credit"}),
        json!("close"),
        json!({}),
        json!(null),
    ] {
        assert!(
            js_value::read::<ParentMessage>(&parse(&message)).is_err(),
            "{message}"
        );
    }
    assert!(js_value::read::<Config>(&JsValue::from(js_sys::Map::new())).is_err());
}

/// An answer as the server would send it, already on its way.
fn early(
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
    answer: (u16, &Value),
) -> JsValue {
    let init = web_sys::ResponseInit::new();
    init.set_status(answer.0);
    let response =
        web_sys::Response::new_with_opt_str_and_init(Some(&answer.1.to_string()), &init).unwrap();
    let request = serde_json::json!({"method": method, "path": path, "token": token, "body": body});
    let request = parse(&request);
    let reply = js_sys::Promise::resolve(&response);
    js_sys::Reflect::set(&request, &JsValue::from_str("reply"), &reply).unwrap();
    request
}

/// `www/main.js` sends the game's first requests before the module has
/// arrived. The game takes such an answer, once, for the same exchange
/// only (method, path, token and body); anything else goes to the network,
/// which here (the test runner's server) has no API at all: an answer the
/// game reads as the server's can only have come from the early ones.
#[wasm_bindgen_test]
async fn an_early_answer_is_taken_once_by_the_same_exchange_only() {
    use eldorado_web::net::{Backend, HttpBackend};
    let block = block();
    let config = fixtures::config(&block.public_key_hex());
    let session = Session {
        token: "t-1".to_owned(),
        player_id: fixtures::PLAYER.to_owned(),
        balance_cents: 5000,
        started_at_ms: 1_767_139_200_000,
        expires_at_ms: 1_767_225_600_000,
        money: eldorado_engine::Money::Play,
        unrevealed: None,
        lobby_url: None,
        protection: Protection::default(),
    };
    let session_json = serde_json::to_value(&session).unwrap();
    let gone = json!({"error": {"code": "UNAUTHORIZED", "message": "no such session"}});
    let requests = js_sys::Array::of5(
        &early(
            "GET",
            "/api/config",
            None,
            None,
            (200, &serde_json::to_value(&config).unwrap()),
        ),
        &early(
            "POST",
            "/api/demo/players",
            None,
            Some("{}"),
            (201, &session_json),
        ),
        &early(
            "GET",
            "/api/session",
            Some("t-1"),
            None,
            (200, &session_json),
        ),
        &early("GET", "/api/session", Some("old"), None, (401, &gone)),
        // Not a request: ignored.
        &parse(&json!({"method": "GET", "path": "/api/blocks"})),
    );
    let backend = HttpBackend::with_early(&requests);

    assert_eq!(backend.config().await, Ok(config));
    assert_eq!(backend.demo_player().await, Ok(session.clone()));
    // Another token is another exchange: it goes out, the early one stays.
    assert!(matches!(
        backend.session("t-2").await,
        Err(NetError::Api { status: 404, .. })
    ));
    assert_eq!(backend.session("t-1").await, Ok(session));
    // Each early answer is read once; asking again goes out.
    assert!(matches!(
        backend.session("t-1").await,
        Err(NetError::Api { status: 404, .. })
    ));
    assert!(matches!(
        backend.config().await,
        Err(NetError::Api { status: 404, .. })
    ));
    // An early refusal is read as the server's refusal.
    assert_eq!(
        backend.session("old").await,
        Err(NetError::Api {
            status: 401,
            code: "UNAUTHORIZED".to_owned()
        })
    );
    assert!(backend.blocks().await.is_err());
}
