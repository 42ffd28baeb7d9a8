//! The game server as the operator's back end calls it: only
//! `POST /api/operator/launches`, with the operator API key, which never
//! leaves this process (the page gets the launch URL only).

use eldorado_api::{ErrorBody, Launch, LaunchRequest};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error("the game server did not answer: {0}")]
    Unreachable(String),
    #[error("the game server did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the game server refused: {status} {code}: {message}")]
    Refused {
        status: u16,
        code: String,
        message: String,
    },
    #[error("unexpected answer from the game server ({status}): {detail}")]
    Unexpected { status: u16, detail: String },
}

#[derive(Clone)]
pub struct GameServer {
    base: String,
    /// `Bearer <operator API key>`.
    authorization: String,
    timeout: Duration,
    http: reqwest::Client,
}

impl GameServer {
    /// `base` is the game server's `http://` or `https://` URL (checked
    /// against the system's roots). An answer that redirects is unexpected.
    pub fn new(base: &str, api_key: &str, timeout: Duration) -> Result<GameServer, String> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("--game-url {base}: {e}"))?;
        Ok(GameServer {
            base: base.trim_end_matches('/').to_owned(),
            authorization: format!("Bearer {api_key}"),
            timeout,
            http,
        })
    }

    /// A single-use launch URL for the player, valid for a short while.
    pub async fn launch(&self, request: &LaunchRequest) -> Result<Launch, GameError> {
        let exchange = async {
            let response = self
                .http
                .post(format!("{}/api/operator/launches", self.base))
                .header("authorization", &self.authorization)
                .json(request)
                .send()
                .await
                .map_err(|e| GameError::Unreachable(e.to_string()))?;
            let status = response.status();
            let bytes = response
                .bytes()
                .await
                .map_err(|e| GameError::Unreachable(e.to_string()))?;
            Ok::<_, GameError>((status, bytes))
        };
        let (status, bytes) = tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| GameError::Timeout(self.timeout))??;
        if status.is_success() {
            return serde_json::from_slice(&bytes).map_err(|e| GameError::Unexpected {
                status: status.as_u16(),
                detail: e.to_string(),
            });
        }
        match serde_json::from_slice::<ErrorBody>(&bytes) {
            Ok(error) => Err(GameError::Refused {
                status: status.as_u16(),
                code: error.error.code,
                message: error.error.message,
            }),
            Err(_) => Err(GameError::Unexpected {
                status: status.as_u16(),
                detail: String::from_utf8_lossy(&bytes).chars().take(200).collect(),
            }),
        }
    }
}
