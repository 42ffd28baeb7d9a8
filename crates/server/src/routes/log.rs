//! The public record (docs/PROTOCOL.md §9 and "The public record" of Part
//! II): its checkpoints, proofs and leaves, which anyone may read and cache,
//! and the witnesses' cosignatures.

use super::ApiJson;
use crate::error::ApiError;
use crate::public_log::StoredHashes;
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use eldorado_api::{
    ConsistencyProof, CosignatureSubmission, ErrorBody, InclusionProof, LogLeaves, PageListing,
};
use eldorado_engine::fixed_bytes::to_hex;
use eldorado_engine::transparency::{open_checkpoint, CheckedCheckpoint};
use serde::Deserialize;

/// What never changes once served: a proof between two sizes, the leaves.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// The newest checkpoint changes with every sequencer pass.
const FRESH: &str = "public, max-age=1";

fn cached(body: impl IntoResponse, policy: &'static str) -> Response {
    let mut response = body.into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    response
}

fn note_response(note: String) -> Response {
    cached(
        ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], note),
        FRESH,
    )
}

#[utoipa::path(get, path = "/api/log/checkpoint", tag = "log",
    responses(
        (status = 200, content_type = "text/plain", body = String,
         description = "The newest checkpoint cosigned by at least the quorum of the configured witnesses: a C2SP signed note, the log's signature then the cosignatures"),
        (status = 503, description = "LOG_UNAVAILABLE: no checkpoint has enough cosignatures yet", body = ErrorBody),
    ))]
pub async fn checkpoint(State(state): State<AppState>) -> Result<Response, ApiError> {
    let quorum = state.log.quorum();
    let served = state
        .blocking(move |s| Ok(s.store.log_checkpoint(quorum)?))
        .await?
        .ok_or(ApiError::LogUnavailable)?;
    Ok(note_response(served.note))
}

#[utoipa::path(get, path = "/api/log/checkpoint/latest", tag = "log",
    responses(
        (status = 200, content_type = "text/plain", body = String,
         description = "The newest checkpoint the log signed, with the cosignatures collected so far: what witnesses cosign"),
        (status = 503, description = "LOG_UNAVAILABLE: nothing is logged yet", body = ErrorBody),
    ))]
pub async fn latest_checkpoint(State(state): State<AppState>) -> Result<Response, ApiError> {
    let served = state
        .blocking(|s| Ok(s.store.log_checkpoint(0)?))
        .await?
        .ok_or(ApiError::LogUnavailable)?;
    Ok(note_response(served.note))
}

#[derive(Deserialize)]
pub struct CoveringQuery {
    index: Option<String>,
}

#[utoipa::path(get, path = "/api/log/checkpoint/covering", tag = "log",
    params(("index" = u64, Query, description = "The record")),
    responses(
        (status = 200, content_type = "text/plain", body = String,
         description = "The first checkpoint holding record `index` that at least the quorum of the witnesses cosigned, with their cosignatures: when its witnesses vouched for the record"),
        (status = 400, description = "BAD_REQUEST: index missing or not a non-negative integer", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no cosigned checkpoint holds the record yet", body = ErrorBody),
    ))]
pub async fn covering_checkpoint(
    State(state): State<AppState>,
    query: Result<Query<CoveringQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|_| ApiError::BadRequest("malformed query".to_owned()))?;
    let index = number(query.index.as_deref(), "index")?;
    let quorum = state.log.quorum();
    let served = state
        .blocking(move |s| {
            // A record past the log is in no checkpoint (and an index
            // beyond SQL's integers is not asked of the store).
            if index >= published_size(s)? {
                return Ok(None);
            }
            Ok(s.store.log_checkpoint_covering(index, quorum)?)
        })
        .await?
        .ok_or_else(|| ApiError::not_found("cosigned checkpoint holding the record"))?;
    // Its cosignatures may still grow: not cached long.
    Ok(note_response(served.note))
}

/// The size of the newest checkpoint: proofs and leaves go up to it.
fn published_size(state: &AppState) -> Result<u64, ApiError> {
    Ok(state.store.log_checkpoint(0)?.map_or(0, |c| c.size))
}

fn number(text: Option<&str>, name: &str) -> Result<u64, ApiError> {
    text.and_then(|t| t.parse::<u64>().ok())
        .ok_or_else(|| ApiError::BadRequest(format!("{name} must be a non-negative integer")))
}

#[derive(Deserialize)]
pub struct InclusionQuery {
    index: Option<String>,
    size: Option<String>,
}

#[utoipa::path(get, path = "/api/log/proof/inclusion", tag = "log",
    params(
        ("index" = u64, Query, description = "The record"),
        ("size" = u64, Query, description = "The tree size, at most the newest checkpoint's"),
    ),
    responses(
        (status = 200, description = "Record `index` is in the tree of `size` records (RFC 9162 audit path)", body = InclusionProof),
        (status = 400, description = "BAD_REQUEST: index or size missing or not a non-negative integer", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: not index < size <= the newest checkpoint's size", body = ErrorBody),
    ))]
pub async fn inclusion(
    State(state): State<AppState>,
    query: Result<Query<InclusionQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|_| ApiError::BadRequest("malformed query".to_owned()))?;
    let index = number(query.index.as_deref(), "index")?;
    let size = number(query.size.as_deref(), "size")?;
    let proof = state
        .blocking(move |s| {
            // Not a client's mistake the schema could tell: the tree may
            // simply not have grown that far yet.
            if index >= size || size > published_size(s)? {
                return Err(ApiError::not_found("record in a published tree"));
            }
            StoredHashes(&*s.store)
                .record_proof(index, size)
                .map_err(ApiError::internal)
        })
        .await?;
    Ok(cached(
        Json(InclusionProof {
            index,
            size,
            hashes: proof,
        }),
        IMMUTABLE,
    ))
}

#[derive(Deserialize)]
pub struct ConsistencyQuery {
    from: Option<String>,
    size: Option<String>,
}

#[utoipa::path(get, path = "/api/log/proof/consistency", tag = "log",
    params(
        ("from" = u64, Query, description = "The older tree size"),
        ("size" = u64, Query, description = "The newer tree size, at most the newest checkpoint's"),
    ),
    responses(
        (status = 200, description = "The tree of `from` records is a prefix of the tree of `size` (RFC 9162 §2.1.4; empty when from is 0 or size)", body = ConsistencyProof),
        (status = 400, description = "BAD_REQUEST: from or size missing or not a non-negative integer", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: not from <= size <= the newest checkpoint's size", body = ErrorBody),
    ))]
pub async fn consistency(
    State(state): State<AppState>,
    query: Result<Query<ConsistencyQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|_| ApiError::BadRequest("malformed query".to_owned()))?;
    let from = number(query.from.as_deref(), "from")?;
    let size = number(query.size.as_deref(), "size")?;
    let proof = state
        .blocking(move |s| {
            if from > size || size > published_size(s)? {
                return Err(ApiError::not_found("pair of published trees"));
            }
            StoredHashes(&*s.store)
                .tree_proof(from, size)
                .map_err(ApiError::internal)
        })
        .await?;
    Ok(cached(
        Json(ConsistencyProof {
            from,
            size,
            hashes: proof,
        }),
        IMMUTABLE,
    ))
}

#[utoipa::path(get, path = "/api/log/page", tag = "log",
    responses(
        (status = 200, description = "The page this server serves: each file's SHA-256, and the build's fingerprint that a page record of the log holds (docs/PROTOCOL.md §9)", body = PageListing),
        (status = 404, description = "NOT_FOUND: this server serves no page", body = ErrorBody),
    ))]
pub async fn page(State(state): State<AppState>) -> Result<Response, ApiError> {
    let listing = state
        .page
        .listing()
        .ok_or_else(|| ApiError::not_found("page"))?;
    // Fixed from start to stop; another build is another start.
    Ok(cached(Json(listing), FRESH))
}

#[derive(Deserialize)]
pub struct LeavesQuery {
    start: Option<String>,
    end: Option<String>,
}

#[utoipa::path(get, path = "/api/log/leaves", tag = "log",
    params(
        ("start" = u64, Query, description = "The first record"),
        ("end" = u64, Query, description = "The record after the last one wanted"),
    ),
    responses(
        (status = 200, description = "Records start.. in order, each leaf in lowercase hex: at most `--log-leaves-per-page`, and none past the newest checkpoint (fewer than asked: ask again from where it stops)", body = LogLeaves),
        (status = 400, description = "BAD_REQUEST: start or end missing or not a non-negative integer", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: not start < end, or start not below the newest checkpoint's size", body = ErrorBody),
    ))]
pub async fn leaves(
    State(state): State<AppState>,
    query: Result<Query<LeavesQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|_| ApiError::BadRequest("malformed query".to_owned()))?;
    let start = number(query.start.as_deref(), "start")?;
    let end = number(query.end.as_deref(), "end")?;
    let per_page = u64::from(state.config.log.leaves_per_page);
    let (leaves, complete) = state
        .blocking(move |s| {
            let published = published_size(s)?;
            if start >= end || start >= published {
                return Err(ApiError::not_found("published record in that range"));
            }
            let stop = end.min(published).min(start.saturating_add(per_page));
            let leaves = s.store.log_leaves(start, stop)?;
            if leaves.len() as u64 != stop - start {
                return Err(ApiError::internal("the log is missing leaves it published"));
            }
            Ok((leaves, stop == end))
        })
        .await?;
    let body = Json(LogLeaves {
        start,
        leaves: leaves.iter().map(|leaf| to_hex(leaf)).collect(),
    });
    // A short page may grow as the log does; a whole one never changes.
    Ok(cached(body, if complete { IMMUTABLE } else { FRESH }))
}

#[utoipa::path(post, path = "/api/log/cosignatures", tag = "log",
    request_body = CosignatureSubmission,
    responses(
        (status = 204, description = "The cosignature is kept and served with its checkpoint"),
        (status = 400, description = "BAD_REQUEST: not a JSON body of this shape", body = ErrorBody),
        (status = 403, description = "FORBIDDEN: not a checkpoint this log signed, or not a valid cosignature by one of the log's witnesses", body = ErrorBody),
        (status = 503, description = "RECORD_BEHIND: a checkpoint this log signed and one of its witnesses cosigned, which this server's database does not hold (an older copy was restored): from now on the server sells nothing (`Retry-After`)", body = ErrorBody),
    ))]
pub async fn cosign(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<CosignatureSubmission>,
) -> Result<StatusCode, ApiError> {
    state
        .blocking(move |s| accept_cosignature(s, &body))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Well-formed JSON the log will not take: refused as not allowed, not
/// as malformed (the schema cannot tell a genuine cosignature apart).
fn refused(why: &'static str) -> ApiError {
    ApiError::Forbidden(why)
}

pub(crate) fn accept_cosignature(
    state: &AppState,
    body: &CosignatureSubmission,
) -> Result<(), ApiError> {
    let line = &body.cosignature;
    if !line.starts_with("— ") || !line.ends_with('\n') || line.matches('\n').count() != 1 {
        return Err(refused("the cosignature must be one signature line"));
    }
    let submitted = open_checkpoint(body.checkpoint.as_bytes(), state.log.key(), &[], 0)
        .map_err(|_| refused("the checkpoint is not one this log signed"))?;
    let stored = state.store.log_checkpoint_at(submitted.size)?;
    let ours = stored
        .as_deref()
        .map(|stored| open_checkpoint(stored.as_bytes(), state.log.key(), &[], 0))
        .transpose()
        .map_err(ApiError::internal)?;
    let (Some(stored), Some(ours)) = (stored, ours) else {
        return not_held(state, body, &submitted);
    };
    if ours.root != submitted.root {
        return not_held(state, body, &submitted);
    }
    let cosigned = format!("{stored}{line}");
    let checked = open_checkpoint(
        cosigned.as_bytes(),
        state.log.key(),
        state.log.witnesses(),
        1,
    )
    .map_err(|_| refused("the cosignature is not a valid one of this log's witnesses"))?;
    let [witness] = &checked.witnesses[..] else {
        return Err(refused("the cosignature must be one witness's"));
    };
    state
        .store
        .log_add_cosignature(submitted.size, witness, line, state.clock.now_ms())?;
    state.witnessed.keep(&cosigned, submitted.size);
    Ok(())
}

/// A checkpoint this log signed that the database holds no checkpoint of
/// (or another root at its size): a witness showing what it cosigned
/// after the log went back (docs/PROTOCOL.md §9). Cosigned by one of the
/// witnesses and not in the store's tree, it means the database is an
/// older copy than the record: the server stops selling. Anything else is
/// refused as before.
fn not_held(
    state: &AppState,
    body: &CosignatureSubmission,
    submitted: &CheckedCheckpoint,
) -> Result<(), ApiError> {
    let evidence = format!("{}{}", body.checkpoint, body.cosignature);
    open_checkpoint(
        evidence.as_bytes(),
        state.log.key(),
        state.log.witnesses(),
        1,
    )
    .map_err(|_| refused("this log signed no checkpoint of that size and root"))?;
    let behind = state
        .witnessed
        .told(&*state.store, &evidence, submitted.size, &submitted.root)
        .map_err(ApiError::internal)?;
    match behind {
        Some(_) => state.witnessed.check(),
        None => Err(refused(
            "this log signed no checkpoint of that size and root",
        )),
    }
}
