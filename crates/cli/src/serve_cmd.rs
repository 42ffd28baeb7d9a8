//! `eldorado serve`: the game server.

use clap::Args;
use eldorado_server::Config;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Directory of the SQLite database and the operator keys.
    #[arg(long, default_value = "./data")]
    data: PathBuf,
    /// Directory holding index.html and www/ (the repository root).
    #[arg(long, default_value = ".")]
    web: PathBuf,
    /// Demo mode: the page may create play-money players, who play from
    /// play-money blocks of their own. Without it the server sells real
    /// money only.
    #[arg(long)]
    demo: bool,
    /// TESTS AND DEMOS ONLY: derive every block from this number, so that
    /// the ticket sequence is known in advance. Needs --demo; no real-money
    /// block is generated, and a data directory holding operator players or
    /// real-money blocks is refused.
    #[arg(long)]
    demo_seed: Option<u64>,
    /// Most sales committed in one transaction (group commit).
    #[arg(long, default_value_t = 512)]
    max_batch: usize,
    /// Who may embed the game in an iframe: CSP frame-ancestors sources,
    /// e.g. "'self' https://portal.example".
    #[arg(long, default_value = "'self'")]
    frame_ancestors: String,
}

pub fn run(args: ServeArgs) -> Result<ExitCode, String> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let mut config = Config::new(args.data);
    config.addr = args.addr;
    config.web_dir = args.web;
    config.demo = args.demo;
    config.demo_seed = args.demo_seed;
    config.max_batch = args.max_batch;
    config.frame_ancestors = args.frame_ancestors;
    config.check()?;
    if let Some(seed) = config.demo_seed {
        eprintln!(
            "eldorado: WARNING: --demo-seed {seed}: every ticket is predictable. \
             NOT FOR PRODUCTION: tests and demos only."
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime
        .block_on(eldorado_server::serve(config, async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("shutting down");
        }))
        .map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}
