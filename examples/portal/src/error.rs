//! The one error type of the example's routes: a status and
//! `{"error": {"code", "message"}}`, like the game server's.

use crate::db::DbError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

#[derive(Debug)]
pub struct AppError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl AppError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> AppError {
        AppError {
            status,
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> AppError {
        AppError::new(StatusCode::BAD_REQUEST, "BAD_REQUEST", message)
    }

    pub fn unauthorized(message: impl Into<String>) -> AppError {
        AppError::new(StatusCode::UNAUTHORIZED, "UNAUTHORIZED", message)
    }

    pub fn not_found(message: impl Into<String>) -> AppError {
        AppError::new(StatusCode::NOT_FOUND, "NOT_FOUND", message)
    }

    pub fn conflict(message: impl Into<String>) -> AppError {
        AppError::new(StatusCode::CONFLICT, "CONFLICT", message)
    }

    /// A fault of this program: logged, and answered without details.
    pub fn internal(cause: impl std::fmt::Display) -> AppError {
        tracing::error!(%cause, "internal error");
        AppError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            "internal error",
        )
    }

    pub fn bad_gateway(message: impl Into<String>) -> AppError {
        AppError::new(StatusCode::BAD_GATEWAY, "GAME_UNAVAILABLE", message)
    }
}

impl From<DbError> for AppError {
    fn from(e: DbError) -> AppError {
        AppError::internal(e)
    }
}

impl From<rusqlite::Error> for AppError {
    fn from(e: rusqlite::Error) -> AppError {
        AppError::from(DbError::from(e))
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        (self.status, Json(body)).into_response()
    }
}
