//! `eldorado serve`: the game server.

use clap::Args;
use eldorado_server::database::Database;
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
    /// The store: sqlite:PATH (default: DATA/eldorado.sqlite3, one server)
    /// or postgres://USER[:PASSWORD]@HOST[:PORT][,HOST2[:PORT2]]/DB, shared
    /// by every server of a deployment (add ?target_session_attrs=read-write
    /// with several hosts to follow a failover).
    #[arg(long, value_parser = Database::parse)]
    database: Option<Database>,
    /// Most connections this server keeps to a PostgreSQL database.
    #[arg(long, default_value_t = 16)]
    pool_size: u32,
    /// The operator's Ed25519 key file (64 hex digits, mode 0600; created
    /// if missing). Give every server of a deployment the same file, or
    /// none with PostgreSQL: the key is then kept in the database.
    #[arg(long)]
    key_file: Option<PathBuf>,
    /// With PostgreSQL: how often (ms) to re-read which blocks are on sale,
    /// which other servers change.
    #[arg(long, default_value_t = 1000)]
    block_poll_ms: u64,
    /// Directory holding index.html and www/ (the repository root).
    #[arg(long, default_value = ".")]
    web: PathBuf,
    /// Turn demo mode off: no play-money players from the page.
    #[arg(long)]
    no_demo: bool,
    /// TESTS ONLY: derive every block from this number, so that the ticket
    /// sequence is known in advance. Refused unless demo mode is on.
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
    config.demo = !args.no_demo;
    config.demo_seed = args.demo_seed;
    config.max_batch = args.max_batch;
    config.frame_ancestors = args.frame_ancestors;
    config.database = args.database;
    config.pool_size = args.pool_size;
    config.key_file = args.key_file;
    config.block_poll = std::time::Duration::from_millis(args.block_poll_ms);
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
