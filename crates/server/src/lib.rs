//! Eldorado game server: it owns the truth. Wallets, atomic and durable
//! sales of pre-committed tickets, signed sales, reveal progress, history,
//! block disclosure, and the page itself.
//!
//! `app(state)` is the whole HTTP API as a `Router` (tested with
//! `tower::ServiceExt::oneshot`); `serve(config)` runs it on a listener.

pub mod blocks;
pub mod clock;
pub mod config;
pub mod database;
pub mod error;
pub mod keys;
pub mod openapi;
pub mod routes;
pub mod sales;
pub mod sessions;
pub mod state;
pub mod static_files;
pub mod store;

pub use config::Config;
pub use routes::app;
pub use state::AppState;

use std::future::Future;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error(transparent)]
    Start(#[from] state::StartError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error("the server stopped: {0}")]
    Io(#[from] std::io::Error),
}

/// Opens the data directory, prepares blocks and serves until `shutdown`
/// completes.
pub async fn serve(
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    config.check().map_err(ServeError::Config)?;
    let addr = config.addr;
    let state = AppState::start(config).await?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    tracing::info!(addr = %listener.local_addr()?, "eldorado server listening");
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown)
        .await?;
    Ok(())
}
