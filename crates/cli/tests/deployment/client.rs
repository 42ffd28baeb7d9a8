//! The tests' JSON-over-HTTP client (reqwest's pooled client).

use crate::servers::API_KEY;
use reqwest::{Method, StatusCode};
use serde_json::Value;
use std::time::Duration;

/// Longest a request may take before it counts as failed.
const TIMEOUT: Duration = Duration::from_secs(30);
/// Longest a purchase may wait for its deal, its retries included.
const DEAL_PATIENCE: Duration = Duration::from_secs(60);

#[derive(Clone)]
pub struct Http(reqwest::Client);

impl Http {
    pub fn new() -> Http {
        let client = reqwest::Client::builder().timeout(TIMEOUT).build();
        Http(client.expect("an HTTP client"))
    }

    /// Status and JSON body, or the transport failure as text.
    pub async fn send(
        &self,
        method: Method,
        url: &str,
        token: Option<&str>,
        body: Option<String>,
    ) -> Result<(StatusCode, Value), String> {
        let mut request = self.0.request(method, url);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body);
        }
        let response = request.send().await.map_err(|e| format!("{url}: {e}"))?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| format!("{url}: {e}"))?;
        Ok((
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        ))
    }

    pub async fn get(&self, url: &str, token: Option<&str>) -> Result<(StatusCode, Value), String> {
        self.send(Method::GET, url, token, None).await
    }

    pub async fn post(
        &self,
        url: &str,
        token: Option<&str>,
        body: &str,
    ) -> Result<(StatusCode, Value), String> {
        self.send(Method::POST, url, token, Some(body.to_owned()))
            .await
    }

    /// A sale by the beacon, sent again with the same body (so the same
    /// idempotency key) while it is answered `DEAL_PENDING`, as the page
    /// does: on a loaded machine a round can come later than the server's
    /// `--deal-wait-ms`. Gives up after `DEAL_PATIENCE` and returns the last
    /// answer.
    pub async fn buy_until_dealt(
        &self,
        url: &str,
        token: &str,
        body: &str,
    ) -> Result<(StatusCode, Value), String> {
        let started = std::time::Instant::now();
        loop {
            let (status, reply) = self.post(url, Some(token), body).await?;
            let pending = status == StatusCode::SERVICE_UNAVAILABLE
                && reply["error"]["code"] == "DEAL_PENDING";
            if !pending || started.elapsed() >= DEAL_PATIENCE {
                return Ok((status, reply));
            }
            // The server's Retry-After.
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    /// The server's `/metrics` text, or the failure.
    pub async fn metrics(&self, base: &str) -> Result<String, String> {
        let url = format!("{base}/metrics");
        let response = self.0.get(&url).bearer_auth(API_KEY).send().await;
        let response = response.map_err(|e| format!("{url}: {e}"))?;
        response.text().await.map_err(|e| format!("{url}: {e}"))
    }

    /// An operator (real-money) player `player_id` opened on the server at
    /// `base` and credited `cents`; returns its session token. The servers
    /// of a deployment run without `--demo`, so demo players are refused
    /// there, as in production.
    pub async fn operator_player(&self, base: &str, player_id: &str, cents: u64) -> String {
        let (status, session) = self
            .post(
                &format!("{base}/api/operator/sessions"),
                Some(API_KEY),
                &format!(r#"{{"player_id":"{player_id}"}}"#),
            )
            .await
            .unwrap();
        assert_eq!(status, StatusCode::CREATED, "{session}");
        let (status, balance) = self
            .post(
                &format!("{base}/api/operator/players/{player_id}/credit"),
                Some(API_KEY),
                &format!(r#"{{"amount_cents":{cents},"reference":"start-{player_id}"}}"#),
            )
            .await
            .unwrap();
        assert_eq!(status, StatusCode::OK, "{balance}");
        assert_eq!(balance["balance_cents"], cents);
        session["token"].as_str().unwrap().to_owned()
    }
}
