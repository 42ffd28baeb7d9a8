//! The newest checkpoint of this log a witness cosigned, kept outside the
//! database in `DATA/witnessed-checkpoint`, and whether the database holds
//! it. A database restored from a copy older than what the witnesses
//! cosigned would fork the public record with its next record: so a server
//! whose database does not hold that checkpoint (the same size with the
//! same root) sells nothing and logs nothing (`RECORD_BEHIND`) until the
//! operator restores a newer copy.
//!
//! It learns the checkpoint two ways: from the file at start (written
//! whenever a witness cosigns a larger tree; `eldorado backup` leaves it
//! out, so a copy restored into this data directory meets it), and from a
//! witness that sees the log smaller than, or not extending, the tree it
//! cosigned: it posts that checkpoint with its cosignature
//! (`POST /api/log/cosignatures`), which the route hands to [`Witnessed::told`].

use super::stored_hashes::StoredHashes;
use crate::data_dir;
use crate::error::ApiError;
use crate::store::{Store, StoreError};
use eldorado_engine::transparency::{open_checkpoint, tlog, CheckpointError, LogKey};
use eldorado_engine::Hash;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

/// The file, in the data directory (never in a backup).
pub const WITNESSED_FILE: &str = "witnessed-checkpoint";

#[derive(Debug, thiserror::Error)]
pub enum WitnessedError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "{path} is not a checkpoint of this log ({why}); it was written for another operator \
         key: remove it only if this data directory moved to a new key on purpose"
    )]
    NotOurs { path: String, why: CheckpointError },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the log's tree: {0}")]
    Tree(#[from] tlog::Error),
}

/// The database does not hold the checkpoint the witnesses cosigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Behind {
    /// The size of the cosigned checkpoint.
    pub cosigned: u64,
    /// The size of the database's own log.
    pub held: u64,
}

pub struct Witnessed {
    file: PathBuf,
    /// The size of the checkpoint in the file (0: none); held while the
    /// file is replaced, so writers take turns.
    kept: Mutex<u64>,
    behind: RwLock<Option<Behind>>,
}

impl Witnessed {
    /// Reads the kept checkpoint, if any, and checks that `store` holds it.
    /// The file was written by this server after it checked the
    /// cosignature, so only the log's signature is checked again: a
    /// witness since removed from `--witness` still counts.
    pub fn open(data_dir: &Path, store: &dyn Store, log: &LogKey) -> Result<Self, WitnessedError> {
        let file = data_dir.join(WITNESSED_FILE);
        let path = file.display().to_string();
        let witnessed = Witnessed {
            file,
            kept: Mutex::new(0),
            behind: RwLock::new(None),
        };
        let note = match std::fs::read(&witnessed.file) {
            Ok(note) => note,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(witnessed),
            Err(source) => return Err(WitnessedError::Io { path, source }),
        };
        let checked = open_checkpoint(&note, log, &[], 0)
            .map_err(|why| WitnessedError::NotOurs { path, why })?;
        *witnessed.kept.lock().unwrap_or_else(|p| p.into_inner()) = checked.size;
        witnessed.compare(store, checked.size, &checked.root)?;
        Ok(witnessed)
    }

    pub fn behind(&self) -> Option<Behind> {
        *self.behind.read().unwrap_or_else(|p| p.into_inner())
    }

    /// `RECORD_BEHIND` while the database does not hold what was cosigned:
    /// every sale, transfer and sequencer pass asks first.
    pub fn check(&self) -> Result<(), ApiError> {
        match self.behind() {
            Some(Behind { cosigned, held }) => Err(ApiError::RecordBehind { cosigned, held }),
            None => Ok(()),
        }
    }

    /// A witness cosigned `note` (the log's checkpoint of `size` records
    /// with the cosignature), which the database holds: kept if larger than
    /// the one kept. A failed write is logged, not refused: the cosignature
    /// itself is stored.
    pub fn keep(&self, note: &str, size: u64) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if size <= *kept {
            return;
        }
        match replace(&self.file, note.as_bytes()) {
            Ok(()) => *kept = size,
            Err(e) => tracing::error!(
                file = %self.file.display(),
                error = %e,
                "cannot keep the newest witnessed checkpoint: a copy of the database older \
                 than it would not be refused at start"
            ),
        }
    }

    /// A witness posted `note`, a checkpoint this log signed and it
    /// cosigned, which the store holds no checkpoint of: if the store's
    /// tree does not hold it either, the server is behind from now on, and
    /// the note is kept so that a restart still knows it.
    pub fn told(
        &self,
        store: &dyn Store,
        note: &str,
        size: u64,
        root: &Hash,
    ) -> Result<Option<Behind>, WitnessedError> {
        let behind = self.compare(store, size, root)?;
        if behind.is_some() {
            self.keep(note, size);
        }
        Ok(behind)
    }

    /// Whether the store's tree holds `size` records with `root`; if not,
    /// the server is behind (said once, loudly).
    fn compare(
        &self,
        store: &dyn Store,
        size: u64,
        root: &Hash,
    ) -> Result<Option<Behind>, WitnessedError> {
        let held = store.log_checkpoint(0)?.map_or(0, |c| c.size);
        let holds =
            size <= held && (size == 0 || tlog::tree_hash(size, &StoredHashes(store))?.0 == root.0);
        if holds {
            return Ok(None);
        }
        let behind = Behind {
            cosigned: size,
            held,
        };
        let mut current = self.behind.write().unwrap_or_else(|p| p.into_inner());
        if current.is_none_or(|b| b.cosigned < size) {
            tracing::error!(
                cosigned = size,
                held,
                "RECORD BEHIND: this database does not hold the public record its witnesses \
                 cosigned ({size} records; it holds {held}). It is an older copy: selling from \
                 it would fork the record, so this server sells nothing. Stop it and restore a \
                 newer copy holding at least {size} records (docs/DEPLOYMENT.md, Backups)"
            );
            *current = Some(behind);
        }
        Ok(*current)
    }
}

/// Writes a temporary file (0600), syncs it, renames it over `file` and
/// syncs the directory: after a crash the file is the old one or the new
/// one, never a mix, and the new one survives power loss once written.
fn replace(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let draft = file.with_extension(format!("tmp-{}", std::process::id()));
    let mut out = data_dir::private_file_options()
        .create(true)
        .truncate(true)
        .open(&draft)?;
    out.write_all(bytes)?;
    out.sync_all()?;
    drop(out);
    std::fs::rename(&draft, file)?;
    if let Some(dir) = file.parent() {
        #[cfg(unix)]
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}
