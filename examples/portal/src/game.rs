//! The game server as the operator's back end calls it: only
//! `POST /api/operator/launches`, with the operator API key, which never
//! leaves this process (the page gets the launch URL only).

use bytes::Bytes;
use eldorado_api::{ErrorBody, Launch, LaunchRequest};
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
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
    http: Client<HttpConnector, Full<Bytes>>,
}

impl GameServer {
    /// `base` is an `http://` URL: this example has no TLS client, so it
    /// reaches the game server over a private network or loopback.
    pub fn new(base: &str, api_key: &str, timeout: Duration) -> GameServer {
        GameServer {
            base: base.trim_end_matches('/').to_owned(),
            authorization: format!("Bearer {api_key}"),
            timeout,
            http: Client::builder(TokioExecutor::new()).build_http(),
        }
    }

    /// A single-use launch URL for the player, valid for a short while.
    pub async fn launch(&self, request: &LaunchRequest) -> Result<Launch, GameError> {
        let body = serde_json::to_vec(request).map_err(|e| GameError::Unexpected {
            status: 0,
            detail: e.to_string(),
        })?;
        let http_request = Request::builder()
            .method(Method::POST)
            .uri(format!("{}/api/operator/launches", self.base))
            .header("authorization", &self.authorization)
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| GameError::Unreachable(e.to_string()))?;
        let exchange = async {
            let response = self
                .http
                .request(http_request)
                .await
                .map_err(|e| GameError::Unreachable(e.to_string()))?;
            let status = response.status();
            let bytes = response
                .into_body()
                .collect()
                .await
                .map_err(|e| GameError::Unreachable(e.to_string()))?
                .to_bytes();
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
