//! `eldorado report daily`: the operator's daily report read straight from
//! the database, the same figures as `GET /api/operator/reports/daily`
//! (`eldorado_server::reports`).

use clap::{Args, Subcommand, ValueEnum};
use eldorado_server::clock::SystemClock;
use eldorado_server::database::Database;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Subcommand)]
pub enum ReportCommand {
    /// Per UTC day, stake and money: tickets, stakes, prizes, GGR and
    /// realised RTP; per block finished in those days, its prize counts
    /// against the rules.
    Daily(DailyArgs),
}

#[derive(Args)]
pub struct DailyArgs {
    /// The store: sqlite:PATH or postgres://… as for `eldorado serve`
    /// (default: DATA/eldorado.sqlite3).
    #[arg(long, value_parser = Database::parse)]
    database: Option<Database>,
    /// The data directory whose SQLite database is read without --database.
    #[arg(long, default_value = "./data")]
    data: PathBuf,
    /// The first day, YYYY-MM-DD (UTC).
    #[arg(long)]
    from: String,
    /// The last day, included.
    #[arg(long)]
    to: String,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
    /// Most days in one report.
    #[arg(long, default_value_t = 366)]
    max_days: u32,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// The whole report as JSON.
    Json,
    /// The days only, one CSV line per day, stake and money.
    Csv,
}

pub fn run(command: ReportCommand) -> Result<ExitCode, String> {
    let ReportCommand::Daily(args) = command;
    let database = args
        .database
        .unwrap_or_else(|| Database::in_data_dir(&args.data));
    let store = database
        .open(1, Arc::new(SystemClock))
        .map_err(|e| format!("{}: {e}", database.describe()))?;
    let report = eldorado_server::reports::daily(&*store, &args.from, &args.to, args.max_days)
        .map_err(|e| e.to_string())?;
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n",
        Format::Csv => eldorado_server::reports::days_csv(&report).map_err(|e| e.to_string())?,
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}
