//! `eldorado beacon`: a randomness beacon of drand's quicknet scheme in a
//! process of its own, with its own key, for deployments and demos that
//! do not use the League of Entropy's. It publishes round `r` at
//! `genesis + (r - 1) × period` and answers drand's `GET /info`,
//! `/public/latest` and `/public/{round}`.

use crate::beacon::routes::{self, Beacon};
use crate::beacon::Signer;
use clap::Args;
use eldorado_engine::deal::BeaconClock;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Args)]
pub struct BeaconArgs {
    /// The beacon's secret: 64 hex digits, created (mode 0600) if missing.
    #[arg(long, value_name = "FILE")]
    key_file: PathBuf,
    /// Milliseconds between two rounds.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..=3_600_000), value_name = "MS")]
    period_ms: u64,
    /// When round 1 is published, in milliseconds since the Unix epoch.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    genesis_ms: u64,
    /// Where to serve the rounds.
    #[arg(long, default_value = "127.0.0.1:8091", value_name = "ADDR")]
    listen: SocketAddr,
}

pub fn run(args: BeaconArgs) -> Result<ExitCode, String> {
    crate::logging::init();
    let secret = eldorado_server::keys::secret_file(&args.key_file).map_err(|e| e.to_string())?;
    let signer = Signer::from_secret(secret);
    println!("beacon key: {}", hex::encode(signer.public_key()));
    let beacon = Arc::new(Beacon {
        signer,
        clock: BeaconClock {
            genesis_ms: args.genesis_ms,
            period_ms: args.period_ms,
        },
        now_ms: eldorado_server::clock::system_now_ms,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the beacon's runtime: {e}"))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("--listen {}: {e}", args.listen))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        println!("beacon listening on http://{bound}");
        // Whoever started the beacon reads these lines before anything else.
        let _ = std::io::stdout().flush();
        axum::serve(listener, routes::router(beacon))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| format!("the beacon stopped: {e}"))
    })?;
    Ok(ExitCode::SUCCESS)
}
