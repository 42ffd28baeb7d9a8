//! The answers hyper writes by itself, before any handler runs, when a
//! request head cannot be parsed: `400` (bad syntax: a NUL in the path,
//! a folded header, two different `Content-Length`s), `414` (a URL over
//! 64 KiB) and `431` (too many or too large header fields). hyper gives
//! them an empty body and none of the security headers, and offers no hook
//! to change them; so the connection's writes are watched, and such a head
//! (an HTTP/1 4xx head without the `X-Content-Type-Options` that every
//! answer of the application carries) is replaced by the same status with
//! the error body of docs/PROTOCOL.md, the security headers and
//! `Connection: close` (hyper closes the connection after it).

use eldorado_api::{ErrorBody, ErrorCode};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The marker of the application's own answers (`with_security_headers`).
const APPLICATION_MARK: &[u8] = b"x-content-type-options";

/// What every early answer carries besides its status and body.
pub struct EarlyAnswers {
    headers: String,
}

impl EarlyAnswers {
    /// `csp`: the Content-Security-Policy every answer carries.
    pub fn new(csp: &str) -> EarlyAnswers {
        EarlyAnswers {
            headers: format!(
                "content-type: application/json\r\n\
                 cache-control: no-store\r\n\
                 connection: close\r\n\
                 content-security-policy: {csp}\r\n\
                 x-content-type-options: nosniff\r\n\
                 referrer-policy: no-referrer\r\n\
                 cross-origin-opener-policy: same-origin\r\n"
            ),
        }
    }

    /// The answer to write instead of `written`, when `written` is one of
    /// hyper's own parse-error heads.
    fn replacement(&self, written: &[u8]) -> Option<Vec<u8>> {
        let status = parse_error_status(written)?;
        let message = match status {
            414 => "the request's URL is too long",
            431 => "the request's header fields are too many or too large",
            _ => "the request could not be parsed as HTTP",
        };
        let body = serde_json::to_string(&ErrorBody::new(ErrorCode::BadRequest, message))
            .expect("an error body serializes");
        let reason = match status {
            414 => "URI Too Long",
            431 => "Request Header Fields Too Large",
            _ => "Bad Request",
        };
        Some(
            format!(
                "HTTP/1.1 {status} {reason}\r\n{}content-length: {}\r\n\r\n{body}",
                self.headers,
                body.len()
            )
            .into_bytes(),
        )
    }
}

/// The status of `written` if it is a whole HTTP/1 head of hyper's parse
/// errors (400, 414, 431) that the application did not make.
fn parse_error_status(written: &[u8]) -> Option<u16> {
    let rest = written
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| written.strip_prefix(b"HTTP/1.0 "))?;
    let status: u16 = std::str::from_utf8(rest.get(..3)?).ok()?.parse().ok()?;
    if !matches!(status, 400 | 414 | 431) {
        return None;
    }
    let end = written.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = written[..end].to_ascii_lowercase();
    let ours = head
        .windows(APPLICATION_MARK.len())
        .any(|w| w == APPLICATION_MARK);
    (!ours).then_some(status)
}

/// A connection whose parse-error answers are replaced (see the module).
pub struct AnswerParseErrors<T> {
    inner: T,
    answers: Arc<EarlyAnswers>,
    /// A replacement being written, and how many bytes of hyper's write it
    /// stands for (told once it is all written).
    pending: Option<Pending>,
}

struct Pending {
    bytes: Vec<u8>,
    written: usize,
    stands_for: usize,
}

impl<T> AnswerParseErrors<T> {
    pub fn new(inner: T, answers: Arc<EarlyAnswers>) -> Self {
        AnswerParseErrors {
            inner,
            answers,
            pending: None,
        }
    }
}

impl<T: AsyncWrite + Unpin> AnswerParseErrors<T> {
    fn write_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let Some(pending) = self.pending.as_mut() else {
            return Poll::Ready(Ok(0));
        };
        while pending.written < pending.bytes.len() {
            let n = ready!(
                Pin::new(&mut self.inner).poll_write(cx, &pending.bytes[pending.written..])
            )?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            pending.written += n;
        }
        let stands_for = pending.stands_for;
        self.pending = None;
        Poll::Ready(Ok(stands_for))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for AnswerParseErrors<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for AnswerParseErrors<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.pending.is_none() {
            match this.answers.replacement(buf) {
                Some(bytes) => {
                    this.pending = Some(Pending {
                        bytes,
                        written: 0,
                        stands_for: buf.len(),
                    })
                }
                None => return Pin::new(&mut this.inner).poll_write(cx, buf),
            }
        }
        this.write_pending(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.pending.is_none() {
            // hyper queues a head in a slice of its own, first.
            let first = bufs.iter().find(|b| !b.is_empty());
            match first.and_then(|b| this.answers.replacement(b)) {
                Some(bytes) => {
                    this.pending = Some(Pending {
                        bytes,
                        written: 0,
                        stands_for: bufs.iter().map(|b| b.len()).sum(),
                    })
                }
                None => return Pin::new(&mut this.inner).poll_write_vectored(cx, bufs),
            }
        }
        this.write_pending(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.pending.is_some() {
            ready!(this.write_pending(cx))?;
        }
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.pending.is_some() {
            ready!(this.write_pending(cx))?;
        }
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hypers_own_parse_error_heads_are_replaced() {
        let hypers =
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        assert_eq!(parse_error_status(hypers), Some(431));
        let ours = b"HTTP/1.1 400 Bad Request\r\nX-Content-Type-Options: nosniff\r\n\r\n{}";
        assert_eq!(parse_error_status(ours), None);
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(parse_error_status(ok), None);
        let body_only = b"{\"error\":{}}";
        assert_eq!(parse_error_status(body_only), None);
        let partial = b"HTTP/1.1 414 URI Too Long\r\ncontent-len";
        assert_eq!(parse_error_status(partial), None);
    }

    #[test]
    fn a_replacement_keeps_the_status_and_the_contract() {
        let answers = EarlyAnswers::new("default-src 'none'");
        let bytes = answers
            .replacement(b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\n\r\n")
            .unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{head}");
        assert!(head.contains("x-content-type-options: nosniff"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let body: ErrorBody = serde_json::from_str(body).unwrap();
        assert_eq!(body.error.code, ErrorCode::BadRequest.as_str());
    }
}
