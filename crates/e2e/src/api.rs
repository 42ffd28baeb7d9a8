//! The game server's API as the test reads it, straight from the server
//! (never through the tampering proxy): the source of truth that the page
//! is compared with.

use bytes::Bytes;
pub use eldorado_api::{
    BlockInfo, BlockList, BlockStatus, Config, HistoryItem, HistoryPage, SaleResponse, Session,
};
use eldorado_engine::PublicKeyBytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde::de::DeserializeOwned;

pub type HttpClient = Client<HttpConnector, Full<Bytes>>;

pub fn http_client() -> HttpClient {
    Client::builder(TokioExecutor::new()).build_http()
}

#[derive(Clone)]
pub struct Api {
    base: String,
    http: HttpClient,
}

impl Api {
    pub fn new(base: &str) -> Api {
        Api {
            base: base.trim_end_matches('/').to_owned(),
            http: http_client(),
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
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base));
        if json.is_some() {
            request = request.header("content-type", "application/json");
        }
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let body = json.map_or_else(Bytes::new, |json| Bytes::from(json.to_string()));
        let request = request.body(Full::new(body)).map_err(|e| e.to_string())?;
        let response = self
            .http
            .request(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
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
