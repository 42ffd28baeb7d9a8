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
    /// Answers 409 as if it held this transaction id with another body.
    Conflict,
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
    /// The body first seen with each transaction id: another body under
    /// the same id is answered 409, as the contract says.
    bodies: HashMap<String, Bytes>,
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
    /// Credits with these transaction ids never answer.
    hung_credits: Mutex<HashSet<String>>,
    /// Debits, credits and rollbacks answered 500 (nothing applied), per
    /// thousand calls, drawn from a fixed sequence: the same run each time.
    fault_per_mille: std::sync::atomic::AtomicU64,
    calls_seen: std::sync::atomic::AtomicU64,
}

/// Whether this call is one of the faults (`Stub::fault_rate`).
fn faulty(state: &StubState) -> bool {
    use std::sync::atomic::Ordering;
    let per_mille = state.fault_per_mille.load(Ordering::SeqCst);
    if per_mille == 0 {
        return false;
    }
    // splitmix64 of the call's number: evenly spread, reproducible.
    let mut z = state
        .calls_seen
        .fetch_add(1, Ordering::SeqCst)
        .wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) % 1000 < per_mille
}

pub struct Stub {
    pub url: String,
    pub state: Arc<StubState>,
}

impl Stub {
    /// `late_by`: how late `AnswerLate` answers.
    pub async fn start(late_by: std::time::Duration) -> Stub {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/wallet", listener.local_addr().unwrap());
        let (app, state) = Stub::app(late_by);
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Stub { url, state }
    }

    /// The same wallet behind TLS with `tls`'s certificate, at
    /// `https://localhost:PORT/wallet`.
    pub async fn start_tls(late_by: std::time::Duration, tls: rustls::ServerConfig) -> Stub {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!(
            "https://localhost:{}/wallet",
            listener.local_addr().unwrap().port()
        );
        let (app, state) = Stub::app(late_by);
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
        tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let (acceptor, app) = (acceptor.clone(), app.clone());
                tokio::spawn(async move {
                    // A client that refuses the certificate ends the handshake.
                    let Ok(stream) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service = hyper_util::service::TowerToHyperService::new(app);
                    let _ = hyper_util::server::conn::auto::Builder::new(
                        hyper_util::rt::TokioExecutor::new(),
                    )
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
                });
            }
        });
        Stub { url, state }
    }

    fn app(late_by: std::time::Duration) -> (Router, Arc<StubState>) {
        let state = Arc::new(StubState {
            ledger: Mutex::default(),
            debit_mode: Mutex::new(DebitMode::Accept),
            settle_mode: Mutex::new(SettleMode::Accept),
            fault_per_mille: Default::default(),
            calls_seen: Default::default(),
            late: Notify::new(),
            late_done: Notify::new(),
            calls: Mutex::default(),
            bad_signatures: Mutex::new(0),
            late_by,
            balance_down: Mutex::new(false),
            hung_credits: Mutex::default(),
        });
        let app = Router::new()
            .route("/wallet/balance", post(balance))
            .route("/wallet/debit", post(debit))
            .route("/wallet/credit", post(credit))
            .route("/wallet/rollback", post(rollback))
            .with_state(Arc::clone(&state));
        (app, state)
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

    /// From now on, `per_mille` of the debits, credits and rollbacks fail
    /// with a 500 and apply nothing (0: none).
    pub fn fault_rate(&self, per_mille: u64) {
        self.state
            .fault_per_mille
            .store(per_mille, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn settle_mode(&self, mode: SettleMode) {
        *self.state.settle_mode.lock().unwrap() = mode;
    }

    /// The credit `transaction_id` will never be answered.
    pub fn hang_credit(&self, transaction_id: &str) {
        self.state
            .hung_credits
            .lock()
            .unwrap()
            .insert(transaction_id.to_owned());
    }

    /// Records `transaction_id` as already seen with another body, so the
    /// game's call under that id is answered 409.
    pub fn plant_conflict(&self, transaction_id: &str) {
        self.state.ledger.lock().unwrap().bodies.insert(
            transaction_id.to_owned(),
            Bytes::from_static(b"{\"another\":\"body\"}"),
        );
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

/// Whether `id` was first seen with another body (then the answer is 409
/// and nothing moves).
fn conflicts(state: &StubState, id: &str, body: &Bytes) -> bool {
    let mut ledger = state.ledger.lock().unwrap();
    let first = ledger
        .bodies
        .entry(id.to_owned())
        .or_insert_with(|| body.clone());
    first != body
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
    if faulty(&state) {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    let mode = *state.debit_mode.lock().unwrap();
    if mode == DebitMode::Conflict || conflicts(&state, &call.transaction_id, &body) {
        return StatusCode::CONFLICT.into_response();
    }
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
        DebitMode::Conflict => unreachable!("answered above"),
    }
}

async fn credit(State(state): State<Arc<StubState>>, headers: HeaderMap, body: Bytes) -> Response {
    if !signed(&state, &headers, &body) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let call: CreditCall = serde_json::from_slice(&body).unwrap();
    record(&state, "credit", &call.transaction_id);
    if faulty(&state) {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    if state
        .hung_credits
        .lock()
        .unwrap()
        .contains(&call.transaction_id)
    {
        std::future::pending::<()>().await;
    }
    if *state.settle_mode.lock().unwrap() == SettleMode::Error500 {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    if conflicts(&state, &call.transaction_id, &body) {
        return StatusCode::CONFLICT.into_response();
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
    if faulty(&state) {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    if *state.settle_mode.lock().unwrap() == SettleMode::Error500 {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    if conflicts(&state, &call.transaction_id, &body) {
        return StatusCode::CONFLICT.into_response();
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
