//! `eldorado backup`: a consistent copy of a SQLite data directory while
//! its server runs. The database is copied by `VACUUM INTO` from one read
//! transaction, so the copy is the database as of one commit (WAL readers
//! never block the writer: sales go on meanwhile); the operator's key files
//! are copied beside it. Everything in it is a secret, as in the data
//! directory: the directory is created 0700 and every file 0600 before a
//! byte is written. The newest witnessed checkpoint
//! (`public_log::WITNESSED_FILE`) is left out on purpose: it stays with the
//! data directory, where it makes a server refuse a copy older than what
//! the witnesses cosigned.

use crate::data_dir;
use crate::database::{Database, DATABASE_FILE};
use crate::keys::{API_KEY_FILE, SIGNING_KEY_FILE};
use rusqlite::{Connection, OpenFlags};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long the copy waits for a lock SQLite itself holds briefly (the
/// WAL index); a sale batch never blocks a reader.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error(
        "eldorado backup copies a SQLite data directory; back a PostgreSQL database up with \
         PostgreSQL's own tools, and keep a synchronous standby (docs/DEPLOYMENT.md, Backups)"
    )]
    Postgres,
    #[error("{0}: no database there (give the server's --data, or --database sqlite:PATH)")]
    NoDatabase(String),
    #[error("{0} already exists: a backup goes to a new directory, never over another")]
    OutExists(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: the path is not UTF-8, which SQLite needs")]
    NotUtf8 { path: String },
    #[error("copying {path}: {source}")]
    Sqlite {
        path: String,
        source: rusqlite::Error,
    },
}

/// What was copied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copied {
    pub out: PathBuf,
    /// The files of the backup directory, by name.
    pub files: Vec<String>,
    /// The copy's public log: records, as of its newest checkpoint.
    pub log_size: u64,
    pub sales: u64,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BackupError + '_ {
    move |source| BackupError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn sqlite(path: &Path) -> impl FnOnce(rusqlite::Error) -> BackupError + '_ {
    move |source| BackupError::Sqlite {
        path: path.display().to_string(),
        source,
    }
}

/// Copies `database` (SQLite only) and the operator's key files of
/// `data_dir` (the signing key from `key_file` when the server is given
/// one) into the new directory `out`. On failure nothing is left at `out`.
pub fn backup(
    data_dir: &Path,
    database: &Database,
    key_file: Option<&Path>,
    out: &Path,
) -> Result<Copied, BackupError> {
    let Database::Sqlite(db) = database else {
        return Err(BackupError::Postgres);
    };
    if !db.is_file() {
        return Err(BackupError::NoDatabase(db.display().to_string()));
    }
    create_new_private_dir(out)?;
    let copied = copy_into(data_dir, db, key_file, out);
    if copied.is_err() {
        // Only what this call created: `out` did not exist before it.
        let _ = std::fs::remove_dir_all(out);
    }
    copied
}

fn copy_into(
    data_dir: &Path,
    db: &Path,
    key_file: Option<&Path>,
    out: &Path,
) -> Result<Copied, BackupError> {
    let mut files = Vec::new();
    let signing = key_file.map_or_else(|| data_dir.join(SIGNING_KEY_FILE), Path::to_owned);
    for (from, name) in [
        (signing, SIGNING_KEY_FILE),
        (data_dir.join(API_KEY_FILE), API_KEY_FILE),
    ] {
        let secret = match std::fs::read(&from) {
            Ok(secret) => secret,
            // The API key may come from $ELDORADO_OPERATOR_API_KEY instead.
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(io(&from)(e)),
        };
        write_new_private(&out.join(name), &secret)?;
        files.push(name.to_owned());
    }
    let copy = out.join(DATABASE_FILE);
    // Created 0600 and empty, which `VACUUM INTO` accepts as its target:
    // the copy is never readable by others, whatever the umask.
    write_new_private(&copy, b"")?;
    let source = Connection::open_with_flags(
        db,
        // Read and write (a WAL database's reader may have to set up its
        // shared index), but never created: the file was checked above.
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sqlite(db))?;
    source.busy_timeout(BUSY_TIMEOUT).map_err(sqlite(db))?;
    let target = copy.to_str().ok_or_else(|| BackupError::NotUtf8 {
        path: copy.display().to_string(),
    })?;
    source
        .execute("VACUUM INTO ?1", [target])
        .map_err(sqlite(db))?;
    drop(source);
    // VACUUM INTO does not sync its output: a backup is only one once it
    // is on the disk.
    std::fs::File::open(&copy)
        .and_then(|f| f.sync_all())
        .map_err(io(&copy))?;
    files.push(DATABASE_FILE.to_owned());
    sync_dir(out)?;
    let (log_size, sales) = describe(&copy)?;
    files.sort();
    Ok(Copied {
        out: out.to_owned(),
        files,
        log_size,
        sales,
    })
}

/// The copy's public log size and its number of sales, read without
/// writing a byte beside it (no `-wal` or `-shm`).
fn describe(copy: &Path) -> Result<(u64, u64), BackupError> {
    let mut uri = url_path(copy);
    uri.insert_str(0, "file:");
    uri.push_str("?mode=ro&immutable=1");
    let db = Connection::open_with_flags(
        &uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(sqlite(copy))?;
    let count = |sql: &str| -> Result<u64, BackupError> {
        let n: i64 = db
            .query_row(sql, [], |row| row.get(0))
            .map_err(sqlite(copy))?;
        Ok(u64::try_from(n).unwrap_or(0))
    };
    Ok((
        count("SELECT size FROM log_tree WHERE id = 1")?,
        count("SELECT COUNT(*) FROM sales")?,
    ))
}

/// A path as the path of a `file:` URI: `%`, `?` and `#` escaped.
fn url_path(path: &Path) -> String {
    let mut text = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => text.push_str("%25"),
            '?' => text.push_str("%3f"),
            '#' => text.push_str("%23"),
            c => text.push(c),
        }
    }
    text
}

/// Creates `dir` with mode 0700; an existing one is refused.
fn create_new_private_dir(dir: &Path) -> Result<(), BackupError> {
    data_dir::create_new_private_dir(dir).map_err(|e| match e.kind() {
        ErrorKind::AlreadyExists => BackupError::OutExists(dir.display().to_string()),
        _ => io(dir)(e),
    })
}

/// Writes a new file with mode 0600 and syncs it.
fn write_new_private(file: &Path, bytes: &[u8]) -> Result<(), BackupError> {
    use std::io::Write;
    let mut out = data_dir::private_file_options()
        .create_new(true)
        .open(file)
        .map_err(io(file))?;
    out.write_all(bytes)
        .and_then(|()| out.sync_all())
        .map_err(io(file))
}

fn sync_dir(dir: &Path) -> Result<(), BackupError> {
    #[cfg(unix)]
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io(dir))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SystemClock;
    use std::sync::Arc;

    #[test]
    fn a_copy_is_private_and_complete_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        data_dir::create_private_dir(&data).unwrap();
        let database = Database::in_data_dir(&data);
        let store = database.open(1, Arc::new(SystemClock)).unwrap();
        std::fs::write(data.join(SIGNING_KEY_FILE), "11".repeat(32)).unwrap();
        std::fs::write(data.join(crate::public_log::WITNESSED_FILE), "kept here").unwrap();
        let out = dir.path().join("backup");
        let copied = backup(&data, &database, None, &out).unwrap();
        drop(store);
        assert_eq!(copied.files, [DATABASE_FILE, SIGNING_KEY_FILE]);
        assert_eq!((copied.log_size, copied.sales), (0, 0));
        let mut names: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        // No witnessed checkpoint, no -wal or -shm left beside the copy.
        assert_eq!(names, copied.files);
        assert_eq!(data_dir::too_open_under(&out).unwrap(), vec![]);
        assert_eq!(
            std::fs::read(out.join(SIGNING_KEY_FILE)).unwrap(),
            "11".repeat(32).as_bytes()
        );
        // The copy opens as a store: migrations all applied already.
        let restored = Database::Sqlite(out.join(DATABASE_FILE));
        restored.open(1, Arc::new(SystemClock)).unwrap();

        let again = backup(&data, &database, None, &out).unwrap_err();
        assert!(matches!(again, BackupError::OutExists(_)), "{again}");
        let missing = backup(
            &data.join("nowhere"),
            &Database::in_data_dir(&data.join("nowhere")),
            None,
            &dir.path().join("b2"),
        );
        assert!(matches!(missing, Err(BackupError::NoDatabase(_))));
        assert!(!dir.path().join("b2").exists());
        let postgres = Database::Postgres("postgres://u@h/db".to_owned());
        assert!(matches!(
            backup(&data, &postgres, None, &dir.path().join("b3")),
            Err(BackupError::Postgres)
        ));
        assert!(!dir.path().join("b3").exists());
    }
}
