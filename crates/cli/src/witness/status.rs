//! `GET /status` of a witness started with `--listen`: what it last
//! cosigned, and the fork if it saw one (then 503, so that a plain HTTP
//! health check raises the alarm). Beside it, `GET /cosignatures?after=N`:
//! everything it cosigned (`publication`).

use super::{Fork, SharedPublication};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use eldorado_engine::Hash;
use serde::Serialize;
use std::sync::{Arc, Mutex};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Status {
    /// The log's origin.
    pub log: String,
    pub size: Option<u64>,
    pub root: Option<Hash>,
    pub cosigned_at_ms: Option<u64>,
    pub fork: Option<Fork>,
}

impl Status {
    pub fn http_status(&self) -> StatusCode {
        if self.fork.is_some() {
            StatusCode::SERVICE_UNAVAILABLE
        } else {
            StatusCode::OK
        }
    }
}

/// The status the witness loop updates and the listener reads.
pub type SharedStatus = Arc<Mutex<Status>>;

pub fn router(status: SharedStatus, published: SharedPublication) -> Router {
    Router::new()
        .route("/status", get(show))
        .with_state(status)
        .route("/cosignatures", get(cosignatures).with_state(published))
}

#[derive(serde::Deserialize)]
struct After {
    #[serde(default)]
    after: u64,
}

async fn cosignatures(
    State(published): State<SharedPublication>,
    Query(after): Query<After>,
) -> Json<eldorado_api::WitnessCosignatures> {
    let published = published.lock().unwrap_or_else(|p| p.into_inner());
    Json(published.after(after.after))
}

async fn show(State(status): State<SharedStatus>) -> (StatusCode, Json<Status>) {
    // A poisoned lock only means the loop panicked mid-update; the value
    // is still the last one written whole.
    let status = status.lock().unwrap_or_else(|p| p.into_inner()).clone();
    (status.http_status(), Json(status))
}
