//! The game server's API as the test reads it, straight from the server
//! (never through the tampering proxy): the source of truth that the page
//! is compared with.

use bytes::Bytes;
pub use eldorado_api::{
    BlockInfo, BlockList, BlockStatus, Config, HistoryItem, HistoryPage, SaleResponse, Session,
};
use eldorado_engine::PublicKeyBytes;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;

/// The tampering proxy's client: it forwards hyper's requests as they are.
pub type HttpClient = Client<HttpConnector, http_body_util::Full<Bytes>>;

pub fn http_client() -> HttpClient {
    Client::builder(TokioExecutor::new()).build_http()
}

#[derive(Clone)]
pub struct Api {
    base: String,
    http: reqwest::Client,
}

impl Api {
    pub fn new(base: &str) -> Api {
        Api {
            base: base.trim_end_matches('/').to_owned(),
            http: reqwest::Client::new(),
        }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// Status and body of a GET, or the transport error as text.
    pub async fn get_raw(
        &self,
        path: &str,
        token: Option<&str>,
    ) -> Result<(StatusCode, Bytes), String> {
        self.send(Method::GET, path, token, None).await
    }

    /// Status and body of a POST of `body` (JSON), or the transport error.
    pub async fn post_raw(
        &self,
        path: &str,
        token: Option<&str>,
        body: &serde_json::Value,
    ) -> Result<(StatusCode, Bytes), String> {
        self.send(Method::POST, path, token, Some(body)).await
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        json: Option<&serde_json::Value>,
    ) -> Result<(StatusCode, Bytes), String> {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(json) = json {
            request = request.json(json);
        }
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.map_err(|e| e.to_string())?;
        let status = response.status();
        let body = response.bytes().await.map_err(|e| e.to_string())?;
        Ok((status, body))
    }

    async fn get<T: DeserializeOwned>(&self, path: &str, token: Option<&str>) -> T {
        let (status, body) = self
            .get_raw(path, token)
            .await
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        assert!(
            status.is_success(),
            "GET {path}: {status}: {}",
            String::from_utf8_lossy(&body)
        );
        serde_json::from_slice(&body).unwrap_or_else(|e| {
            panic!(
                "GET {path}: unexpected body ({e}): {}",
                String::from_utf8_lossy(&body)
            )
        })
    }

    pub async fn config(&self) -> Config {
        self.get("/api/config", None).await
    }

    pub async fn public_key(&self) -> PublicKeyBytes {
        let config = self.config().await;
        PublicKeyBytes::from_hex(&config.public_key).expect("operator key in /api/config")
    }

    pub async fn blocks(&self) -> Vec<BlockInfo> {
        self.get::<BlockList>("/api/blocks", None).await.blocks
    }

    /// The block of `stake_cents` on sale now.
    pub async fn open_block(&self, stake_cents: u64) -> BlockInfo {
        let blocks = self.blocks().await;
        let mut open: Vec<BlockInfo> = blocks
            .into_iter()
            .filter(|b| {
                b.status == BlockStatus::Open && b.commitment.commitment.stake_cents == stake_cents
            })
            .collect();
        assert_eq!(
            open.len(),
            1,
            "exactly one open block of {stake_cents} cents"
        );
        open.remove(0)
    }

    pub async fn block(&self, block: u64) -> BlockInfo {
        self.get(&format!("/api/blocks/{block}"), None).await
    }

    pub async fn session(&self, token: &str) -> Session {
        self.get("/api/session", Some(token)).await
    }

    /// The player's sales, newest first.
    pub async fn history(&self, token: &str, limit: u32) -> Vec<HistoryItem> {
        self.get::<HistoryPage>(&format!("/api/history?limit={limit}"), Some(token))
            .await
            .items
    }

    pub async fn sale(&self, token: &str, sale_id: u64) -> SaleResponse {
        self.get(&format!("/api/sales/{sale_id}"), Some(token))
            .await
    }
}
