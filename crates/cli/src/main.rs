//! `eldorado`: the operator's command line.

mod backup_cmd;
mod beacon;
mod beacon_cmd;
mod block_cmd;
mod log_cmd;
mod logging;
mod report_cmd;
mod serve_cmd;
mod verify_cmd;
mod verify_record;
mod witness;
mod witness_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "eldorado",
    version,
    about = "Eldorado instant lottery: blocks, audits and the game server"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate or audit a block of 400,000 tickets.
    Block {
        #[command(subcommand)]
        command: block_cmd::BlockCommand,
    },
    /// Copy a running server's SQLite database and keys, consistently, into
    /// a new private directory (docs/DEPLOYMENT.md, Backups).
    Backup(backup_cmd::BackupArgs),
    /// Run the game server (API, page, durable sales).
    // Boxed: its many flags would make every other variant as large.
    Serve(Box<serve_cmd::ServeArgs>),
    /// Check a ticket receipt offline: the sale, its block's commitment,
    /// the rules and the Merkle proof, against the operator's key.
    Verify(verify_cmd::VerifyArgs),
    /// Watch a server's public log and cosign its checkpoints while it
    /// only grows; record a fork and refuse from then on (exit 3).
    Witness(witness_cmd::WitnessArgs),
    /// Publish the rounds of a randomness beacon (drand's quicknet scheme)
    /// with this process's own key.
    Beacon(beacon_cmd::BeaconArgs),
    /// Check a server's public log.
    Log {
        #[command(subcommand)]
        command: log_cmd::LogCommand,
    },
    /// The operator's reports, read from the database.
    Report {
        #[command(subcommand)]
        command: report_cmd::ReportCommand,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Block { command } => block_cmd::run(command),
        Command::Backup(args) => backup_cmd::run(args),
        Command::Serve(args) => serve_cmd::run(*args),
        Command::Verify(args) => verify_cmd::run(args),
        Command::Witness(args) => witness_cmd::run(args),
        Command::Beacon(args) => beacon_cmd::run(args),
        Command::Log { command } => log_cmd::run(command),
        Command::Report { command } => report_cmd::run(command),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("eldorado: {message}");
            ExitCode::from(2)
        }
    }
}
