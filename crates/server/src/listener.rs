//! The accept loop. `axum::serve` sets no header read timeout and accepts
//! every connection, so a slowloris client could hold the server forever:
//! here hyper closes a connection whose request headers (or next request,
//! on a kept-alive connection) do not arrive within `--header-timeout-ms`,
//! at most `--max-connections` are open at once (the rest wait in the
//! listen backlog), and each request carries the peer address for the
//! per-address rate limits.

use crate::state::AppState;
use axum::extract::{ConnectInfo, Request};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// Pause after a failed accept (e.g. out of file descriptors), so the loop
/// does not spin while the condition lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);
/// Time given to open connections to finish once shutdown starts.
const DRAIN: Duration = Duration::from_secs(10);

pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = state.config.limits.clone();
    let router = crate::app(state);
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    builder.http2().timer(TokioTimer::new());
    let connections = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&connections).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service = router.clone().map_request(move |mut request: Request<_>| {
            request
                .extensions_mut()
                .insert(ConnectInfo::<SocketAddr>(peer));
            request
        });
        let connection = builder
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service))
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, %peer, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open after the drain period were cut");
    }
    Ok(())
}
