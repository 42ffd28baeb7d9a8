//! The game server's side of the seamless wallet API (`eldorado_api::seamless`):
//! signed JSON calls to the operator's wallet, each bounded by
//! `--wallet-timeout-ms`. Only HTTP 200 with the expected JSON is an answer;
//! anything else is [`NoAnswer`], which the caller must treat as "the call
//! may or may not have been applied" — except 409, the wallet's final word
//! that it holds this transaction id with another body
//! ([`NoAnswer::Conflict`]): sending it again cannot help.

use crate::config::WalletConfig;
use eldorado_api::seamless::{
    self, BalanceAnswer, BalanceCall, CreditCall, DebitCall, RollbackCall, WalletAnswer,
    SIGNATURE_HEADER,
};
use reqwest::header::CONTENT_TYPE;
use reqwest::{redirect, Client, Response, StatusCode};
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
    #[error("the wallet answered HTTP 409: it holds this transaction id with another body")]
    Conflict,
}

pub struct WalletClient {
    base: String,
    secret: Vec<u8>,
    timeout: Duration,
    /// A client that could not be built answers every call with its reason.
    client: Result<Client, String>,
}

/// The client for `config`: one pool of kept-alive connections, straight to
/// the wallet (no proxy from the environment), following no redirect (only
/// a 200 is an answer). TLS (rustls) trusts the system's roots and the
/// certificates of `--wallet-ca-file`.
pub fn build_client(config: &WalletConfig) -> Result<Client, String> {
    let mut builder = Client::builder().use_rustls_tls();
    if let Some(pem) = &config.ca_pem {
        let certificates = reqwest::Certificate::from_pem_bundle(pem)
            .map_err(|e| format!("--wallet-ca-file: {e}"))?;
        for certificate in certificates {
            builder = builder.add_root_certificate(certificate);
        }
    }
    builder
        .connect_timeout(config.timeout)
        .tcp_nodelay(true)
        .pool_idle_timeout(Duration::from_secs(30))
        .redirect(redirect::Policy::none())
        .no_proxy()
        .build()
        .map_err(|e| format!("--wallet {}: {e}", config.url))
}

impl WalletClient {
    pub fn new(config: &WalletConfig) -> WalletClient {
        WalletClient {
            base: config.url.trim_end_matches('/').to_owned(),
            secret: config.secret.clone(),
            timeout: config.timeout,
            client: build_client(config),
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

    /// One call, counted and timed by route and outcome (`/metrics`).
    async fn call<Q: Serialize, A: DeserializeOwned>(
        &self,
        route: &'static str,
        body: &Q,
    ) -> Result<A, NoAnswer> {
        let started = std::time::Instant::now();
        let answer = self.exchange(route, body).await;
        let outcome = match &answer {
            Ok(_) => "answered",
            Err(NoAnswer::Timeout(_)) => "timeout",
            Err(NoAnswer::Transport(_)) => "unreachable",
            Err(NoAnswer::Status(_)) => "http_error",
            Err(NoAnswer::BadAnswer(_)) => "bad_answer",
            Err(NoAnswer::Conflict) => "conflict",
        };
        metrics::counter!(crate::metrics::WALLET_CALLS, "call" => route, "outcome" => outcome)
            .increment(1);
        metrics::histogram!(crate::metrics::WALLET_SECONDS, "call" => route)
            .record(started.elapsed());
        answer
    }

    async fn exchange<Q: Serialize, A: DeserializeOwned>(
        &self,
        route: &str,
        body: &Q,
    ) -> Result<A, NoAnswer> {
        let client = self
            .client
            .as_ref()
            .map_err(|e| NoAnswer::Transport(e.clone()))?;
        let bytes = serde_json::to_vec(body).map_err(|e| NoAnswer::BadAnswer(e.to_string()))?;
        // Signed over the very bytes sent.
        let signature = seamless::sign(&self.secret, &bytes);
        let request = client
            .post(format!("{}/{route}", self.base))
            .header(CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, signature)
            .body(bytes);
        let exchange = async {
            let response = request
                .send()
                .await
                .map_err(|e| NoAnswer::Transport(error_chain(&e)))?;
            if response.status() == StatusCode::CONFLICT {
                return Err(NoAnswer::Conflict);
            }
            if response.status() != StatusCode::OK {
                return Err(NoAnswer::Status(response.status().as_u16()));
            }
            let body = read_limited(response).await?;
            serde_json::from_slice(&body).map_err(|e| NoAnswer::BadAnswer(e.to_string()))
        };
        // One deadline for connecting, sending and reading the whole answer.
        tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| NoAnswer::Timeout(self.timeout))?
    }
}

/// The answer's body, refused beyond `MAX_ANSWER` bytes.
async fn read_limited(mut response: Response) -> Result<Vec<u8>, NoAnswer> {
    let too_long = || NoAnswer::Transport(format!("answer longer than {MAX_ANSWER} bytes"));
    if response
        .content_length()
        .is_some_and(|n| n > MAX_ANSWER as u64)
    {
        return Err(too_long());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| NoAnswer::Transport(error_chain(&e)))?
    {
        if body.len() + chunk.len() > MAX_ANSWER {
            return Err(too_long());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// reqwest's message with its causes ("error sending request" alone says
/// nothing of a refused connection or a bad certificate).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
