//! The data directory holds what nobody but the server may read: the
//! database (every unsold ticket's outcome and salt), the operator's keys
//! and the exports. So the directory is created 0700 and the files in it
//! 0600, whatever the umask; at start every file of it is checked, each one
//! that other users can reach is named in a warning, and
//! `--strict-permissions` refuses to start instead. A data directory that
//! the page server would send files of (inside `--web`'s served tree) is
//! refused.

use crate::config::Config;
use crate::database::Database;
use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// Owner only: read, write, enter.
pub const DIR_MODE: u32 = 0o700;
/// Owner only: read, write.
pub const FILE_MODE: u32 = 0o600;

#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "--strict-permissions: other users can reach {}; run chmod 700 on the directories \
         and chmod 600 on the files",
        list(.0)
    )]
    TooOpen(Vec<TooOpen>),
    #[error(
        "{what} {path} is served by the page server at {url} (--web {web}): \
         move it out of the web root"
    )]
    Served {
        what: &'static str,
        path: String,
        web: String,
        url: String,
    },
}

/// A file or directory whose mode lets other users in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooOpen {
    pub path: PathBuf,
    pub mode: u32,
}

fn list(too_open: &[TooOpen]) -> String {
    too_open
        .iter()
        .map(|t| format!("{} (mode {:o})", t.path.display(), t.mode))
        .collect::<Vec<_>>()
        .join(", ")
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DataDirError + '_ {
    move |source| DataDirError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Before the store opens: creates the data directory (0700) and the SQLite
/// file (0600, so that SQLite gives its `-wal` and `-shm` files the same
/// mode) when missing, refuses a data directory, database or key file that
/// the page server would send, and checks the modes. Returns the files and
/// directories whose mode lets other users in (each one is warned of).
pub fn prepare(config: &Config) -> Result<Vec<TooOpen>, DataDirError> {
    let database = match config.database() {
        Database::Sqlite(file) => Some(file),
        Database::Postgres(_) => None,
    };
    // Before anything is created: a refused start leaves no file behind.
    let mut secrets = vec![("the data directory", config.data_dir.clone())];
    secrets.extend(database.clone().map(|f| ("the database", f)));
    secrets.extend(config.key_file.clone().map(|f| ("the key file", f)));
    for (what, path) in secrets {
        if let Some(url) = crate::static_files::served_path_reaching(&config.web_dir, &path) {
            return Err(DataDirError::Served {
                what,
                path: path.display().to_string(),
                web: config.web_dir.display().to_string(),
                url,
            });
        }
    }
    create_private_dir(&config.data_dir).map_err(io(&config.data_dir))?;
    if let Some(file) = &database {
        create_private_file(file).map_err(io(file))?;
    }
    if inside(&config.data_dir, &config.web_dir) {
        tracing::info!(
            data = %config.data_dir.display(),
            web = %config.web_dir.display(),
            "the data directory is inside --web, where no served path reaches it \
             (only /, /index.html and /www/ are served)"
        );
    }
    let mut too_open = too_open_under(&config.data_dir)?;
    let outside = database
        .iter()
        .flat_map(|db| sqlite_files(db))
        .chain(config.key_file.clone())
        .filter(|f| !inside(f, &config.data_dir));
    for file in outside {
        too_open.extend(check(&file)?);
    }
    for t in &too_open {
        tracing::warn!(
            path = %t.path.display(),
            mode = format!("{:o}", t.mode),
            "other users can reach this file of the data directory; run chmod {} on it",
            if t.path.is_dir() { "700" } else { "600" },
        );
    }
    if config.strict_permissions && !too_open.is_empty() {
        return Err(DataDirError::TooOpen(too_open));
    }
    Ok(too_open)
}

/// The SQLite file and the two files SQLite keeps beside it.
fn sqlite_files(db: &Path) -> Vec<PathBuf> {
    ["", "-wal", "-shm"]
        .iter()
        .map(|suffix| {
            let mut name = db.as_os_str().to_owned();
            name.push(suffix);
            PathBuf::from(name)
        })
        .collect()
}

/// Whether `path` lies inside `dir`, both resolved (false if either is missing).
fn inside(path: &Path, dir: &Path) -> bool {
    match (std::fs::canonicalize(path), std::fs::canonicalize(dir)) {
        (Ok(path), Ok(dir)) => path.starts_with(dir),
        _ => false,
    }
}

/// Creates `dir` (and missing parents) with mode 0700, set after creation
/// so that the umask cannot widen or narrow it. An existing directory is
/// left as it is (the check reports it).
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    create_dir_0700(dir, true)
}

/// Creates `dir`, which must not exist yet (`AlreadyExists` otherwise),
/// with mode 0700 as [`create_private_dir`] does; its parent must exist.
pub fn create_new_private_dir(dir: &Path) -> std::io::Result<()> {
    create_dir_0700(dir, false)
}

fn create_dir_0700(dir: &Path, with_parents: bool) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(with_parents);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder.create(dir)?;
    set_mode(dir, DIR_MODE)
}

/// Creates an empty `file` with mode 0600 if it does not exist yet (an
/// empty file is an empty SQLite database).
fn create_private_file(file: &Path) -> std::io::Result<()> {
    if file
        .parent()
        .is_some_and(|p| !p.as_os_str().is_empty() && !p.is_dir())
    {
        // The store names the missing directory.
        return Ok(());
    }
    match private_file_options().create_new(true).open(file) {
        Ok(_) => set_mode(file, FILE_MODE),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Options that create a file with mode 0600 (the umask can only narrow
/// it); callers writing a file in the data directory use them.
pub fn private_file_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    options
}

/// Creates (truncating) a file with mode 0600.
pub fn create_private(file: &Path) -> std::io::Result<File> {
    let created = private_file_options()
        .create(true)
        .truncate(true)
        .open(file)?;
    set_mode(file, FILE_MODE)?;
    Ok(created)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> std::io::Result<()> {
    Ok(())
}

/// Every directory and regular file under `dir` (itself included) whose
/// mode gives group or others any access. Links are not followed.
pub fn too_open_under(dir: &Path) -> Result<Vec<TooOpen>, DataDirError> {
    let mut found: Vec<TooOpen> = check(dir)?.into_iter().collect();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).map_err(io(&current))? {
            let entry = entry.map_err(io(&current))?;
            let kind = entry.file_type().map_err(io(&current))?;
            let path = entry.path();
            if kind.is_dir() {
                pending.push(path.clone());
            }
            if kind.is_dir() || kind.is_file() {
                found.extend(check(&path)?);
            }
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

#[cfg(unix)]
fn check(path: &Path) -> Result<Option<TooOpen>, DataDirError> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        // A file SQLite removed meanwhile (-wal, -shm) is no file to check.
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path)(e)),
    };
    let mode = metadata.permissions().mode() & 0o777;
    Ok((mode & 0o077 != 0).then(|| TooOpen {
        path: path.to_owned(),
        mode,
    }))
}

#[cfg(not(unix))]
fn check(_: &Path) -> Result<Option<TooOpen>, DataDirError> {
    Ok(None)
}
