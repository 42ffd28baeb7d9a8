//! The seamless wallet API the game server calls (docs/OPERATOR.md,
//! `GET /api/wallet-openapi.json` of the game server): `POST
//! /wallet/{balance,debit,credit,rollback}`, each body signed with
//! HMAC-SHA-256 under the shared secret.
//!
//! Every transaction id is answered once and for all: its answer is stored
//! in the same transaction as the movement, and a retry gets it again
//! without moving money twice.

use crate::db::{self, move_money};
use crate::error::AppError;
use crate::App;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use axum::{Json, Router};
use eldorado_api::seamless::{
    self, BalanceAnswer, BalanceCall, CreditCall, DebitCall, DebitStatus, RollbackCall,
    WalletAnswer,
};
use rusqlite::{params, Connection, OptionalExtension};
use serde::de::DeserializeOwned;

/// Largest amount one call may move: far above any stake or prize of the
/// game, small enough that no sum of them overflows.
const MAX_AMOUNT_CENTS: u64 = 1_000_000_000_000;

pub fn routes() -> Router<App> {
    Router::new()
        .route("/wallet/balance", post(balance))
        .route("/wallet/debit", post(debit))
        .route("/wallet/credit", post(credit))
        .route("/wallet/rollback", post(rollback))
}

/// Checks the signature of the exact body bytes, then parses them.
fn signed_call<T: DeserializeOwned>(
    app: &App,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<T, AppError> {
    let signature = headers
        .get(seamless::SIGNATURE_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !seamless::verify(&app.wallet_secret, body, signature) {
        tracing::warn!("wallet call with a missing or wrong signature refused");
        return Err(AppError::unauthorized(
            "missing or wrong X-Eldorado-Signature",
        ));
    }
    serde_json::from_slice(body).map_err(|e| AppError::bad_request(format!("bad body: {e}")))
}

async fn balance(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<BalanceAnswer>, AppError> {
    let call: BalanceCall = signed_call(&app, &headers, &body)?;
    let balance = app
        .db
        .write(move |tx| Ok::<_, AppError>(db::balance(tx, &call.player_id)?))
        .await?;
    match balance {
        Some(balance_cents) => Ok(Json(BalanceAnswer { balance_cents })),
        None => Err(AppError::not_found("unknown player")),
    }
}

async fn debit(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<WalletAnswer>, AppError> {
    let call: DebitCall = signed_call(&app, &headers, &body)?;
    let answer = app.db.write(move |tx| apply_debit(tx, &call)).await?;
    Ok(Json(answer))
}

async fn credit(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<WalletAnswer>, AppError> {
    let call: CreditCall = signed_call(&app, &headers, &body)?;
    let answer = app.db.write(move |tx| apply_credit(tx, &call)).await?;
    Ok(Json(answer))
}

async fn rollback(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<WalletAnswer>, AppError> {
    let call: RollbackCall = signed_call(&app, &headers, &body)?;
    let answer = app.db.write(move |tx| apply_rollback(tx, &call)).await?;
    Ok(Json(answer))
}

/// One wallet transaction as asked.
struct Asked<'a> {
    kind: &'static str,
    transaction_id: &'a str,
    round_id: &'a str,
    player_id: &'a str,
    amount_cents: u64,
    original_transaction_id: Option<&'a str>,
}

impl Asked<'_> {
    fn check(&self) -> Result<(), AppError> {
        let ids = [
            Some(self.transaction_id),
            Some(self.round_id),
            self.original_transaction_id,
        ];
        if !ids
            .into_iter()
            .flatten()
            .all(seamless::valid_transaction_id)
        {
            return Err(AppError::bad_request(
                "ids are 1 to 64 characters of [A-Za-z0-9_.:-]",
            ));
        }
        if self.player_id.is_empty() || self.player_id.len() > 64 {
            return Err(AppError::bad_request("player_id is 1 to 64 characters"));
        }
        if !(1..=MAX_AMOUNT_CENTS).contains(&self.amount_cents) {
            return Err(AppError::bad_request(format!(
                "amount_cents is 1 to {MAX_AMOUNT_CENTS}"
            )));
        }
        Ok(())
    }

    /// The answer already given to this transaction id, if any. The same id
    /// with another body is a caller's bug: 409, nothing moves.
    fn replay(&self, tx: &Connection) -> Result<Option<WalletAnswer>, AppError> {
        let stored = tx
            .query_row(
                "SELECT kind, round_id, player_id, amount_cents, original_transaction_id,
                        status, balance_cents
                 FROM wallet_transactions WHERE transaction_id = ?1",
                params![self.transaction_id],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, i64>(3)?,
                        row.get::<_, Option<String>>(4)?,
                        row.get::<_, String>(5)?,
                        row.get::<_, i64>(6)?,
                    ))
                },
            )
            .optional()?;
        let Some((kind, round, player, amount, original, status, balance)) = stored else {
            return Ok(None);
        };
        let same = kind == self.kind
            && round == self.round_id
            && player == self.player_id
            && db::cents(amount) == self.amount_cents
            && original.as_deref() == self.original_transaction_id;
        if !same {
            return Err(AppError::conflict(format!(
                "transaction {} was already used for another {kind}",
                self.transaction_id
            )));
        }
        Ok(Some(WalletAnswer {
            status: parse_status(&status)?,
            balance_cents: db::cents(balance),
        }))
    }

    /// Stores the answer, in the transaction that moved (or not) the money.
    fn record(
        &self,
        tx: &Connection,
        applied: bool,
        answer: WalletAnswer,
    ) -> Result<WalletAnswer, AppError> {
        tx.execute(
            "INSERT INTO wallet_transactions (transaction_id, kind, round_id, player_id,
                 amount_cents, original_transaction_id, applied, status, balance_cents, at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                self.transaction_id,
                self.kind,
                self.round_id,
                self.player_id,
                db::signed(self.amount_cents),
                self.original_transaction_id,
                applied,
                status_text(answer.status),
                db::signed(answer.balance_cents),
                db::now_ms(),
            ],
        )?;
        Ok(answer)
    }
}

fn status_text(status: DebitStatus) -> &'static str {
    match status {
        DebitStatus::Ok => "ok",
        DebitStatus::InsufficientFunds => "insufficient_funds",
        DebitStatus::Refused => "refused",
    }
}

fn parse_status(text: &str) -> Result<DebitStatus, AppError> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|e| AppError::internal(format!("stored status {text:?}: {e}")))
}

pub fn apply_debit(tx: &Connection, call: &DebitCall) -> Result<WalletAnswer, AppError> {
    let asked = Asked {
        kind: "debit",
        transaction_id: &call.transaction_id,
        round_id: &call.round_id,
        player_id: &call.player_id,
        amount_cents: call.amount_cents,
        original_transaction_id: None,
    };
    asked.check()?;
    if let Some(answer) = asked.replay(tx)? {
        return Ok(answer);
    }
    // A rollback that arrived first: this debit is late and must not move
    // money, since the game has already given the round up.
    let rolled_back: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM wallet_transactions
                        WHERE kind = 'rollback' AND original_transaction_id = ?1)",
        params![call.transaction_id],
        |row| row.get(0),
    )?;
    let (status, applied, balance_cents) = match db::balance(tx, &call.player_id)? {
        None => (DebitStatus::Refused, false, 0),
        Some(balance) if rolled_back => (DebitStatus::Refused, false, balance),
        Some(balance) if balance < call.amount_cents => {
            (DebitStatus::InsufficientFunds, false, balance)
        }
        Some(_) => {
            let after = move_money(
                tx,
                &call.player_id,
                "debit",
                -db::signed(call.amount_cents),
                Some((&call.transaction_id, &call.round_id)),
            )?;
            (DebitStatus::Ok, true, after)
        }
    };
    asked.record(
        tx,
        applied,
        WalletAnswer {
            status,
            balance_cents,
        },
    )
}

pub fn apply_credit(tx: &Connection, call: &CreditCall) -> Result<WalletAnswer, AppError> {
    let asked = Asked {
        kind: "credit",
        transaction_id: &call.transaction_id,
        round_id: &call.round_id,
        player_id: &call.player_id,
        amount_cents: call.amount_cents,
        original_transaction_id: None,
    };
    asked.check()?;
    if let Some(answer) = asked.replay(tx)? {
        return Ok(answer);
    }
    if db::balance(tx, &call.player_id)?.is_none() {
        return Err(AppError::not_found("unknown player"));
    }
    let balance_cents = move_money(
        tx,
        &call.player_id,
        "credit",
        db::signed(call.amount_cents),
        Some((&call.transaction_id, &call.round_id)),
    )?;
    asked.record(
        tx,
        true,
        WalletAnswer {
            status: DebitStatus::Ok,
            balance_cents,
        },
    )
}

pub fn apply_rollback(tx: &Connection, call: &RollbackCall) -> Result<WalletAnswer, AppError> {
    let asked = Asked {
        kind: "rollback",
        transaction_id: &call.transaction_id,
        round_id: &call.round_id,
        player_id: &call.player_id,
        amount_cents: call.amount_cents,
        original_transaction_id: Some(&call.original_transaction_id),
    };
    asked.check()?;
    if let Some(answer) = asked.replay(tx)? {
        return Ok(answer);
    }
    let original = tx
        .query_row(
            "SELECT player_id, amount_cents, applied FROM wallet_transactions
             WHERE transaction_id = ?1 AND kind = 'debit'",
            params![call.original_transaction_id],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, bool>(2)?,
                ))
            },
        )
        .optional()?;
    // Another rollback id for the same debit must not refund it twice.
    let already_refunded: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM wallet_transactions
                        WHERE kind = 'rollback' AND original_transaction_id = ?1 AND applied = 1)",
        params![call.original_transaction_id],
        |row| row.get(0),
    )?;
    let applied = match original {
        Some((player, _, _)) if player != call.player_id => {
            return Err(AppError::conflict("the original debit is another player's"));
        }
        // Undo what was actually taken, whatever amount the rollback says.
        Some((_, amount, true)) if !already_refunded => {
            move_money(
                tx,
                &call.player_id,
                "rollback",
                amount,
                Some((&call.transaction_id, &call.round_id)),
            )?;
            true
        }
        // Refused, already undone, or not seen yet (then remembered by the
        // row written below, so that the debit is refused if it comes).
        _ => false,
    };
    let balance_cents = db::balance(tx, &call.player_id)?.unwrap_or(0);
    asked.record(
        tx,
        applied,
        WalletAnswer {
            status: DebitStatus::Ok,
            balance_cents,
        },
    )
}
