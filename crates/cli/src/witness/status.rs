//! `GET /status` of a witness started with `--listen`: what it last
//! cosigned, and the fork if it saw one (then 503, so that a plain HTTP
//! health check raises the alarm). Beside it, `GET /cosignatures?after=N`:
//! everything it cosigned (`publication`).

use super::push::Refusal;
use super::{Fork, SharedPublication};
use axum::extract::{Query, State};
use axum::http::header;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::routing::post;
use axum::{Json, Router};
use eldorado_engine::Hash;
use eldorado_server::clock::system_now_ms;
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

/// What `POST /add-checkpoint` works on: the witness, and the status it
/// updates.
#[derive(Clone)]
pub struct Pushed {
    pub witness: Arc<Mutex<super::Witness>>,
    pub status: SharedStatus,
}

/// The listener's routes; without a witness (one that saw a fork before
/// it started) a push is refused.
pub fn router(
    status: SharedStatus,
    published: SharedPublication,
    pushed: Option<Pushed>,
) -> Router {
    Router::new()
        .route("/status", get(show))
        .with_state(status)
        .route("/cosignatures", get(cosignatures).with_state(published))
        .route("/add-checkpoint", post(add_checkpoint).with_state(pushed))
}

async fn add_checkpoint(State(pushed): State<Option<Pushed>>, body: String) -> Response {
    let Some(pushed) = pushed else {
        return refused(&Refusal::Refusing);
    };
    let done = tokio::task::spawn_blocking(move || {
        let mut witness = pushed.witness.lock().unwrap_or_else(|p| p.into_inner());
        let done = witness.add_checkpoint(&body, system_now_ms());
        *pushed.status.lock().unwrap_or_else(|p| p.into_inner()) = witness.status();
        done
    })
    .await;
    match done {
        Ok(Ok(line)) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            line,
        )
            .into_response(),
        Ok(Err(refusal)) => refused(&refusal),
        Err(e) => {
            tracing::error!(error = %e, "a push failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// A refusal as C2SP tlog-witness answers it.
fn refused(refusal: &Refusal) -> Response {
    let status = match refusal {
        Refusal::Malformed(_) => StatusCode::BAD_REQUEST,
        Refusal::UnknownOrigin(_) => StatusCode::NOT_FOUND,
        Refusal::NotSigned => StatusCode::FORBIDDEN,
        Refusal::Conflict { latest } => {
            return (
                StatusCode::CONFLICT,
                [(header::CONTENT_TYPE, "text/x.tlog.size")],
                format!("{latest}\n"),
            )
                .into_response()
        }
        Refusal::BadProof(_) => StatusCode::UNPROCESSABLE_ENTITY,
        Refusal::Refusing => StatusCode::SERVICE_UNAVAILABLE,
        Refusal::Failed(e) => {
            tracing::error!(error = %e, "cannot cosign a push");
            StatusCode::INTERNAL_SERVER_ERROR
        }
    };
    (status, refusal.to_string()).into_response()
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
