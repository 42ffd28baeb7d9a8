//! The public log's HTTP API as the witness and the auditor call it:
//! blocking requests (both run one request at a time), rustls with the
//! system's roots, every failure turned into a sentence. The auditor also
//! waits out a busy server (`retrying_for`); the witness does not, as it
//! retries at its next poll anyway.

use reqwest::blocking::{RequestBuilder, Response};
use reqwest::StatusCode;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::Read;
use std::time::{Duration, Instant};

/// Requests that take longer are abandoned (and retried by the witness).
const TIMEOUT: Duration = Duration::from_secs(30);
/// A block's export is some hundred megabytes.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// Enough of an error answer to tell what went wrong.
const ERROR_BODY_CHARS: usize = 300;
/// The first wait after a busy answer without `Retry-After`; it doubles.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
/// The shortest wait, whatever `Retry-After` asks: never a busy loop.
const SHORTEST_WAIT: Duration = Duration::from_millis(100);
/// The longest single wait, whatever `Retry-After` asks.
const LONGEST_WAIT: Duration = Duration::from_secs(10);

pub struct LogClient {
    base: String,
    http: reqwest::blocking::Client,
    /// How long a request answered busy (429, 503) is tried again.
    retry_for: Duration,
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
            retry_for: Duration::ZERO,
        })
    }

    /// Requests answered 429 or 503 are sent again, as their `Retry-After`
    /// says (else after 1 s, doubling up to 10 s), until `limit` has passed
    /// since the first attempt; then the busy answer is the failure. A
    /// server writes a block's export on its first request, which on a
    /// loaded server can outlast the request's timeout (503 `TIMEOUT`): the
    /// writing goes on, and a later request streams the file.
    pub fn retrying_for(mut self, limit: Duration) -> LogClient {
        self.retry_for = limit;
        self
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends `request`, again while the server answers busy (other than
    /// with `absent`, which means something to the caller) and the retry
    /// time allows.
    fn send_retrying(
        &self,
        request: RequestBuilder,
        what: &str,
        absent: Option<StatusCode>,
    ) -> Result<Response, String> {
        let started = Instant::now();
        let mut backoff = FIRST_BACKOFF;
        loop {
            let attempt = request
                .try_clone()
                .ok_or_else(|| format!("{what}: the request cannot be sent again"))?;
            let response = attempt.send().map_err(|e| format!("{what}: {e}"))?;
            let status = response.status();
            if !is_busy(status) || Some(status) == absent {
                return Ok(response);
            }
            let wait = retry_after(&response)
                .unwrap_or(backoff)
                .clamp(SHORTEST_WAIT, LONGEST_WAIT);
            if started.elapsed() + wait > self.retry_for {
                return Ok(response);
            }
            tracing::warn!(request = what, %status, wait_ms = wait.as_millis() as u64, "the server is busy; trying again");
            std::thread::sleep(wait);
            backoff = (backoff * 2).min(LONGEST_WAIT);
        }
    }

    fn send(&self, request: RequestBuilder, what: &str) -> Result<Response, String> {
        let response = self.send_retrying(request, what, None)?;
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
        let response = self.send_retrying(self.http.get(self.url(path)), &what, Some(absent))?;
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

    /// The body's bytes exactly as sent when asking for `accept_encoding`
    /// (never decoded), and the answer's `Content-Encoding`, if any.
    pub fn get_bytes_encoded(
        &self,
        path: &str,
        accept_encoding: &str,
    ) -> Result<(Vec<u8>, Option<String>), String> {
        let what = format!("GET {path} (Accept-Encoding: {accept_encoding})");
        let response = self.send(
            self.http
                .get(self.url(path))
                .header(reqwest::header::ACCEPT_ENCODING, accept_encoding),
            &what,
        )?;
        let encoding = response
            .headers()
            .get(reqwest::header::CONTENT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let bytes = response.bytes().map_err(|e| format!("{what}: {e}"))?;
        Ok((bytes.to_vec(), encoding))
    }

    /// A long answer read as it arrives (a block's export).
    pub fn get_stream(&self, path: &str) -> Result<impl Read, String> {
        self.send(
            self.http.get(self.url(path)).timeout(EXPORT_TIMEOUT),
            &format!("GET {path}"),
        )
    }
}

/// 429 (too many requests) and 503 (overloaded, timed out, not ready):
/// answers that say "later", not "no".
fn is_busy(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE
}

/// `Retry-After` in seconds (the server never sends an HTTP date).
fn retry_after(response: &Response) -> Option<Duration> {
    let value = response.headers().get(reqwest::header::RETRY_AFTER)?;
    let secs: u64 = value.to_str().ok()?.trim().parse().ok()?;
    Some(Duration::from_secs(secs))
}

pub fn parse_json<T: DeserializeOwned>(path: &str, text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| format!("GET {path}: unexpected answer: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn answer(status: &str, retry_after: Option<u64>, body: &str) -> String {
        let retry_after = retry_after.map_or(String::new(), |s| format!("Retry-After: {s}\r\n"));
        format!(
            "HTTP/1.1 {status}\r\n{retry_after}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    }

    /// A server giving `answers` in turn, one per connection, and counting
    /// the requests it read; it closes after the last.
    fn scripted(answers: Vec<String>) -> (String, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for answer in answers {
                let (stream, _) = listener.accept().unwrap();
                let mut reader = BufReader::new(stream);
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap() > 0 && line != "\r\n" {
                    line.clear();
                }
                seen.fetch_add(1, Ordering::SeqCst);
                reader.get_mut().write_all(answer.as_bytes()).unwrap();
            }
        });
        (url, requests)
    }

    #[test]
    fn busy_answers_are_sent_again_until_one_is_not() {
        let (url, requests) = scripted(vec![
            answer(
                "503 Service Unavailable",
                Some(0),
                r#"{"error":{"code":"TIMEOUT"}}"#,
            ),
            answer("429 Too Many Requests", None, ""),
            answer("200 OK", None, "the export"),
        ]);
        let client = LogClient::new(&url)
            .unwrap()
            .retrying_for(Duration::from_secs(60));
        assert_eq!(
            client.get_text("/api/blocks/1/export").unwrap(),
            "the export"
        );
        assert_eq!(requests.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn without_retry_time_a_busy_answer_is_the_failure() {
        let (url, requests) = scripted(vec![answer(
            "503 Service Unavailable",
            Some(0),
            r#"{"error":{"code":"TIMEOUT"}}"#,
        )]);
        let error = LogClient::new(&url)
            .unwrap()
            .get_text("/api/blocks/1/export")
            .unwrap_err();
        assert!(
            error.contains("503") && error.contains("TIMEOUT"),
            "{error}"
        );
        assert_eq!(requests.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_failure_that_is_not_busy_is_not_sent_again() {
        let (url, requests) = scripted(vec![
            answer("500 Internal Server Error", None, "broken"),
            answer("200 OK", None, "too late"),
        ]);
        let client = LogClient::new(&url)
            .unwrap()
            .retrying_for(Duration::from_secs(60));
        let error = client.get_text("/api/log/checkpoint").unwrap_err();
        assert!(error.contains("500"), "{error}");
        assert_eq!(requests.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn the_status_that_means_absent_is_an_answer_not_a_busy_server() {
        let (url, requests) = scripted(vec![answer(
            "503 Service Unavailable",
            Some(0),
            r#"{"error":{"code":"LOG_UNAVAILABLE"}}"#,
        )]);
        let client = LogClient::new(&url)
            .unwrap()
            .retrying_for(Duration::from_secs(60));
        let got = client
            .get_text_unless("/api/log/checkpoint", StatusCode::SERVICE_UNAVAILABLE)
            .unwrap();
        assert_eq!(got, None);
        assert_eq!(requests.load(Ordering::SeqCst), 1);
    }
}
