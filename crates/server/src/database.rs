//! Which store a server opens: `--database sqlite:PATH` (the embedded
//! default, one server) or `--database postgres://…` (one database shared
//! by every server of a deployment).

use crate::clock::Clock;
use crate::store::postgres::PostgresStore;
use crate::store::sqlite::SqliteStore;
use crate::store::{Store, StoreResult};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The SQLite file in the data directory when no `--database` is given.
pub const DATABASE_FILE: &str = "eldorado.sqlite3";

#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    Sqlite(PathBuf),
    /// A libpq-style URL; it may carry a password, so it is never logged.
    Postgres(String),
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Database {
    /// The default: SQLite in the data directory.
    pub fn in_data_dir(data_dir: &Path) -> Database {
        Database::Sqlite(data_dir.join(DATABASE_FILE))
    }

    pub fn parse(text: &str) -> Result<Database, String> {
        if let Some(path) = text.strip_prefix("sqlite:") {
            if path.is_empty() {
                return Err("--database sqlite:PATH needs a file path".to_owned());
            }
            return Ok(Database::Sqlite(PathBuf::from(path)));
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            // Checked now, so that a typo is a clear start-up error.
            text.parse::<postgres::Config>()
                .map_err(|e| format!("--database: not a PostgreSQL URL: {e}"))?;
            return Ok(Database::Postgres(text.to_owned()));
        }
        Err(format!(
            "--database {:?}: give sqlite:PATH or postgres://USER@HOST/DB",
            redact(text)
        ))
    }

    /// What to log: the kind and place, without a password.
    pub fn describe(&self) -> String {
        match self {
            Database::Sqlite(path) => format!("sqlite:{}", path.display()),
            Database::Postgres(url) => redact(url),
        }
    }

    /// True when several servers may share this database.
    pub fn is_shared(&self) -> bool {
        matches!(self, Database::Postgres(_))
    }

    pub fn open(&self, pool_size: u32, clock: Arc<dyn Clock>) -> StoreResult<Arc<dyn Store>> {
        Ok(match self {
            Database::Sqlite(path) => Arc::new(SqliteStore::open(path, clock)?),
            Database::Postgres(url) => Arc::new(PostgresStore::open(url, pool_size, clock)?),
        })
    }
}

/// `scheme://user:secret@host/...` → `scheme://user:***@host/...`.
fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match (authority.rfind('@'), authority.find(':')) {
        (Some(at), Some(colon)) if colon < at => format!(
            "{}{}:***{}",
            &url[..scheme_end],
            &authority[..colon],
            &rest[at..]
        ),
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_urls_parse_or_say_what_is_expected() {
        assert_eq!(
            Database::parse("sqlite:/tmp/x.db").unwrap(),
            Database::Sqlite("/tmp/x.db".into())
        );
        let url = "postgres://eld:pw@127.0.0.1:5432,127.0.0.1:5433/eldorado?target_session_attrs=read-write";
        assert_eq!(
            Database::parse(url).unwrap(),
            Database::Postgres(url.into())
        );
        assert!(Database::parse("postgresql://u@h/db").is_ok());
        for bad in [
            "",
            "sqlite:",
            "mysql://u@h/db",
            "/tmp/x.db",
            "postgres://u@h/db?sslmode=bogus",
        ] {
            let error = Database::parse(bad).unwrap_err();
            assert!(error.contains("--database"), "{bad:?}: {error}");
        }
    }

    #[test]
    fn passwords_never_reach_the_log() {
        let db = Database::parse("postgres://eld:s3cret@db.example:5432/eldorado").unwrap();
        assert_eq!(db.describe(), "postgres://eld:***@db.example:5432/eldorado");
        assert!(!format!("{db:?}").contains("s3cret"));
        let error = Database::parse("mysql://eld:s3cret@db/x").unwrap_err();
        assert!(!error.contains("s3cret"), "{error}");
        assert_eq!(redact("postgres://eld@h/db"), "postgres://eld@h/db");
    }
}
