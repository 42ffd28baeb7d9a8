//! `eldorado backup`: a consistent copy of a running server's SQLite data
//! directory, the database and the operator's keys, into a new private
//! directory (`eldorado_server::backup`). Restoring it is described in
//! docs/DEPLOYMENT.md (Backups).

use clap::Args;
use eldorado_server::database::Database;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct BackupArgs {
    /// The server's data directory (as `eldorado serve --data`).
    #[arg(long, default_value = "./data")]
    data: PathBuf,
    /// The server's store, as for `eldorado serve` (default:
    /// DATA/eldorado.sqlite3). Only SQLite is copied.
    #[arg(long, value_parser = Database::parse)]
    database: Option<Database>,
    /// The operator key file the server is started with (`--key-file`),
    /// copied as operator-ed25519.key.
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// A new directory for the copy, created with mode 0700 (its files
    /// 0600); an existing one is refused.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

pub fn run(args: BackupArgs) -> Result<ExitCode, String> {
    let database = args
        .database
        .unwrap_or_else(|| Database::in_data_dir(&args.data));
    let copied =
        eldorado_server::backup::backup(&args.data, &database, args.key_file.as_deref(), &args.out)
            .map_err(|e| e.to_string())?;
    println!("backup: {}", copied.out.display());
    println!("files: {}", copied.files.join(", "));
    println!("sales: {}", copied.sales);
    // What a restore must be compared with: the witnesses' cosigned size.
    println!("public log size: {}", copied.log_size);
    Ok(ExitCode::SUCCESS)
}
