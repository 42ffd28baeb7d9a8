//! An operator's seamless wallet for the CLI's tests (docs/OPERATOR.md,
//! "Seamless wallet"): each call applied once per transaction id, a
//! rollback undoing its debit. It does not check the calls' signatures:
//! the server's own tests do.

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use eldorado_api::seamless::{
    BalanceAnswer, BalanceCall, CreditCall, DebitCall, DebitStatus, RollbackCall, WalletAnswer,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Ledger {
    balances: HashMap<String, u64>,
    answers: HashMap<String, WalletAnswer>,
    /// Amounts credited, by transaction id.
    credits: HashMap<String, u64>,
}

type Shared = Arc<Mutex<Ledger>>;

pub struct Wallet {
    pub url: String,
    ledger: Shared,
    _runtime: tokio::runtime::Runtime,
}

impl Wallet {
    pub fn start() -> Wallet {
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        let ledger = Shared::default();
        let app = Router::new()
            .route("/debit", post(debit))
            .route("/credit", post(credit))
            .route("/rollback", post(rollback))
            .route("/balance", post(balance))
            .with_state(Arc::clone(&ledger));
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("a port");
        let url = format!("http://{}", listener.local_addr().unwrap());
        runtime.spawn(async move { axum::serve(listener, app).await });
        Wallet {
            url,
            ledger,
            _runtime: runtime,
        }
    }

    pub fn set_balance(&self, player: &str, cents: u64) {
        let mut ledger = self.ledger.lock().unwrap();
        ledger.balances.insert(player.to_owned(), cents);
    }

    pub fn balance(&self, player: &str) -> u64 {
        let ledger = self.ledger.lock().unwrap();
        ledger.balances.get(player).copied().unwrap_or(0)
    }

    /// Every credit applied: transaction id and amount.
    pub fn credits(&self) -> HashMap<String, u64> {
        self.ledger.lock().unwrap().credits.clone()
    }
}

fn ok(balance_cents: u64) -> WalletAnswer {
    WalletAnswer {
        status: DebitStatus::Ok,
        balance_cents,
    }
}

async fn debit(State(ledger): State<Shared>, Json(call): Json<DebitCall>) -> Json<WalletAnswer> {
    let mut ledger = ledger.lock().unwrap();
    if let Some(answer) = ledger.answers.get(&call.transaction_id) {
        return Json(answer.clone());
    }
    let balance = ledger.balances.get(&call.player_id).copied().unwrap_or(0);
    let answer = match balance.checked_sub(call.amount_cents) {
        Some(after) => {
            ledger.balances.insert(call.player_id.clone(), after);
            ok(after)
        }
        None => WalletAnswer {
            status: DebitStatus::InsufficientFunds,
            balance_cents: balance,
        },
    };
    ledger.answers.insert(call.transaction_id, answer.clone());
    Json(answer)
}

async fn credit(State(ledger): State<Shared>, Json(call): Json<CreditCall>) -> Json<WalletAnswer> {
    let mut ledger = ledger.lock().unwrap();
    if let Some(answer) = ledger.answers.get(&call.transaction_id) {
        return Json(answer.clone());
    }
    let balance = ledger.balances.get(&call.player_id).copied().unwrap_or(0) + call.amount_cents;
    ledger.balances.insert(call.player_id.clone(), balance);
    ledger
        .credits
        .insert(call.transaction_id.clone(), call.amount_cents);
    ledger.answers.insert(call.transaction_id, ok(balance));
    Json(ok(balance))
}

async fn rollback(
    State(ledger): State<Shared>,
    Json(call): Json<RollbackCall>,
) -> Json<WalletAnswer> {
    let mut ledger = ledger.lock().unwrap();
    if let Some(answer) = ledger.answers.get(&call.transaction_id) {
        return Json(answer.clone());
    }
    let debited = ledger
        .answers
        .get(&call.original_transaction_id)
        .is_some_and(|a| a.status == DebitStatus::Ok);
    let mut balance = ledger.balances.get(&call.player_id).copied().unwrap_or(0);
    if debited {
        balance += call.amount_cents;
        ledger.balances.insert(call.player_id.clone(), balance);
    }
    ledger.answers.insert(call.transaction_id, ok(balance));
    Json(ok(balance))
}

async fn balance(
    State(ledger): State<Shared>,
    Json(call): Json<BalanceCall>,
) -> Json<BalanceAnswer> {
    let ledger = ledger.lock().unwrap();
    Json(BalanceAnswer {
        balance_cents: ledger.balances.get(&call.player_id).copied().unwrap_or(0),
    })
}
