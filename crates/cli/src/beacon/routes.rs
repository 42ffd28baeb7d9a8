//! The beacon's routes, shaped like drand's v1 HTTP API. A round is
//! signed when asked for, once its time has come and never before: BLS
//! signatures are unique, so a round's value is the same whenever and
//! however often it is signed, and the beacon keeps no state.

use super::Signer;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use eldorado_api::beacon::{BeaconInfo, BeaconRound};
use eldorado_engine::deal::{BeaconClock, BEACON_SCHEME};
use sha2::{Digest, Sha256};
use std::sync::Arc;

pub struct Beacon {
    pub signer: Signer,
    pub clock: BeaconClock,
    /// The wall clock in milliseconds since the Unix epoch.
    pub now_ms: fn() -> u64,
}

pub fn router(beacon: Arc<Beacon>) -> Router {
    Router::new()
        .route("/info", get(info))
        .route("/public/latest", get(latest))
        .route("/public/{round}", get(round))
        .with_state(beacon)
}

async fn info(State(beacon): State<Arc<Beacon>>) -> Json<BeaconInfo> {
    Json(BeaconInfo {
        public_key: hex::encode(beacon.signer.public_key()),
        scheme_id: BEACON_SCHEME.to_owned(),
        genesis_time_ms: Some(beacon.clock.genesis_ms),
        period_ms: Some(beacon.clock.period_ms),
        genesis_time: None,
        period: None,
    })
}

async fn latest(State(beacon): State<Arc<Beacon>>) -> Response {
    let round = beacon.clock.round_at((beacon.now_ms)());
    if round == 0 {
        return not_yet(1);
    }
    // The latest round changes every period: no cache may keep it longer.
    (
        [(header::CACHE_CONTROL, "no-store")],
        Json(signed(&beacon, round)),
    )
        .into_response()
}

async fn round(State(beacon): State<Arc<Beacon>>, Path(round): Path<u64>) -> Response {
    if round == 0 || round > beacon.clock.round_at((beacon.now_ms)()) {
        return not_yet(round);
    }
    (
        [(header::CACHE_CONTROL, "public, max-age=31536000, immutable")],
        Json(signed(&beacon, round)),
    )
        .into_response()
}

fn signed(beacon: &Beacon, round: u64) -> BeaconRound {
    let signature = beacon.signer.sign(round);
    BeaconRound {
        round,
        randomness: hex::encode(Sha256::digest(signature)),
        signature: hex::encode(signature),
    }
}

fn not_yet(round: u64) -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CACHE_CONTROL, "no-store")],
        format!("round {round} is not published (yet)\n"),
    )
        .into_response()
}
