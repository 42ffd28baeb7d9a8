//! `eldorado witness`: a separate process that watches the public log and
//! cosigns its checkpoints as long as the log only ever grows (see
//! `witness/` for the decisions). Exit status: 0 after `--once` (also when
//! the log rolled back: it is told and waited for), 2 for a usage, key or
//! state error, 3 when it saw a fork (now or before).

use crate::log_cmd::client::LogClient;
use crate::witness::publication::Publication;
use crate::witness::status::{self, SharedStatus};
use crate::witness::{
    settle_log_key, FetchError, Fork, LogKeyError, LogSource, Pass, PassError, SharedPublication,
    StateDir, Witness,
};
use clap::Args;
use eldorado_api::{ConsistencyProof, CosignatureSubmission};
use eldorado_engine::commit::signing_key_from_secret;
use eldorado_engine::transparency::Cosigner;
use eldorado_engine::SigningKey;
use eldorado_server::clock::system_now_ms;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const FORK_EXIT: u8 = 3;

#[derive(Args)]
pub struct WitnessArgs {
    /// The log's server, e.g. https://eldorado.example.
    #[arg(long, value_name = "URL")]
    log: String,
    /// The witness's secret key: 64 hex digits, created (mode 0600) if missing.
    #[arg(long, value_name = "FILE")]
    key_file: PathBuf,
    /// Where the witness keeps the pinned log key, what it cosigned and any fork.
    #[arg(long, value_name = "DIR")]
    state: PathBuf,
    /// The witness's key name (default: witness-<first 8 hex of its public key>).
    #[arg(long)]
    name: Option<String>,
    /// Milliseconds between two looks at the log.
    #[arg(long, default_value_t = 500, value_name = "MS")]
    poll_ms: u64,
    /// Serve GET /status on this address (200, or 503 after a fork).
    #[arg(long, value_name = "ADDR")]
    listen: Option<SocketAddr>,
    /// The log's verifier key; default: the one the log announced first (pinned).
    #[arg(long, value_name = "VKEY")]
    log_key: Option<String>,
    /// One pass, then exit.
    #[arg(long)]
    once: bool,
}

pub fn run(args: WitnessArgs) -> Result<ExitCode, String> {
    crate::logging::init();
    let cosigner = cosigner(&args)?;
    println!("witness key: {}", cosigner.witness_key().vkey());
    // Whoever runs the witness reads this line before anything else happens.
    let _ = std::io::stdout().flush();
    let state = StateDir::open(&args.state).map_err(|e| e.to_string())?;
    let log = HttpLog(LogClient::new(&args.log)?);
    // A fork seen before is final: no network, no key, just the refusal.
    if let Some(fork) = state.fork().map_err(|e| e.to_string())? {
        eprintln!("{}", fork.line());
        return refuse_forever(&args, &state, fork);
    }
    let Some(log_key) = wait_for_log_key(&args, &state, &log)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let witness = Witness::open(state, log_key, cosigner).map_err(|e| e.to_string())?;
    match witness.last() {
        Some(last) => {
            tracing::info!(size = last.size, root = %last.root, "resuming after the last checkpoint cosigned")
        }
        None => tracing::info!("no checkpoint cosigned yet: the first one is trusted as it comes"),
    }
    let shared = Arc::new(Mutex::new(witness.status()));
    let published = witness.publication();
    // The pull loop and the pushes (`POST /add-checkpoint`) take turns.
    let witness = Arc::new(Mutex::new(witness));
    let _server = args
        .listen
        .map(|addr| {
            let pushed = status::Pushed {
                witness: witness.clone(),
                status: shared.clone(),
            };
            serve_status(addr, shared.clone(), published.clone(), Some(pushed))
        })
        .transpose()?;
    let mut last_error = None;
    loop {
        let pass = {
            let mut witness = witness.lock().unwrap_or_else(|p| p.into_inner());
            let pass = witness.pass(&log, system_now_ms());
            *shared.lock().unwrap_or_else(|p| p.into_inner()) = witness.status();
            pass
        };
        match pass {
            Ok(Pass::Cosigned { size, posted }) => {
                tracing::info!(size, "cosigned the log's checkpoint");
                if let Err(e) = posted {
                    report(
                        &mut last_error,
                        format!("the log did not take the cosignature: {e}"),
                    );
                } else {
                    last_error = None;
                }
            }
            Ok(Pass::Unchanged { size }) => {
                tracing::debug!(size, "the log has not grown");
                last_error = None;
            }
            Ok(Pass::Behind {
                cosigned,
                offered,
                told,
            }) => {
                let told = match told {
                    Ok(()) => "the log took it".to_owned(),
                    Err(e) => format!("the log answered: {e}"),
                };
                report(
                    &mut last_error,
                    format!(
                        "the log rolled back to a smaller tree ({offered} records, {cosigned} \
                         cosigned): not cosigned; showed it the checkpoint cosigned last ({told})"
                    ),
                );
            }
            Ok(Pass::ForkDetected(fork, told)) => {
                eprintln!("{}", fork.line());
                if let Err(e) = told {
                    tracing::warn!(error = %e, "could not show the log the checkpoint cosigned last");
                }
                return refuse_after_fork(&args);
            }
            Ok(Pass::Refusing) => return refuse_after_fork(&args),
            Err(PassError::State(e)) => return Err(e.to_string()),
            Err(PassError::Cosign(e)) => return Err(format!("cannot cosign: {e}")),
            Err(e @ (PassError::Fetch(_) | PassError::Checkpoint(_))) => {
                report(&mut last_error, e.to_string());
            }
        }
        if args.once {
            return Ok(ExitCode::SUCCESS);
        }
        std::thread::sleep(Duration::from_millis(args.poll_ms));
    }
}

/// Warns once per distinct failure: a log that stays down for an hour
/// does not fill the journal twice a second.
fn report(last_error: &mut Option<String>, error: String) {
    if last_error.as_deref() == Some(error.as_str()) {
        tracing::debug!(%error, "still failing; retrying at the next poll");
    } else {
        tracing::warn!(%error, "retrying at the next poll");
        *last_error = Some(error);
    }
}

fn cosigner(args: &WitnessArgs) -> Result<Cosigner, String> {
    let secret = eldorado_server::keys::secret_file(&args.key_file).map_err(|e| e.to_string())?;
    let signing = signing_key_from_secret(secret);
    let name = match &args.name {
        Some(name) => name.clone(),
        None => default_name(&signing),
    };
    Cosigner::new(&name, signing).map_err(|e| format!("--name {name:?}: {e}"))
}

fn default_name(key: &SigningKey) -> String {
    format!(
        "witness-{}",
        &hex::encode(key.verifying_key().as_bytes())[..8]
    )
}

/// The log key, waiting for the log to answer when it must be learnt from
/// it; `None` when `--once` found the log unreachable.
fn wait_for_log_key(
    args: &WitnessArgs,
    state: &StateDir,
    log: &HttpLog,
) -> Result<Option<eldorado_engine::transparency::LogKey>, String> {
    let mut last_error = None;
    loop {
        match settle_log_key(state, args.log_key.as_deref(), log) {
            Ok(key) => return Ok(Some(key)),
            Err(LogKeyError::Fetch(e)) => report(&mut last_error, e.to_string()),
            Err(e) => return Err(e.to_string()),
        }
        if args.once {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(args.poll_ms));
    }
}

fn refuse_forever(args: &WitnessArgs, state: &StateDir, fork: Fork) -> Result<ExitCode, String> {
    let Some(addr) = args.listen else {
        return Ok(ExitCode::from(FORK_EXIT));
    };
    let status = status::Status {
        log: fork.log.clone(),
        size: Some(fork.cosigned.size),
        root: Some(fork.cosigned.root),
        cosigned_at_ms: None,
        fork: Some(fork),
    };
    // What it cosigned before the fork stays published.
    let published = Publication::open(state, 0).map_err(|e| e.to_string())?;
    let _server = serve_status(
        addr,
        Arc::new(Mutex::new(status)),
        Arc::new(Mutex::new(published)),
        None,
    )?;
    park()
}

fn refuse_after_fork(args: &WitnessArgs) -> Result<ExitCode, String> {
    if args.listen.is_none() {
        return Ok(ExitCode::from(FORK_EXIT));
    }
    park()
}

/// Serves the status until the process is stopped.
fn park() -> Result<ExitCode, String> {
    loop {
        std::thread::park();
    }
}

/// Starts `GET /status` on its own runtime; the witness loop itself stays
/// on this thread with its blocking client. Dropping the runtime stops it.
fn serve_status(
    addr: SocketAddr,
    shared: SharedStatus,
    published: SharedPublication,
    pushed: Option<status::Pushed>,
) -> Result<tokio::runtime::Runtime, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the status listener: {e}"))?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(addr))
        .map_err(|e| format!("--listen {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    tracing::info!(addr = %bound, "serving GET /status, GET /cosignatures and POST /add-checkpoint");
    runtime.spawn(async move {
        if let Err(e) = axum::serve(listener, status::router(shared, published, pushed)).await {
            tracing::error!(error = %e, "the status listener stopped");
        }
    });
    Ok(runtime)
}

/// The log's API over HTTP.
struct HttpLog(LogClient);

impl LogSource for HttpLog {
    fn announced_log_key(&self) -> Result<String, FetchError> {
        let config: serde_json::Value = self.0.get_json("/api/config").map_err(FetchError)?;
        config["log"]["key"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| FetchError("GET /api/config: no .log.key".to_owned()))
    }

    fn latest_checkpoint(&self) -> Result<String, FetchError> {
        self.0
            .get_text("/api/log/checkpoint/latest")
            .map_err(FetchError)
    }

    fn consistency(&self, from: u64, size: u64) -> Result<ConsistencyProof, FetchError> {
        self.0
            .get_json(&format!(
                "/api/log/proof/consistency?from={from}&size={size}"
            ))
            .map_err(FetchError)
    }

    fn submit(&self, submission: &CosignatureSubmission) -> Result<(), FetchError> {
        self.0
            .post_json("/api/log/cosignatures", submission)
            .map_err(FetchError)
    }
}
