//! What anyone may read: configuration, blocks, disclosures, the OpenAPI document.

use super::bodies::block_info;
use super::path_id;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::BlockStatus;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::header;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use eldorado_api::{BlockInfo, BlockList, Config, ErrorBody, Health, Odds, OutboxHealth, PrizeRow};
use eldorado_engine::prize_table::{max_win_cents, odds_fraction, rtp_basis_points, RANKS};
use eldorado_engine::Stake;

/// Finished blocks listed per stake besides the open and pending ones.
const RECENT_FINISHED: usize = 3;

#[utoipa::path(get, path = "/api/config", tag = "public",
    responses((status = 200, description = "Stakes, operator key and prize table, all computed by the engine", body = Config)))]
pub async fn config(State(state): State<AppState>) -> Json<Config> {
    let (tickets, winners) = odds_fraction();
    let prize_table = RANKS
        .iter()
        .map(|r| PrizeRow {
            rank: r.rank,
            multiple: r.multiple.into(),
            count: r.count.into(),
            direct: r.direct.into(),
            via_extras: r.via_extras.into(),
            decompositions: r
                .decompositions
                .iter()
                .map(|d| d.iter().map(|&a| a.into()).collect())
                .collect(),
        })
        .collect();
    Json(Config {
        stakes_cents: Stake::ALL.iter().map(|s| s.cents()).collect(),
        public_key: state.public_key.to_hex(),
        rtp_basis_points: rtp_basis_points(),
        odds: Odds { tickets, winners },
        max_win_cents: Stake::ALL
            .iter()
            .map(|s| (s.cents().to_string(), max_win_cents(*s)))
            .collect(),
        prize_table,
        demo: state.config.demo,
        starting_balance_cents: state.config.starting_balance_cents,
        portal_origins: state.config.portal_origins(),
        log: state.log.config(),
        dealing: state.dealer.as_ref().map(|d| d.announcement().clone()),
        page: state.page.fingerprint().map(|f| hex::encode(f.0)),
    })
}

#[utoipa::path(get, path = "/api/blocks", tag = "public",
    responses((status = 200, description = "Every open and pending block, and the 3 latest finished ones of each stake", body = BlockList)))]
pub async fn blocks(State(state): State<AppState>) -> Result<Json<BlockList>, ApiError> {
    let records = state.blocking(|s| Ok(s.store.blocks()?)).await?;
    let mut finished_per_stake = std::collections::HashMap::<u64, usize>::new();
    let mut shown = Vec::new();
    for record in records.into_iter().rev() {
        if record.status.is_finished() {
            let seen = finished_per_stake.entry(record.stake_cents()).or_default();
            if *seen >= RECENT_FINISHED {
                continue;
            }
            *seen += 1;
        }
        shown.push(record);
    }
    shown.reverse();
    Ok(Json(BlockList {
        blocks: shown.into_iter().map(block_info).collect(),
    }))
}

#[utoipa::path(get, path = "/api/blocks/{block}", tag = "public",
    params(("block" = u64, Path, description = "Block id")),
    responses(
        (status = 200, description = "The block", body = BlockInfo),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn block(
    State(state): State<AppState>,
    Path(block): Path<String>,
) -> Result<Json<BlockInfo>, ApiError> {
    let id = path_id(&block, "block")?;
    let record = state
        .blocking(move |s| Ok(s.store.block(id)?))
        .await?
        .ok_or_else(|| ApiError::not_found("block"))?;
    Ok(Json(block_info(record)))
}

/// The JSON Lines disclosure of a finished block, streamed from its file
/// (written on the first request) within the export deadline.
#[utoipa::path(get, path = "/api/blocks/{block}/export", tag = "public",
    params(("block" = u64, Path, description = "Block id")),
    responses(
        (status = 200, content_type = "application/jsonl", body = String,
         description = "The engine's ExportHeader line, then one ExportRow line per ticket in sale order, salts included"),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT: the block is open or pending", body = ErrorBody),
    ))]
pub async fn export(
    State(state): State<AppState>,
    Path(block): Path<String>,
) -> Result<Response, ApiError> {
    let id = path_id(&block, "block")?;
    let record = state
        .blocking(move |s| Ok(s.store.block(id)?))
        .await?
        .ok_or_else(|| ApiError::not_found("block"))?;
    if !record.status.is_finished() {
        return Err(ApiError::Conflict(format!(
            "block {id} is {}: it is disclosed once sold out or closed",
            match record.status {
                BlockStatus::Open => "open",
                _ => "pending",
            }
        )));
    }
    if !record.is_disclosable() {
        return Err(ApiError::Conflict(format!(
            "block {id} has {} purchases still to deal: it is disclosed once they are dealt",
            record.undealt
        )));
    }
    let path = state
        .blocking(move |s| s.exports.file(&*s.store, &record))
        .await?;
    let body = crate::exports::stream(&path, state.config.limits.export_deadline).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/jsonl".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"eldorado-block-{id}.jsonl\""),
            ),
        ],
        Body::from_stream(body),
    )
        .into_response())
}

#[utoipa::path(get, path = "/api/openapi.json", tag = "public",
    responses((status = 200, description = "This document, generated from the API types")))]
pub async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(crate::openapi::document())
}

#[utoipa::path(get, path = "/api/wallet-openapi.json", tag = "public",
    responses((status = 200, description = "The seamless wallet API that an operator implements \
        for `eldorado serve --wallet` (docs/OPERATOR.md), generated from its types")))]
pub async fn wallet_openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(crate::openapi::wallet::document())
}

#[utoipa::path(get, path = "/api/health", tag = "public",
    responses(
        (status = 200, description = "The sale writer and the block generator run, and the store answers and holds the public record its witnesses cosigned", body = Health),
        (status = 503, description = "Something is down: the failing parts are `false`, or `record_behind` gives the size of the record the witnesses cosigned that the database does not hold", body = Health),
    ))]
pub async fn health(State(state): State<AppState>) -> (StatusCode, Json<Health>) {
    let store = state.blocking(|s| Ok(s.store.ping()?)).await.is_ok();
    let sale_writer = state.desk.is_running();
    let block_generator = state.book.generator_ok();
    let wallet_outbox = state.wallet.as_ref().map(|wallet| {
        let backlog = wallet.backlog();
        OutboxHealth {
            backlog: backlog.items,
            oldest_age_ms: backlog
                .oldest_queued_at_ms
                .map_or(0, |at| state.clock.now_ms().saturating_sub(at)),
            most_attempts: backlog.most_attempts,
            given_up: backlog.given_up,
        }
    });
    let record_behind = state.witnessed.behind().map(|behind| behind.cosigned);
    let ok = store && sale_writer && block_generator && record_behind.is_none();
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        Json(Health {
            status: if ok { "ok" } else { "unavailable" }.to_owned(),
            sale_writer,
            block_generator,
            store,
            wallet_outbox,
            record_behind,
        }),
    )
}
