//! The game server's side of the seamless wallet API (`eldorado_api::seamless`):
//! signed JSON calls to the operator's wallet, each bounded by
//! `--wallet-timeout-ms`. Only HTTP 200 with the expected JSON is an answer;
//! anything else is [`NoAnswer`], which the caller must treat as "the call
//! may or may not have been applied".

use crate::config::WalletConfig;
use bytes::Bytes;
use eldorado_api::seamless::{
    self, BalanceAnswer, BalanceCall, CreditCall, DebitCall, RollbackCall, WalletAnswer,
    SIGNATURE_HEADER,
};
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::CONTENT_TYPE;
use hyper::{Request, StatusCode};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::time::Duration;

/// Largest answer read from the operator: its answers are a few dozen bytes.
const MAX_ANSWER: usize = 16 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum NoAnswer {
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("the wallet could not be reached: {0}")]
    Transport(String),
    #[error("the wallet answered HTTP {0}")]
    Status(u16),
    #[error("the wallet's answer is not the expected JSON: {0}")]
    BadAnswer(String),
}

pub struct WalletClient {
    base: String,
    secret: Vec<u8>,
    timeout: Duration,
    client: Client<HttpConnector, Full<Bytes>>,
}

impl WalletClient {
    pub fn new(config: &WalletConfig) -> WalletClient {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(config.timeout));
        connector.set_nodelay(true);
        WalletClient {
            base: config.url.trim_end_matches('/').to_owned(),
            secret: config.secret.clone(),
            timeout: config.timeout,
            client: Client::builder(TokioExecutor::new())
                .pool_idle_timeout(Duration::from_secs(30))
                .build(connector),
        }
    }

    pub async fn balance(&self, player_id: &str) -> Result<u64, NoAnswer> {
        let call = BalanceCall {
            player_id: player_id.to_owned(),
        };
        let answer: BalanceAnswer = self.call("balance", &call).await?;
        Ok(answer.balance_cents)
    }

    pub async fn debit(&self, call: &DebitCall) -> Result<WalletAnswer, NoAnswer> {
        self.call("debit", call).await
    }

    pub async fn credit(&self, call: &CreditCall) -> Result<WalletAnswer, NoAnswer> {
        self.call("credit", call).await
    }

    pub async fn rollback(&self, call: &RollbackCall) -> Result<WalletAnswer, NoAnswer> {
        self.call("rollback", call).await
    }

    async fn call<Q: Serialize, A: DeserializeOwned>(
        &self,
        route: &str,
        body: &Q,
    ) -> Result<A, NoAnswer> {
        let bytes = serde_json::to_vec(body).map_err(|e| NoAnswer::BadAnswer(e.to_string()))?;
        // Signed over the very bytes sent.
        let signature = seamless::sign(&self.secret, &bytes);
        let request = Request::post(format!("{}/{route}", self.base))
            .header(CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, signature)
            .body(Full::new(Bytes::from(bytes)))
            .map_err(|e| NoAnswer::Transport(e.to_string()))?;
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| NoAnswer::Transport(e.to_string()))?;
            if response.status() != StatusCode::OK {
                return Err(NoAnswer::Status(response.status().as_u16()));
            }
            let body = Limited::new(response.into_body(), MAX_ANSWER)
                .collect()
                .await
                .map_err(|e| NoAnswer::Transport(e.to_string()))?
                .to_bytes();
            serde_json::from_slice(&body).map_err(|e| NoAnswer::BadAnswer(e.to_string()))
        };
        tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| NoAnswer::Timeout(self.timeout))?
    }
}
