//! `eldorado-portal`: an example operator for Eldorado, to read and to run
//! (scripts/portal.sh), not to deploy. Players log in with a name only, hold
//! their money in this program's SQLite database, and play the game in an
//! iframe; the game server takes and pays their money through the seamless
//! wallet API at `/wallet/...` (docs/OPERATOR.md).

mod db;
mod error;
mod game;
mod page;
mod players;
mod wallet;

use axum::extract::DefaultBodyLimit;
use axum::http::Uri;
use axum::Router;
use clap::Parser;
use db::Db;
use game::GameServer;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "eldorado-portal",
    about = "An example operator portal for Eldorado (no passwords: not for production)"
)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8090")]
    addr: SocketAddr,
    /// This portal's URL as browsers reach it (the game's « Lobby » link
    /// leads there); default http://ADDR.
    #[arg(long)]
    public_url: Option<String>,
    /// The game server's URL for this back end's calls (http only).
    #[arg(long, default_value = "http://localhost:8080")]
    game_url: String,
    /// The game server's URL as browsers reach it (the iframe's origin);
    /// default: --game-url.
    #[arg(long)]
    game_public_url: Option<String>,
    /// File holding the game server's operator API key.
    #[arg(long)]
    operator_key_file: PathBuf,
    /// File holding the wallet secret shared with the game server
    /// (`eldorado serve --wallet-secret-file`).
    #[arg(long)]
    wallet_secret_file: PathBuf,
    /// This portal's SQLite database (created if missing).
    #[arg(long, default_value = "./portal.sqlite3")]
    database: PathBuf,
    /// Money a new player starts with.
    #[arg(long, default_value_t = 2_000)]
    starting_balance_cents: u64,
    /// Largest single deposit at the cashier.
    #[arg(long, default_value_t = 100_000)]
    max_deposit_cents: u64,
    /// How long a log-in lasts.
    #[arg(long, default_value_t = 86_400)]
    session_ttl_secs: u64,
    /// Milliseconds to wait for the game server's answer.
    #[arg(long, default_value_t = 5_000)]
    game_timeout_ms: u64,
    /// Largest request body accepted, in bytes.
    #[arg(long, default_value_t = 16 * 1024)]
    max_body_bytes: usize,
}

/// What every route shares.
#[derive(Clone)]
pub struct App {
    db: Db,
    game: GameServer,
    wallet_secret: Arc<Vec<u8>>,
    public_url: String,
    game_origin: String,
    starting_balance_cents: u64,
    max_deposit_cents: u64,
    session_ttl: Duration,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("eldorado-portal: {e}");
            ExitCode::FAILURE
        }
    }
}

fn read_secret(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    let content = std::fs::read(path)
        .map_err(|e| format!("cannot read the {what} {}: {e}", path.display()))?;
    let secret = eldorado_api::seamless::secret_from_file_content(&content).to_vec();
    if secret.is_empty() {
        return Err(format!("the {what} {} is empty", path.display()));
    }
    Ok(secret)
}

/// `scheme://host[:port]` of an http(s) URL.
fn origin(url: &str) -> Result<String, String> {
    let uri: Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
    match (uri.scheme_str(), uri.authority()) {
        (Some(scheme @ ("http" | "https")), Some(authority)) => {
            Ok(format!("{scheme}://{authority}"))
        }
        _ => Err(format!("{url} is not an http(s) URL")),
    }
}

/// Every route of the portal: its page, its players' API, the wallet.
fn router(app: App, max_body_bytes: usize) -> Router {
    Router::new()
        .merge(page::routes())
        .merge(players::routes())
        .merge(wallet::routes())
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .with_state(app)
}

fn run(args: Args) -> Result<(), String> {
    if args.max_deposit_cents == 0 || args.session_ttl_secs == 0 || args.game_timeout_ms == 0 {
        return Err(
            "--max-deposit-cents, --session-ttl-secs and --game-timeout-ms must be at least 1"
                .into(),
        );
    }
    if !args.game_url.starts_with("http://") {
        return Err(format!(
            "--game-url {}: this example calls the game server over plain http only",
            args.game_url
        ));
    }
    let api_key = String::from_utf8(read_secret(&args.operator_key_file, "operator key file")?)
        .map_err(|_| "the operator key file is not text".to_owned())?;
    let wallet_secret = read_secret(&args.wallet_secret_file, "wallet secret file")?;
    let public_url = args
        .public_url
        .unwrap_or_else(|| format!("http://{}", args.addr));
    let public_url = public_url.trim_end_matches('/').to_owned();
    origin(&public_url)?;
    let game_origin = origin(args.game_public_url.as_deref().unwrap_or(&args.game_url))?;
    let db = Db::open(&args.database)
        .map_err(|e| format!("cannot open {}: {e}", args.database.display()))?;
    let app = App {
        db,
        game: GameServer::new(
            &args.game_url,
            api_key.trim(),
            Duration::from_millis(args.game_timeout_ms),
        )?,
        wallet_secret: Arc::new(wallet_secret),
        public_url: public_url.clone(),
        game_origin,
        starting_balance_cents: args.starting_balance_cents,
        max_deposit_cents: args.max_deposit_cents,
        session_ttl: Duration::from_secs(args.session_ttl_secs),
    };
    let router = router(app, args.max_body_bytes);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.addr))?;
        tracing::info!(addr = %args.addr, url = %public_url, "example portal listening");
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| format!("the portal stopped: {e}"))
    })
}

#[cfg(test)]
mod tests;
