//! Eldorado game server: it owns the truth. Wallets, atomic and durable
//! sales of pre-committed tickets, signed sales, reveal progress, history,
//! block disclosure, and the page itself.
//!
//! `app(state)` is the whole HTTP API as a `Router` (tested with
//! `tower::ServiceExt::oneshot`); `serve(config)` runs it on a listener.

pub mod backup;
pub mod blocks;
pub mod built_page;
pub mod client_address;
pub mod clock;
pub mod config;
pub mod console;
pub mod data_dir;
pub mod database;
pub mod dealer;
pub mod early_answers;
pub mod error;
pub mod exports;
mod few_at_a_time;
pub mod keys;
pub mod launches;
mod listener;
pub mod metrics;
pub mod openapi;
pub mod outbox_backoff;
pub mod public_log;
pub mod rate_limit;
pub mod reports;
pub mod routes;
pub mod sales;
pub mod seamless_wallet;
pub mod seed_policy;
pub mod sessions;
pub mod state;
pub mod static_files;
pub mod store;
pub mod wallet_client;

pub use config::Config;
pub use routes::app;
pub use state::AppState;

use std::future::Future;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("data directory: {0}")]
    DataDir(#[from] data_dir::DataDirError),
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
    data_dir::prepare(&config)?;
    let addr = config.addr;
    let state = AppState::start(config).await?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    tracing::info!(addr = %listener.local_addr()?, "eldorado server listening");
    serve_on(listener, state, shutdown).await
}

/// Serves `state` on a bound listener until `shutdown` completes, with the
/// connection limits and the periodic session sweep.
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let sweeper = tokio::spawn(sweep_sessions(state.clone()));
    let sequencer = tokio::spawn(sequence_log(state.clone()));
    let pushers: Vec<_> = state
        .config
        .log
        .witness_urls
        .iter()
        .map(|url| {
            tokio::spawn(public_log::push::push_checkpoints(
                state.clone(),
                url.clone(),
            ))
        })
        .collect();
    let dealer = state.dealer.clone().map(|dealer| {
        tokio::spawn(dealer.run(
            state.store.clone(),
            state.clock.clone(),
            state.log.clone(),
            state.log_kick.clone(),
        ))
    });
    let outbox = state
        .wallet
        .clone()
        .map(|wallet| tokio::spawn(wallet.run_outbox()));
    let served = listener::serve(listener, state, shutdown).await;
    sweeper.abort();
    sequencer.abort();
    for pusher in pushers {
        pusher.abort();
    }
    if let Some(dealer) = dealer {
        dealer.abort();
    }
    if let Some(outbox) = outbox {
        outbox.abort();
    }
    served?;
    Ok(())
}

/// Logs what was stored and signs a checkpoint every
/// `--checkpoint-interval-ms` while this server holds the sequencing lease,
/// and at once after its purchases (a purchase waits for its record, so
/// without the lease too), passes back to back while a backlog remains.
async fn sequence_log(state: AppState) {
    let mut every = tokio::time::interval(state.config.log.checkpoint_interval);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut lease = None;
    loop {
        let kicked = tokio::select! {
            _ = every.tick() => false,
            // A purchase waits for its record before its round.
            _ = state.log_kick.notified() => true,
        };
        // A purchase's pass runs lease or not: the lease is checked (a
        // round trip) on the interval only, not once more per purchase.
        if !kicked {
            let held = lease.take();
            lease = state
                .blocking(move |s| Ok(s.sequencing_lease(held)))
                .await
                .unwrap_or(None);
            metrics::sequencing_lease(lease.is_some());
            if lease.is_none() {
                continue;
            }
        }
        loop {
            let pass = state
                .blocking(|s| s.sequence_log().map_err(error::ApiError::internal))
                .await;
            match pass {
                Ok(public_log::Sequenced::Appended { size, more }) => {
                    tracing::debug!(size, "public log checkpoint signed");
                    state.checkpoint_signed.send_replace(size);
                    if !more {
                        break;
                    }
                }
                Ok(_) => break,
                Err(e) => {
                    tracing::error!(error = %e, "the public log's sequencer failed");
                    break;
                }
            }
        }
    }
}

/// Deletes expired sessions every `--session-sweep-secs`, so the sessions
/// table and the cache hold live sessions only.
async fn sweep_sessions(state: AppState) {
    let mut every = tokio::time::interval(state.config.limits.session_sweep);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        match state.blocking(|s| s.sessions.sweep()).await {
            Ok(0) => {}
            Ok(deleted) => tracing::info!(deleted, "expired sessions deleted"),
            Err(e) => tracing::error!(error = %e, "the session sweep failed"),
        }
    }
}
