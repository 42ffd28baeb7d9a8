//! An operator's seamless wallet for the tests: an axum server in the test
//! process that keeps balances and answers the calls of
//! `eldorado_api::seamless` as the contract says (idempotent by transaction
//! id, a rollback of an unknown debit refuses that debit later), checks
//! every signature, and misbehaves on demand.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use eldorado_api::seamless::{
    verify, BalanceAnswer, BalanceCall, CreditCall, DebitCall, DebitStatus, RollbackCall,
    WalletAnswer, SIGNATURE_HEADER,
};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

pub const SECRET: &[u8] = b"stub-shared-secret";

/// What the stub does with the next debits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebitMode {
    /// As the contract says.
    Accept,
    /// Answers `refused` without looking at the balance.
    Refuse,
    /// Never answers, and never applies the debit.
    Hang,
    /// Holds the debit back: it reaches the wallet only once `deliver_late`
    /// is called (long after the game gave up), and is then applied as the
    /// contract says.
    ArriveLate,
    /// Applies the debit at once but answers only after `late_by`, well
    /// past the game's timeout.
    AnswerLate,
    /// Applies the debit, then drops the connection before any answer (a
    /// crash between the debit and its answer).
    DropAfterApply,
    /// Answers HTTP 500 without applying anything.
    Error500,
}

/// What the stub does with credits and rollbacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettleMode {
    Accept,
    Error500,
}

#[derive(Default)]
struct Ledger {
    balances: HashMap<String, u64>,
    /// Every answer given, by transaction id: a repeat gets the same one.
    answers: HashMap<String, WalletAnswer>,
    /// Applied debits: (player, amount).
    debits: HashMap<String, (String, u64)>,
    /// Debits rolled back before they arrived: refused when they do.
    rolled_back: HashSet<String>,
}

pub struct StubState {
    ledger: Mutex<Ledger>,
    debit_mode: Mutex<DebitMode>,
    settle_mode: Mutex<SettleMode>,
    late: Notify,
    late_done: Notify,
    /// Every call with a good signature: (route, transaction id or player).
    calls: Mutex<Vec<(String, String)>>,
    bad_signatures: Mutex<u64>,
    late_by: std::time::Duration,
    /// Balance calls answer 500.
    balance_down: Mutex<bool>,
}

pub struct Stub {
    pub url: String,
    pub state: Arc<StubState>,
}

impl Stub {
    /// `late_by`: how late `AnswerLate` answers.
    pub async fn start(late_by: std::time::Duration) -> Stub {
        let state = Arc::new(StubState {
            ledger: Mutex::default(),
            debit_mode: Mutex::new(DebitMode::Accept),
            settle_mode: Mutex::new(SettleMode::Accept),
            late: Notify::new(),
            late_done: Notify::new(),
            calls: Mutex::default(),
            bad_signatures: Mutex::new(0),
            late_by,
            balance_down: Mutex::new(false),
        });
        let app = Router::new()
            .route("/wallet/balance", post(balance))
            .route("/wallet/debit", post(debit))
            .route("/wallet/credit", post(credit))
            .route("/wallet/rollback", post(rollback))
            .with_state(Arc::clone(&state));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/wallet", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Stub { url, state }
    }

    pub fn set_balance(&self, player: &str, cents: u64) {
        self.state
            .ledger
            .lock()
            .unwrap()
            .balances
            .insert(player.to_owned(), cents);
    }

    pub fn balance(&self, player: &str) -> u64 {
        self.state
            .ledger
            .lock()
            .unwrap()
            .balances
            .get(player)
            .copied()
            .unwrap_or(0)
    }

    pub fn debit_mode(&self, mode: DebitMode) {
        *self.state.debit_mode.lock().unwrap() = mode;
    }

    pub fn balance_down(&self, down: bool) {
        *self.state.balance_down.lock().unwrap() = down;
    }

    pub fn settle_mode(&self, mode: SettleMode) {
        *self.state.settle_mode.lock().unwrap() = mode;
    }

    /// Calls with a good signature to `route`, in order (transaction ids).
    pub fn calls(&self, route: &str) -> Vec<String> {
        self.state
            .calls
            .lock()
            .unwrap()
            .iter()
            .filter(|(r, _)| r == route)
            .map(|(_, id)| id.clone())
            .collect()
    }

    pub fn bad_signatures(&self) -> u64 {
        *self.state.bad_signatures.lock().unwrap()
    }

    /// Whether the debit was applied and stands (not rolled back).
    pub fn debit_stands(&self, transaction_id: &str) -> bool {
        self.state
            .ledger
            .lock()
            .unwrap()
            .debits
            .contains_key(transaction_id)
    }

    /// Lets the held-back debit reach the wallet and waits until it has.
    pub async fn deliver_late(&self) {
        let done = self.state.late_done.notified();
        self.state.late.notify_one();
        done.await;
    }
}

fn signed(state: &StubState, headers: &HeaderMap, body: &[u8]) -> bool {
    let ok = headers
        .get(SIGNATURE_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| verify(SECRET, body, v));
    if !ok {
        *state.bad_signatures.lock().unwrap() += 1;
    }
    ok
}

fn record(state: &StubState, route: &str, id: &str) {
    state
        .calls
        .lock()
        .unwrap()
        .push((route.to_owned(), id.to_owned()));
}

async fn balance(State(state): State<Arc<StubState>>, headers: HeaderMap, body: Bytes) -> Response {
    if !signed(&state, &headers, &body) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let call: BalanceCall = serde_json::from_slice(&body).unwrap();
    record(&state, "balance", &call.player_id);
    if *state.balance_down.lock().unwrap() {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    let balance_cents = state
        .ledger
        .lock()
        .unwrap()
        .balances
        .get(&call.player_id)
        .copied()
        .unwrap_or(0);
    Json(BalanceAnswer { balance_cents }).into_response()
}

fn apply_debit(state: &StubState, call: &DebitCall) -> WalletAnswer {
    let mut ledger = state.ledger.lock().unwrap();
    if let Some(answer) = ledger.answers.get(&call.transaction_id) {
        return answer.clone();
    }
    let balance = ledger.balances.get(&call.player_id).copied().unwrap_or(0);
    let answer = if ledger.rolled_back.contains(&call.transaction_id) {
        WalletAnswer {
            status: DebitStatus::Refused,
            balance_cents: balance,
        }
    } else if balance < call.amount_cents {
        WalletAnswer {
            status: DebitStatus::InsufficientFunds,
            balance_cents: balance,
        }
    } else {
        let after = balance - call.amount_cents;
        ledger.balances.insert(call.player_id.clone(), after);
        ledger.debits.insert(
            call.transaction_id.clone(),
            (call.player_id.clone(), call.amount_cents),
        );
        WalletAnswer {
            status: DebitStatus::Ok,
            balance_cents: after,
        }
    };
    ledger
        .answers
        .insert(call.transaction_id.clone(), answer.clone());
    answer
}

async fn debit(State(state): State<Arc<StubState>>, headers: HeaderMap, body: Bytes) -> Response {
    if !signed(&state, &headers, &body) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let call: DebitCall = serde_json::from_slice(&body).unwrap();
    record(&state, "debit", &call.transaction_id);
    let mode = *state.debit_mode.lock().unwrap();
    match mode {
        DebitMode::Accept => Json(apply_debit(&state, &call)).into_response(),
        DebitMode::Refuse => {
            let balance_cents = state
                .ledger
                .lock()
                .unwrap()
                .balances
                .get(&call.player_id)
                .copied()
                .unwrap_or(0);
            Json(WalletAnswer {
                status: DebitStatus::Refused,
                balance_cents,
            })
            .into_response()
        }
        DebitMode::Hang => std::future::pending().await,
        DebitMode::AnswerLate => {
            let answer = apply_debit(&state, &call);
            tokio::time::sleep(state.late_by).await;
            Json(answer).into_response()
        }
        DebitMode::ArriveLate => {
            // Outlives the request the game gave up on.
            let state = Arc::clone(&state);
            tokio::spawn(async move {
                state.late.notified().await;
                apply_debit(&state, &call);
                state.late_done.notify_one();
            });
            std::future::pending().await
        }
        DebitMode::DropAfterApply => {
            apply_debit(&state, &call);
            let broken = tokio_stream::once(Err::<Bytes, _>(std::io::Error::other("crash")));
            Response::builder()
                .status(StatusCode::OK)
                .header("content-type", "application/json")
                .body(Body::from_stream(broken))
                .unwrap()
        }
        DebitMode::Error500 => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

async fn credit(State(state): State<Arc<StubState>>, headers: HeaderMap, body: Bytes) -> Response {
    if !signed(&state, &headers, &body) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let call: CreditCall = serde_json::from_slice(&body).unwrap();
    record(&state, "credit", &call.transaction_id);
    if *state.settle_mode.lock().unwrap() == SettleMode::Error500 {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    let mut ledger = state.ledger.lock().unwrap();
    if let Some(answer) = ledger.answers.get(&call.transaction_id) {
        return Json(answer.clone()).into_response();
    }
    let balance = ledger.balances.entry(call.player_id.clone()).or_insert(0);
    *balance += call.amount_cents;
    let answer = WalletAnswer {
        status: DebitStatus::Ok,
        balance_cents: *balance,
    };
    ledger
        .answers
        .insert(call.transaction_id.clone(), answer.clone());
    Json(answer).into_response()
}

async fn rollback(
    State(state): State<Arc<StubState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !signed(&state, &headers, &body) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let call: RollbackCall = serde_json::from_slice(&body).unwrap();
    record(&state, "rollback", &call.transaction_id);
    if *state.settle_mode.lock().unwrap() == SettleMode::Error500 {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    let mut ledger = state.ledger.lock().unwrap();
    if let Some(answer) = ledger.answers.get(&call.transaction_id) {
        return Json(answer.clone()).into_response();
    }
    if let Some((player, amount)) = ledger.debits.remove(&call.original_transaction_id) {
        *ledger.balances.entry(player).or_insert(0) += amount;
    } else {
        ledger
            .rolled_back
            .insert(call.original_transaction_id.clone());
    }
    let balance_cents = ledger.balances.get(&call.player_id).copied().unwrap_or(0);
    let answer = WalletAnswer {
        status: DebitStatus::Ok,
        balance_cents,
    };
    ledger
        .answers
        .insert(call.transaction_id.clone(), answer.clone());
    Json(answer).into_response()
}
