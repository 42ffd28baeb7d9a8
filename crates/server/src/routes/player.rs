//! What a player does: get a session, play, reveal, look back.

use super::bodies::history_item;
use super::{path_id, ApiJson, ClientIp, Player};
use crate::error::ApiError;
use crate::keys::os_random;
use crate::public_log::StoredHashes;
use crate::seamless_wallet::SeamlessWallet;
use crate::sessions::Session;
use crate::state::AppState;
use crate::store::deal::read_proof;
use crate::store::{NewPlayer, PlayerKind, PurchaseRecord, SaleOutcome, SaleRecord, SaleRequest};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use eldorado_api::{
    BuyRequest, DealEvidence, DemoPlayerRequest, ErrorBody, HistoryPage, InclusionProof,
    LoggedReceipt, PurchaseOnRecord, RevealAck, RevealRequest, SaleResponse,
    Session as SessionBody, UnsoldNode,
};
use eldorado_engine::{ClientNonce, Money, Stake};
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

const DEFAULT_HISTORY: u32 = 20;
const MAX_HISTORY: u32 = 100;

/// The player's own sale (blocking). Another player's sale is NOT_FOUND,
/// like a missing one, so ids reveal nothing about other players.
fn own_sale(state: &AppState, player_id: &str, sale_id: u64) -> Result<SaleRecord, ApiError> {
    state
        .store
        .sale(player_id, sale_id)?
        .ok_or_else(|| ApiError::not_found("sale"))
}

/// Signs a recorded sale into its response body (blocking).
pub(super) fn sale_body(state: &AppState, record: &SaleRecord) -> Result<SaleResponse, ApiError> {
    sale_body_dealt(state, record, None)
}

/// [`sale_body`], given the purchase `record` was dealt for when the
/// caller holds it already (read with the sale): not read again.
fn sale_body_dealt(
    state: &AppState,
    record: &SaleRecord,
    purchase: Option<PurchaseRecord>,
) -> Result<SaleResponse, ApiError> {
    let deal = match state.dealer {
        Some(_) => deal_evidence(state, record, purchase)?,
        None => None,
    };
    Ok(SaleResponse {
        sale: state.sign_sale(record)?,
        commitment: state.commitment(record.block)?,
        balance_before_cents: record.balance_before_cents,
        balance_after_cents: record.balance_after_cents,
        revealed: record.revealed,
        complete: record.is_complete(),
        log_index: record.log_index,
        deal,
    })
}

/// How the beacon dealt `record`, if it did (blocking).
fn deal_evidence(
    state: &AppState,
    record: &SaleRecord,
    purchase: Option<PurchaseRecord>,
) -> Result<Option<DealEvidence>, ApiError> {
    let purchase = match purchase {
        Some(purchase) => Some(purchase),
        None => state.store.purchase_of_sale(record.sale_id)?,
    };
    let Some(purchase) = purchase else {
        return Ok(None);
    };
    let (Some(index), Some(proof), Some(signature)) = (
        purchase.log_index,
        purchase.deal_proof.as_deref(),
        purchase.round_signature.as_deref(),
    ) else {
        return Err(ApiError::internal("a dealt purchase without its evidence"));
    };
    let proof = read_proof(proof, record.block_tickets, record.ticket.position)
        .ok_or_else(|| ApiError::internal("a stored deal proof does not read"))?;
    // The leaf as logged, never one signed again from the row: the buyer
    // checks the record itself.
    let leaf = state
        .store
        .log_leaves(index, index + 1)?
        .pop()
        .ok_or_else(|| ApiError::internal("a dealt purchase's record is missing"))?;
    Ok(Some(DealEvidence {
        purchase: hex::encode(leaf),
        purchase_log_index: index,
        round: Some(purchase.dealt_round.unwrap_or(purchase.round)),
        round_signature: hex::encode(signature),
        unsold_root: proof.before,
        siblings: proof
            .siblings
            .iter()
            .map(|n| UnsoldNode {
                hash: n.hash,
                count: n.count,
            })
            .collect(),
    }))
}

/// A session body with the player's balance and unfinished ticket (blocking).
pub(super) fn session_body(state: &AppState, session: &Session) -> Result<SessionBody, ApiError> {
    let player = state
        .store
        .player(&session.player_id)?
        .ok_or_else(|| ApiError::internal("a session of a missing player"))?;
    let unrevealed = state
        .store
        .unrevealed(&session.player_id)?
        .map(|record| sale_body(state, &record))
        .transpose()?;
    let protection = state
        .store
        .protection(&session.player_id, state.clock.now_ms())?
        .ok_or_else(|| ApiError::internal("a session of a missing player"))?;
    Ok(SessionBody {
        token: session.token.clone(),
        player_id: session.player_id.to_string(),
        balance_cents: player.balance_cents,
        started_at_ms: session.started_at_ms,
        expires_at_ms: session.expires_at_ms,
        money: player.kind.money(),
        unrevealed,
        protection,
        lobby_url: session.lobby_url.as_deref().map(str::to_owned),
    })
}

/// In seamless-wallet mode a real-money player's balance is the operator's:
/// asked of its wallet for every session body.
pub(super) async fn with_wallet_balance(
    state: &AppState,
    mut body: SessionBody,
) -> Result<SessionBody, ApiError> {
    if let (Some(wallet), Money::Real) = (&state.wallet, body.money) {
        body.balance_cents = wallet.balance(&body.player_id).await?;
    }
    Ok(body)
}

#[utoipa::path(post, path = "/api/demo/players", tag = "player",
    request_body(content = Option<DemoPlayerRequest>, description = "`{}`, `null` or an empty body"),
    responses(
        (status = 201, description = "A new play-money player with the starting balance", body = SessionBody),
        (status = 403, description = "DEMO_DISABLED: demo mode is off", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: too many new players from this address (`Retry-After`)", body = ErrorBody),
    ))]
pub async fn create_demo_player(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(_): ApiJson<DemoPlayerRequest>,
) -> Result<(StatusCode, Json<SessionBody>), ApiError> {
    if !state.config.demo {
        return Err(ApiError::DemoDisabled);
    }
    state.demo_player_limit.check(ip)?;
    let body = state
        .blocking(|state| {
            let id = format!(
                "demo-{}",
                hex::encode(os_random::<8>().map_err(ApiError::internal)?)
            );
            // The player and its session in one transaction.
            let (session, _) = state.sessions.open(&NewPlayer {
                id: &id,
                kind: PlayerKind::Demo,
                balance_cents: state.config.starting_balance_cents,
                reuse: false,
            })?;
            session_body(state, &session)
        })
        .await?;
    Ok((StatusCode::CREATED, Json(body)))
}

#[utoipa::path(get, path = "/api/session", tag = "player", security(("player" = [])),
    responses(
        (status = 200, description = "The session, its balance (with `--wallet`, the operator's) and unrevealed ticket", body = SessionBody),
        (status = 503, description = "WALLET_UNAVAILABLE (with `--wallet`): the operator's wallet gave no balance", body = ErrorBody),
    ))]
pub async fn session(
    State(state): State<AppState>,
    Player(session): Player,
) -> Result<Json<SessionBody>, ApiError> {
    let body = state
        .blocking(move |state| session_body(state, &session))
        .await?;
    Ok(Json(with_wallet_balance(&state, body).await?))
}

#[utoipa::path(delete, path = "/api/session", tag = "player", security(("player" = [])),
    responses((status = 204, description = "The session has ended: its token is refused from now on")))]
pub async fn end_session(
    State(state): State<AppState>,
    Player(session): Player,
) -> Result<StatusCode, ApiError> {
    state
        .blocking(move |state| state.sessions.revoke(&session.token))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// [`BuyRequest`] as the server reads it: the stake as any JSON value, so
/// that a number which is no stake is `INVALID_STAKE`, not `BAD_REQUEST`;
/// the nonce too, so that a malformed one gets a message of its own.
#[derive(Deserialize)]
pub struct SaleRequestBody {
    stake_cents: Value,
    idempotency_key: String,
    #[serde(default)]
    client_nonce: Option<Value>,
}

/// The buyer's nonce: 32 lowercase hex digits, exactly as the page sends
/// it (one spelling per nonce, so the signed bytes are the ones the buyer
/// will compare). Absent or `null`: 16 zero bytes, for API clients that
/// check no nonce.
fn parse_client_nonce(value: Option<&Value>) -> Result<ClientNonce, ApiError> {
    let text = match value {
        None | Some(Value::Null) => return Ok(ClientNonce([0; 16])),
        Some(Value::String(text)) => text.as_str(),
        // Not a string: refused below like any malformed text.
        Some(_) => "",
    };
    let lowercase_hex = text.len() == 2 * ClientNonce::LEN
        && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    lowercase_hex
        .then(|| ClientNonce::from_hex(text).ok())
        .flatten()
        .ok_or_else(|| {
            ApiError::BadRequest(
                "client_nonce must be 32 lowercase hex digits (16 random bytes)".to_owned(),
            )
        })
}

fn check_idempotency_key(key: &str) -> Result<(), ApiError> {
    let ok = (8..=64).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(ApiError::BadRequest(
            "idempotency_key must be 8 to 64 characters among A-Z a-z 0-9 _ -".to_owned(),
        ))
    }
}

fn parse_stake(value: &Value) -> Result<Stake, ApiError> {
    let Value::Number(number) = value else {
        return Err(ApiError::BadRequest(
            "stake_cents must be an integer number of cents".to_owned(),
        ));
    };
    let invalid = || {
        ApiError::InvalidStake(format!(
            "{number} cents is not a stake: the stakes are 50, 100 and 200 cents"
        ))
    };
    let cents = number.as_u64().ok_or_else(invalid)?;
    Stake::from_cents(cents).map_err(|_| invalid())
}

#[utoipa::path(post, path = "/api/sales", tag = "player", security(("player" = [])),
    request_body = BuyRequest,
    responses(
        (status = 200, description = "The signed sale, its `client_nonce` the request's (the same sale again, first nonce included, for a retried key)", body = SaleResponse),
        (status = 400, description = "BAD_REQUEST (also for a `client_nonce` that is not 32 lowercase hex digits), or INVALID_STAKE for a number that is not a stake", body = ErrorBody),
        (status = 402, description = "INSUFFICIENT_FUNDS (with `--wallet`: the operator's wallet refused the stake for funds)", body = ErrorBody),
        (status = 403, description = "FORBIDDEN (with `--wallet`): the operator's wallet refused the stake. LIMIT_REACHED: the stake would exceed the weekly stake limit, or (counted as lost) the weekly loss limit; `limit` says which, how much is used and when room frees up. SELF_EXCLUDED: the player is excluded until `excluded_until_ms` (or `excluded_indefinitely`). Nothing was sold", body = ErrorBody),
        (status = 409, description = "CONFLICT: the idempotency key was used at another stake", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: too many sales by this player (`Retry-After`)", body = ErrorBody),
        (status = 503, description = "SOLD_OUT: no block of this stake and of the player's money on sale; OVERLOADED or TIMEOUT: retry with the same key; WALLET_UNAVAILABLE (with `--wallet`): the operator's wallet did not answer, nothing was sold; RECORD_BEHIND: the server's database does not hold the public record its witnesses cosigned, nothing is sold until the operator restores a newer copy", body = ErrorBody),
    ))]
pub async fn create_sale(
    State(state): State<AppState>,
    Player(session): Player,
    ApiJson(body): ApiJson<SaleRequestBody>,
) -> Result<Json<SaleResponse>, ApiError> {
    let started = std::time::Instant::now();
    let stake = parse_stake(&body.stake_cents)
        .map_or_else(|_| "invalid".to_owned(), |s| s.cents().to_string());
    let answer = sell(state, session, body).await;
    match &answer {
        Ok(Json(sale)) => crate::metrics::sale(
            "sold",
            &stake,
            sale.commitment.commitment.money.as_str(),
            started.elapsed(),
        ),
        Err(e) => crate::metrics::sale(e.code().as_str(), &stake, "unknown", started.elapsed()),
    }
    answer
}

async fn sell(
    state: AppState,
    session: Session,
    body: SaleRequestBody,
) -> Result<Json<SaleResponse>, ApiError> {
    state.witnessed.check()?;
    state.sale_limit.check(session.player_id.clone())?;
    let stake = parse_stake(&body.stake_cents)?;
    check_idempotency_key(&body.idempotency_key)?;
    let client_nonce = parse_client_nonce(body.client_nonce.as_ref())?;
    let request = SaleRequest {
        player_id: session.player_id.to_string(),
        stake,
        idempotency_key: body.idempotency_key,
        client_nonce,
    };
    let outcome = match seamless_wallet_of(&state, &request.player_id).await? {
        Some(wallet) => wallet.sell(request).await?,
        None => state.desk.sell(request).await?,
    };
    let (record, dealt) = match outcome {
        SaleOutcome::Sold(record) | SaleOutcome::Replayed(record) => (record, None),
        SaleOutcome::Bought(purchase) => match &state.dealer {
            Some(dealer) => {
                let (record, dealt) = dealer
                    .dealt_sale(&state.store, &*state.clock, &purchase)
                    .await?;
                (record, Some(dealt))
            }
            // Bought on a server with a beacon: that server deals it.
            None => return Err(ApiError::DealPending),
        },
        SaleOutcome::KeyConflict => {
            return Err(ApiError::Conflict(
                "this idempotency key was already used for a sale at another stake".to_owned(),
            ))
        }
        SaleOutcome::InsufficientFunds { balance_cents } => {
            return Err(ApiError::InsufficientFunds {
                balance_cents,
                needed_cents: stake.cents(),
            })
        }
        SaleOutcome::SoldOut => return Err(ApiError::SoldOut),
        SaleOutcome::LimitReached(limit) => return Err(ApiError::LimitReached(limit)),
        SaleOutcome::SelfExcluded { until_ms } => return Err(ApiError::SelfExcluded { until_ms }),
        SaleOutcome::UnknownPlayer => {
            return Err(ApiError::internal("a session of a missing player"))
        }
        SaleOutcome::Faulted(cause) => return Err(ApiError::Internal(cause)),
    };
    // Signing is cheap unless an old block's tree must be rebuilt, or the
    // deal's evidence read from the store (with a beacon).
    let body = if state.dealer.is_none() && state.book.cached_tree(record.block).is_some() {
        sale_body(&state, &record)?
    } else {
        state
            .blocking(move |state| sale_body_dealt(state, &record, dealt))
            .await?
    };
    Ok(Json(body))
}

/// The operator's wallet when it holds this player's money: an operator
/// player on a server started with `--wallet`.
async fn seamless_wallet_of(
    state: &AppState,
    player_id: &str,
) -> Result<Option<Arc<SeamlessWallet>>, ApiError> {
    let Some(wallet) = state.wallet.clone() else {
        return Ok(None);
    };
    let id = player_id.to_owned();
    let player = state
        .blocking(move |state| Ok(state.store.player(&id)?))
        .await?
        .ok_or_else(|| ApiError::internal("a session of a missing player"))?;
    Ok((player.kind == PlayerKind::Operator).then_some(wallet))
}

#[utoipa::path(get, path = "/api/sales/{sale_id}", tag = "player", security(("player" = [])),
    params(("sale_id" = u64, Path, description = "Sale id")),
    responses(
        (status = 200, description = "The player's own sale, signed again (same bytes)", body = SaleResponse),
        (status = 404, description = "NOT_FOUND, also for another player's sale", body = ErrorBody),
    ))]
pub async fn sale(
    State(state): State<AppState>,
    Player(session): Player,
    Path(sale_id): Path<String>,
) -> Result<Json<SaleResponse>, ApiError> {
    let sale_id = path_id(&sale_id, "sale")?;
    let body = state
        .blocking(move |state| {
            let record = own_sale(state, &session.player_id, sale_id)?;
            sale_body(state, &record)
        })
        .await?;
    Ok(Json(body))
}

#[utoipa::path(get, path = "/api/sales/{sale_id}/receipt", tag = "player", security(("player" = [])),
    params(("sale_id" = u64, Path, description = "Sale id")),
    responses(
        (status = 200, description = "A receipt that proves itself: the sale, its inclusion proof and the newest checkpoint cosigned by the quorum of witnesses that holds it (`eldorado verify` checks all of it offline)", body = LoggedReceipt),
        (status = 404, description = "NOT_FOUND: no such sale of this player, or not on a cosigned checkpoint yet (retry in a few seconds)", body = ErrorBody),
    ))]
pub async fn receipt(
    State(state): State<AppState>,
    Player(session): Player,
    Path(sale_id): Path<String>,
) -> Result<Json<LoggedReceipt>, ApiError> {
    let sale_id = path_id(&sale_id, "sale")?;
    let receipt = state
        .blocking(move |state| {
            let record = own_sale(state, &session.player_id, sale_id)?;
            logged_receipt(state, &record)
        })
        .await?;
    Ok(Json(receipt))
}

/// A sale's receipt with its proof on the newest cosigned checkpoint (the
/// player's and the operator's console; blocking).
pub(crate) fn logged_receipt(
    state: &AppState,
    record: &SaleRecord,
) -> Result<LoggedReceipt, ApiError> {
    let index = record
        .log_index
        .ok_or_else(|| ApiError::not_found("sale on the public record (yet)"))?;
    let checkpoint = state
        .store
        .log_checkpoint(state.log.quorum())?
        .filter(|c| c.size > index)
        .ok_or_else(|| ApiError::not_found("cosigned checkpoint holding the sale (yet)"))?;
    let sale = sale_body(state, record)?;
    let purchase = sale
        .deal
        .as_ref()
        .map(|deal| {
            let index = deal.purchase_log_index;
            let covering = state
                .store
                .log_checkpoint_covering(index, state.log.quorum())?
                .ok_or_else(|| ApiError::internal("a dealt purchase in no cosigned checkpoint"))?;
            Ok::<_, ApiError>(PurchaseOnRecord {
                inclusion: inclusion_proof(state, index, covering.size)?,
                checkpoint: covering.note,
            })
        })
        .transpose()?;
    Ok(LoggedReceipt {
        sale,
        inclusion: inclusion_proof(state, index, checkpoint.size)?,
        checkpoint: checkpoint.note,
        purchase,
    })
}

/// Record `index`'s proof in the tree of `size` records (blocking).
fn inclusion_proof(state: &AppState, index: u64, size: u64) -> Result<InclusionProof, ApiError> {
    let hashes = StoredHashes(&*state.store)
        .record_proof(index, size)
        .map_err(ApiError::internal)?;
    Ok(InclusionProof {
        index,
        size,
        hashes,
    })
}

#[utoipa::path(post, path = "/api/sales/{sale_id}/reveal", tag = "player", security(("player" = [])),
    params(("sale_id" = u64, Path, description = "Sale id")),
    request_body = RevealRequest,
    responses(
        (status = 200, description = "The stored progress", body = RevealAck),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn reveal(
    State(state): State<AppState>,
    Player(session): Player,
    Path(sale_id): Path<String>,
    ApiJson(body): ApiJson<RevealRequest>,
) -> Result<Json<RevealAck>, ApiError> {
    let sale_id = path_id(&sale_id, "sale")?;
    let body = state
        .blocking(move |state| {
            let record = own_sale(state, &session.player_id, sale_id)?;
            if body.revealed > record.grid_count() {
                return Err(ApiError::BadRequest(format!(
                    "this ticket has {} grids: revealed must be 0..={}",
                    record.grid_count(),
                    record.grid_count()
                )));
            }
            let revealed = state
                .store
                .set_revealed(&session.player_id, sale_id, body.revealed)?
                .ok_or_else(|| ApiError::not_found("sale"))?;
            Ok(RevealAck {
                sale_id,
                revealed,
                complete: revealed >= record.grid_count(),
            })
        })
        .await?;
    Ok(Json(body))
}

#[derive(Deserialize)]
pub struct HistoryQuery {
    limit: Option<String>,
    before: Option<String>,
}

#[utoipa::path(get, path = "/api/history", tag = "player", security(("player" = [])),
    params(
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Items per page, 20 by default"),
        ("before" = Option<i64>, Query, minimum = 1, description = "`next_before` of the previous page"),
    ),
    responses((status = 200, description = "A page of the player's tickets, newest first", body = HistoryPage)))]
pub async fn history(
    State(state): State<AppState>,
    Player(session): Player,
    query: Result<Query<HistoryQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<HistoryPage>, ApiError> {
    let Query(query) =
        query.map_err(|_| ApiError::BadRequest("malformed query string".to_owned()))?;
    let limit = match query.limit.as_deref() {
        None => DEFAULT_HISTORY,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_HISTORY).contains(n))
            .ok_or_else(|| {
                ApiError::BadRequest(format!("limit must be an integer 1..={MAX_HISTORY}"))
            })?,
    };
    let before = query
        .before
        .as_deref()
        .map(|text| {
            // Sale ids are positive 63-bit integers, as stored.
            text.parse::<i64>()
                .ok()
                .filter(|id| *id > 0)
                .map(|id| id as u64)
                .ok_or_else(|| ApiError::BadRequest("before must be a sale id".to_owned()))
        })
        .transpose()?;
    let records = state
        .blocking(move |state| Ok(state.store.history(&session.player_id, before, limit)?))
        .await?;
    let next_before = (records.len() == limit as usize)
        .then(|| records.last().map(|r| r.sale_id))
        .flatten();
    Ok(Json(HistoryPage {
        items: records.iter().map(history_item).collect(),
        next_before,
    }))
}

#[cfg(test)]
mod tests {
    use super::{parse_client_nonce, SaleRequestBody};
    use eldorado_api::BuyRequest;
    use eldorado_engine::ClientNonce;
    use serde_json::json;

    #[test]
    fn the_lenient_sale_request_reads_every_buy_request() {
        for client_nonce in [None, Some(ClientNonce([0xa7; 16]))] {
            let request = BuyRequest {
                stake_cents: 100,
                client_nonce,
                idempotency_key: "key-00000001".to_owned(),
            };
            let read: SaleRequestBody =
                serde_json::from_value(serde_json::to_value(&request).unwrap()).unwrap();
            assert_eq!(read.stake_cents, 100);
            assert_eq!(read.idempotency_key, request.idempotency_key);
            let nonce = parse_client_nonce(read.client_nonce.as_ref()).unwrap();
            assert_eq!(nonce, client_nonce.unwrap_or(ClientNonce([0; 16])));
        }
    }

    #[test]
    fn a_nonce_is_32_lowercase_hex_digits_or_absent() {
        let good = "00ff0123456789abcdef0123456789ab";
        assert_eq!(
            parse_client_nonce(Some(&json!(good))).unwrap().to_hex(),
            good
        );
        assert_eq!(
            parse_client_nonce(Some(&json!(null))).unwrap(),
            ClientNonce([0; 16])
        );
        for bad in [
            json!("00FF0123456789ABCDEF0123456789AB"),
            json!("00ff0123456789abcdef0123456789a"),
            json!("00ff0123456789abcdef0123456789abcd"),
            json!("00ff0123456789abcdef0123456789ag"),
            json!(""),
            json!(12345),
            json!([0, 1]),
        ] {
            let error = parse_client_nonce(Some(&bad)).unwrap_err();
            assert!(error.to_string().contains("client_nonce"), "{bad}");
        }
    }
}
