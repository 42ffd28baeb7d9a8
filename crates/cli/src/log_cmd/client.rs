//! The public log's HTTP API as the witness and the auditor call it:
//! blocking requests (both run one request at a time), rustls with the
//! system's roots, every failure turned into a sentence.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::Read;
use std::time::Duration;

/// Requests that take longer are abandoned (and retried by the witness).
const TIMEOUT: Duration = Duration::from_secs(30);
/// A block's export is some hundred megabytes.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// Enough of an error answer to tell what went wrong.
const ERROR_BODY_CHARS: usize = 300;

pub struct LogClient {
    base: String,
    http: reqwest::blocking::Client,
}

impl LogClient {
    /// `base` is the server's origin, e.g. `https://eldorado.example`.
    pub fn new(base: &str) -> Result<LogClient, String> {
        let base = base.trim().trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!("{base:?} is not an http:// or https:// URL"));
        }
        let http = reqwest::blocking::Client::builder()
            .timeout(TIMEOUT)
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
        Ok(LogClient {
            base: base.to_owned(),
            http,
        })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn send(
        &self,
        request: reqwest::blocking::RequestBuilder,
        what: &str,
    ) -> Result<reqwest::blocking::Response, String> {
        let response = request.send().map_err(|e| format!("{what}: {e}"))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let body = response.text().unwrap_or_default();
        let body: String = body.chars().take(ERROR_BODY_CHARS).collect();
        Err(format!("{what}: HTTP {status}: {}", body.trim()))
    }

    pub fn get_text(&self, path: &str) -> Result<String, String> {
        let what = format!("GET {path}");
        self.send(self.http.get(self.url(path)), &what)?
            .text()
            .map_err(|e| format!("{what}: {e}"))
    }

    /// `None` when the server answers `absent` (503: nothing to show yet;
    /// 404: no such thing).
    pub fn get_text_unless(
        &self,
        path: &str,
        absent: reqwest::StatusCode,
    ) -> Result<Option<String>, String> {
        let what = format!("GET {path}");
        let response = self
            .http
            .get(self.url(path))
            .send()
            .map_err(|e| format!("{what}: {e}"))?;
        let status = response.status();
        if status == absent {
            return Ok(None);
        }
        let body = response.text().map_err(|e| format!("{what}: {e}"))?;
        if !status.is_success() {
            let body: String = body.chars().take(ERROR_BODY_CHARS).collect();
            return Err(format!("{what}: HTTP {status}: {}", body.trim()));
        }
        Ok(Some(body))
    }

    pub fn get_json<T: DeserializeOwned>(&self, path: &str) -> Result<T, String> {
        parse_json(path, &self.get_text(path)?)
    }

    pub fn post_json<T: Serialize>(&self, path: &str, body: &T) -> Result<(), String> {
        let what = format!("POST {path}");
        let body = serde_json::to_vec(body).map_err(|e| format!("{what}: {e}"))?;
        self.send(
            self.http
                .post(self.url(path))
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body),
            &what,
        )?;
        Ok(())
    }

    /// A long answer read as it arrives (a block's export).
    pub fn get_stream(&self, path: &str) -> Result<impl Read, String> {
        self.send(
            self.http.get(self.url(path)).timeout(EXPORT_TIMEOUT),
            &format!("GET {path}"),
        )
    }
}

pub fn parse_json<T: DeserializeOwned>(path: &str, text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| format!("GET {path}: unexpected answer: {e}"))
}
