//! What a witness remembers across restarts, in its state directory: the
//! log key it trusts (pinned on first use), the last checkpoint it
//! cosigned, and the fork it saw, if any. A witness that forgot what it
//! cosigned could be walked back onto a forked tree, so every file is
//! replaced atomically and a file that cannot be read is an error, never a
//! fresh start.

use eldorado_engine::Hash;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

pub const LOG_KEY_FILE: &str = "log-key";
pub const COSIGNED_FILE: &str = "cosigned.json";
pub const FORK_FILE: &str = "fork.json";
/// Every cosignature made, one JSON line each (`publication`).
pub const PUBLISHED_FILE: &str = "cosignatures.jsonl";

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not what the witness wrote there: {why}")]
    Corrupt { path: String, why: String },
}

/// A checkpoint as the witness keeps it: what it says, and the signed note
/// exactly as the log served it (the evidence).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenCheckpoint {
    pub size: u64,
    pub root: Hash,
    pub note: String,
}

/// The last checkpoint this witness cosigned: every later one must extend it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cosigned {
    pub size: u64,
    pub root: Hash,
    pub note: String,
    pub cosigned_at_ms: u64,
}

/// Proof that the log showed two views that cannot both be true: what the
/// witness had cosigned, and what the log offered next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fork {
    pub reason: String,
    pub log: String,
    pub detected_at_ms: u64,
    pub cosigned: SeenCheckpoint,
    pub offered: SeenCheckpoint,
}

impl Fork {
    /// The one line printed to stderr whenever the witness refuses.
    pub fn line(&self) -> String {
        format!(
            "FORK: log {}: cosigned size {} root {}, offered size {} root {}: {}",
            self.log,
            self.cosigned.size,
            self.cosigned.root,
            self.offered.size,
            self.offered.root,
            self.reason
        )
    }
}

pub struct StateDir {
    dir: PathBuf,
}

impl StateDir {
    /// Opens the directory, creating it (mode 0700) if missing.
    pub fn open(dir: &Path) -> Result<StateDir, StateError> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(|source| StateError::Io {
            path: dir.display().to_string(),
            source,
        })?;
        Ok(StateDir {
            dir: dir.to_path_buf(),
        })
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    pub fn pinned_log_key(&self) -> Result<Option<String>, StateError> {
        Ok(self
            .read(LOG_KEY_FILE)?
            .map(|text| String::from_utf8_lossy(&text).trim().to_owned()))
    }

    pub fn pin_log_key(&self, vkey: &str) -> Result<(), StateError> {
        self.replace(LOG_KEY_FILE, format!("{vkey}\n").as_bytes())
    }

    pub fn cosigned(&self) -> Result<Option<Cosigned>, StateError> {
        self.read_json(COSIGNED_FILE)
    }

    pub fn save_cosigned(&self, cosigned: &Cosigned) -> Result<(), StateError> {
        self.replace_json(COSIGNED_FILE, cosigned)
    }

    pub fn fork(&self) -> Result<Option<Fork>, StateError> {
        self.read_json(FORK_FILE)
    }

    pub fn save_fork(&self, fork: &Fork) -> Result<(), StateError> {
        self.replace_json(FORK_FILE, fork)
    }

    /// Appends `line` to `name` and syncs it: once this returns, the line
    /// survives power loss. A crash mid-write leaves at most a last line
    /// without its newline, which readers drop.
    pub fn append(&self, name: &str, line: &[u8]) -> Result<(), StateError> {
        let io = self.io(name);
        let mut options = OpenOptions::new();
        options.append(true).create(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(self.path(name)).map_err(&io)?;
        file.write_all(line)
            .and_then(|()| file.sync_all())
            .map_err(&io)
    }

    /// The whole lines of `name` (none if it does not exist). A last line
    /// without its newline (a crash mid-append) is cut from the file, so
    /// that the next append starts a line of its own.
    pub fn lines(&self, name: &str) -> Result<Vec<String>, StateError> {
        let Some(bytes) = self.read(name)? else {
            return Ok(Vec::new());
        };
        let text = String::from_utf8(bytes).map_err(|e| StateError::Corrupt {
            path: self.path(name).display().to_string(),
            why: e.to_string(),
        })?;
        let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
        if lines.last().is_some_and(|l| !l.ends_with('\n')) {
            let torn = lines.pop().unwrap_or_default();
            let whole = text.len() - torn.len();
            let io = self.io(name);
            let file = OpenOptions::new()
                .write(true)
                .open(self.path(name))
                .map_err(&io)?;
            file.set_len(whole as u64)
                .and_then(|()| file.sync_all())
                .map_err(&io)?;
        }
        Ok(lines)
    }

    fn io(&self, name: &str) -> impl Fn(std::io::Error) -> StateError {
        let path = self.path(name).display().to_string();
        move |source| StateError::Io {
            path: path.clone(),
            source,
        }
    }

    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, StateError> {
        match std::fs::read(self.path(name)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.io(name)(e)),
        }
    }

    fn read_json<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, StateError> {
        self.read(name)?
            .map(|bytes| {
                serde_json::from_slice(&bytes).map_err(|e| StateError::Corrupt {
                    path: self.path(name).display().to_string(),
                    why: e.to_string(),
                })
            })
            .transpose()
    }

    fn replace_json<T: Serialize>(&self, name: &str, value: &T) -> Result<(), StateError> {
        let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| StateError::Corrupt {
            path: self.path(name).display().to_string(),
            why: e.to_string(),
        })?;
        bytes.push(b'\n');
        self.replace(name, &bytes)
    }

    /// Writes a temporary file, syncs it, renames it over `name` and syncs
    /// the directory: after a crash the file is either the old one or the
    /// new one, and once this returns the new one survives power loss.
    fn replace(&self, name: &str, bytes: &[u8]) -> Result<(), StateError> {
        let io = self.io(name);
        let draft = self.path(&format!("{name}.tmp-{}", std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&draft).map_err(&io)?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(&io)?;
        drop(file);
        std::fs::rename(&draft, self.path(name)).map_err(&io)?;
        sync_dir(&self.dir).map_err(&io)
    }
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Directories cannot be opened as files elsewhere; the rename is still atomic.
#[cfg(not(unix))]
fn sync_dir(_: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_read_back_and_a_corrupt_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::open(&dir.path().join("w")).unwrap();
        assert_eq!(state.cosigned().unwrap(), None);
        assert_eq!(state.pinned_log_key().unwrap(), None);
        let cosigned = Cosigned {
            size: 3,
            root: Hash([9; 32]),
            note: "origin\n3\nroot\n\n— sig\n".to_owned(),
            cosigned_at_ms: 1_000,
        };
        state.save_cosigned(&cosigned).unwrap();
        assert_eq!(state.cosigned().unwrap(), Some(cosigned));
        state.pin_log_key("log+01234567+AAAA").unwrap();
        assert_eq!(
            state.pinned_log_key().unwrap().as_deref(),
            Some("log+01234567+AAAA")
        );
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("w"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.contains(".tmp-"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        std::fs::write(state.path(COSIGNED_FILE), "{not json").unwrap();
        assert!(matches!(state.cosigned(), Err(StateError::Corrupt { .. })));
    }
}
