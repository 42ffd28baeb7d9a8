//! A witness of the public log (C2SP tlog-witness, pull model): it fetches
//! the log's newest checkpoint, cosigns it only if it extends the last one
//! it cosigned, and otherwise records the fork and refuses for good. A
//! smaller tree is no fork yet (a copy of the log's database older than
//! what was cosigned, or a stale cache): it is not cosigned, and the log is
//! shown the checkpoint cosigned last, so that it stops selling from the
//! older copy; the witness goes on once the log is back. After a fork the
//! log is shown it too. The decisions live here, behind [`LogSource`], so
//! that they are tested against logs in memory; `witness_cmd` wires them
//! to HTTP.

pub mod publication;
pub mod push;
mod state;
pub mod status;
#[cfg(test)]
mod tests;

pub use state::{Cosigned, Fork, SeenCheckpoint, StateDir, StateError};

use eldorado_api::{ConsistencyProof, CosignatureSubmission};
use eldorado_engine::transparency::{
    open_checkpoint, verify_consistency, CheckedCheckpoint, CheckpointError, Cosigner, LogKey,
};

/// A failed request to the log: logged, and retried at the next poll.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FetchError(pub String);

/// What the witness asks of the log.
pub trait LogSource {
    /// The log key announced by `GET /api/config` (`.log.key`).
    fn announced_log_key(&self) -> Result<String, FetchError>;
    /// `GET /api/log/checkpoint/latest`: the newest signed note.
    fn latest_checkpoint(&self) -> Result<String, FetchError>;
    /// `GET /api/log/proof/consistency?from=M&size=N`.
    fn consistency(&self, from: u64, size: u64) -> Result<ConsistencyProof, FetchError>;
    /// `POST /api/log/cosignatures`.
    fn submit(&self, submission: &CosignatureSubmission) -> Result<(), FetchError>;
}

#[derive(Debug, thiserror::Error)]
pub enum LogKeyError {
    /// Retried: nothing is known yet.
    #[error("cannot read the log key from the log: {0}")]
    Fetch(FetchError),
    #[error("{what} is not a log key: {why}")]
    Malformed { what: String, why: CheckpointError },
    /// Refused for good: a changed log key is the operator's decision.
    #[error("the log key {offered} differs from the one pinned in {pin_file}: {pinned}; remove that file only if the log's key was changed on purpose")]
    Mismatch {
        pinned: String,
        offered: String,
        pin_file: String,
    },
    #[error(transparent)]
    State(#[from] StateError),
}

/// Settles the key the log must sign with: `--log-key`, else the pinned
/// one, else the one the log announces, pinned from then on (trust on
/// first use). A pinned key that the flag or the log contradicts is
/// refused. An unreachable log does not stop a witness that has a pin.
pub fn settle_log_key(
    state: &StateDir,
    flag: Option<&str>,
    log: &dyn LogSource,
) -> Result<LogKey, LogKeyError> {
    let pin_file = state.path(state::LOG_KEY_FILE).display().to_string();
    let pinned = state.pinned_log_key()?;
    let offered = match (flag, &pinned) {
        (Some(flag), _) => flag.trim().to_owned(),
        (None, None) => log.announced_log_key().map_err(LogKeyError::Fetch)?,
        (None, Some(pinned)) => match log.announced_log_key() {
            Ok(announced) => announced,
            Err(e) => {
                tracing::warn!(error = %e, "cannot check the pinned log key against the log; using the pin");
                pinned.clone()
            }
        },
    };
    let key = LogKey::parse(offered.trim()).map_err(|why| LogKeyError::Malformed {
        what: offered.clone(),
        why,
    })?;
    match pinned {
        Some(pinned) if pinned != key.vkey() => Err(LogKeyError::Mismatch {
            pinned,
            offered: key.vkey(),
            pin_file,
        }),
        Some(_) => Ok(key),
        None => {
            state.pin_log_key(&key.vkey())?;
            tracing::info!(log_key = %key.vkey(), file = %pin_file, "pinned the log key");
            Ok(key)
        }
    }
}

/// The outcome of one pass.
#[derive(Debug)]
pub enum Pass {
    /// The checkpoint extends the last one cosigned; cosigned and saved.
    /// `posted` says whether the log took the cosignature.
    Cosigned {
        size: u64,
        posted: Result<(), FetchError>,
    },
    /// The log still shows the checkpoint cosigned last, with our cosignature.
    Unchanged { size: u64 },
    /// The log shows a smaller tree than the one cosigned last (`offered`
    /// records, not `cosigned`): nothing is cosigned, and the log is shown
    /// the checkpoint cosigned last (`told`: whether that went through).
    Behind {
        cosigned: u64,
        offered: u64,
        told: Result<(), FetchError>,
    },
    /// A fork seen in this pass: from now on the witness refuses. The log
    /// was shown the checkpoint cosigned last, as after a rollback.
    ForkDetected(Fork, Result<(), FetchError>),
    /// A fork seen earlier: the witness cosigns nothing any more.
    Refusing,
}

#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// The log could not be reached or answered nonsense: retried.
    #[error("{0}")]
    Fetch(#[from] FetchError),
    /// The served note is not a checkpoint the log signed: retried, since a
    /// forged note proves nothing against the log.
    #[error("the log served a checkpoint that does not open: {0}")]
    Checkpoint(CheckpointError),
    #[error("cannot cosign: {0}")]
    Cosign(CheckpointError),
    /// The witness cannot remember what it signs: fatal.
    #[error(transparent)]
    State(#[from] StateError),
}

pub struct Witness {
    state: StateDir,
    log_key: LogKey,
    cosigner: Cosigner,
    last: Option<Cosigned>,
    fork: Option<Fork>,
    /// Shared with the listener that serves it.
    published: SharedPublication,
    /// Cosignatures the log has not taken yet, oldest first: posted again,
    /// as they were made, before anything else.
    unposted: std::collections::VecDeque<CosignatureSubmission>,
}

/// Cosignatures kept for posting again at most; older ones stay published.
pub const UNPOSTED_KEPT: usize = 64;

/// The publication the witness loop appends to and the listener reads.
pub type SharedPublication = std::sync::Arc<std::sync::Mutex<publication::Publication>>;

impl Witness {
    pub fn open(
        state: StateDir,
        log_key: LogKey,
        cosigner: Cosigner,
    ) -> Result<Witness, StateError> {
        let last = state.cosigned()?;
        let published =
            publication::Publication::open(&state, last.as_ref().map_or(0, |l| l.size))?;
        Ok(Witness {
            last,
            fork: state.fork()?,
            published: std::sync::Arc::new(std::sync::Mutex::new(published)),
            unposted: std::collections::VecDeque::new(),
            state,
            log_key,
            cosigner,
        })
    }

    pub fn last(&self) -> Option<&Cosigned> {
        self.last.as_ref()
    }

    /// What it cosigned, for `GET /cosignatures`.
    pub fn publication(&self) -> SharedPublication {
        self.published.clone()
    }

    pub fn status(&self) -> status::Status {
        status::Status {
            log: self.log_key.origin().to_owned(),
            size: self.last.as_ref().map(|c| c.size),
            root: self.last.as_ref().map(|c| c.root),
            cosigned_at_ms: self.last.as_ref().map(|c| c.cosigned_at_ms),
            fork: self.fork.clone(),
        }
    }

    /// Fetches the newest checkpoint and cosigns it if it extends the last
    /// one cosigned. `now_ms` is the wall clock (the cosignature's time).
    pub fn pass(&mut self, log: &dyn LogSource, now_ms: u64) -> Result<Pass, PassError> {
        if self.fork.is_some() {
            return Ok(Pass::Refusing);
        }
        self.post_unposted(log);
        let note = log.latest_checkpoint()?;
        let checked = open_checkpoint(note.as_bytes(), &self.log_key, &[], 0)
            .map_err(PassError::Checkpoint)?;
        if let Some(last) = self.last.clone() {
            if checked.size < last.size {
                return Ok(Pass::Behind {
                    cosigned: last.size,
                    offered: checked.size,
                    told: self.tell(&last, log, now_ms)?,
                });
            }
            if let Some(reason) = self.fork_reason(&last, &checked, log)? {
                return self.refuse(reason, &last, &checked, note, now_ms, log);
            }
            if checked.size == last.size && self.carries_our_cosignature(&note) {
                return Ok(Pass::Unchanged { size: last.size });
            }
            if checked.size == last.size {
                // The log lost our post (a crash on either side): the
                // line as first made, so that its copy is dated when we
                // first vouched for these records.
                if let Some(first) = self.published_line_of(&last) {
                    return Ok(Pass::Cosigned {
                        size: last.size,
                        posted: log.submit(&first),
                    });
                }
            }
        }
        self.cosign(&checked, note, now_ms, log)
    }

    /// The published cosignature of the checkpoint cosigned last, if the
    /// publication holds it.
    fn published_line_of(&self, last: &Cosigned) -> Option<CosignatureSubmission> {
        self.published
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .last()
            .filter(|c| c.checkpoint == last.note)
    }

    /// Why `offered`, at least as large, cannot follow `last`, if it cannot.
    fn fork_reason(
        &self,
        last: &Cosigned,
        offered: &CheckedCheckpoint,
        log: &dyn LogSource,
    ) -> Result<Option<String>, FetchError> {
        if offered.size == last.size {
            return Ok(
                (offered.root != last.root).then(|| "the same size with another root".to_owned())
            );
        }
        if last.size == 0 {
            // The empty tree is a prefix of every tree.
            return Ok(None);
        }
        let proof = log.consistency(last.size, offered.size)?;
        if (proof.from, proof.size) != (last.size, offered.size) {
            // An answer to another question: the log's fault or a proxy's,
            // not evidence either way.
            return Err(FetchError(format!(
                "asked for the consistency proof {}..{}, got {}..{}",
                last.size, offered.size, proof.from, proof.size
            )));
        }
        Ok(verify_consistency(
            last.size,
            &last.root,
            offered.size,
            &offered.root,
            &proof.hashes,
        )
        .err()
        .map(|e| format!("the consistency proof fails: {e}")))
    }

    /// Posts the checkpoint cosigned last with a cosignature of now, as
    /// evidence the log can check (its own signature, ours): a log whose
    /// database does not hold it then stops selling (`RECORD_BEHIND`).
    fn tell(
        &self,
        last: &Cosigned,
        log: &dyn LogSource,
        now_ms: u64,
    ) -> Result<Result<(), FetchError>, PassError> {
        let line = self
            .cosigner
            .cosign(last.note.as_bytes(), now_ms / 1000)
            .map_err(PassError::Cosign)?;
        Ok(log.submit(&CosignatureSubmission {
            checkpoint: last.note.clone(),
            cosignature: line,
        }))
    }

    /// Posts again, oldest first and as they were made, the cosignatures
    /// the log did not take: its copy then says when this witness first
    /// vouched for each record, as the publication does. Those it still
    /// does not take are kept for the next pass (an honest log takes every
    /// genuine cosignature of a checkpoint it holds).
    fn post_unposted(&mut self, log: &dyn LogSource) {
        self.unposted.retain(|submission| match log.submit(submission) {
            Ok(()) => false,
            Err(e) => {
                tracing::debug!(error = %e, "the log still does not take an earlier cosignature");
                true
            }
        });
    }

    /// Whether the served note already holds a valid cosignature of ours
    /// (else the last post was lost and is worth repeating).
    fn carries_our_cosignature(&self, note: &str) -> bool {
        open_checkpoint(
            note.as_bytes(),
            &self.log_key,
            &[self.cosigner.witness_key()],
            1,
        )
        .is_ok()
    }

    fn cosign(
        &mut self,
        checked: &CheckedCheckpoint,
        note: String,
        now_ms: u64,
        log: &dyn LogSource,
    ) -> Result<Pass, PassError> {
        let submission = self.make_cosignature(checked, note, now_ms)?;
        let posted = log.submit(&submission);
        if posted.is_err() {
            if self.unposted.len() == UNPOSTED_KEPT {
                self.unposted.pop_front();
            }
            self.unposted.push_back(submission);
        }
        Ok(Pass::Cosigned {
            size: checked.size,
            posted,
        })
    }

    /// Cosigns `checked` (whose signed note is `note`) as of `now_ms`,
    /// publishes and saves it: from here on it is the tree cosigned last.
    fn make_cosignature(
        &mut self,
        checked: &CheckedCheckpoint,
        note: String,
        now_ms: u64,
    ) -> Result<CosignatureSubmission, PassError> {
        let line = self
            .cosigner
            .cosign(note.as_bytes(), now_ms / 1000)
            .map_err(PassError::Cosign)?;
        let cosigned = Cosigned {
            size: checked.size,
            root: checked.root,
            note,
            cosigned_at_ms: now_ms,
        };
        let submission = CosignatureSubmission {
            checkpoint: cosigned.note.clone(),
            cosignature: line,
        };
        // Published and saved before the log sees it: after a crash the
        // witness still knows, and shows, the newest tree it vouched for.
        self.published
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .append(&self.state, checked.size, &submission)?;
        self.state.save_cosigned(&cosigned)?;
        self.last = Some(cosigned);
        Ok(submission)
    }

    fn refuse(
        &mut self,
        reason: String,
        last: &Cosigned,
        offered: &CheckedCheckpoint,
        note: String,
        now_ms: u64,
        log: &dyn LogSource,
    ) -> Result<Pass, PassError> {
        let fork = self.fork_record(reason, last, offered, note, now_ms);
        self.state.save_fork(&fork)?;
        self.fork = Some(fork.clone());
        let told = self.tell(last, log, now_ms)?;
        Ok(Pass::ForkDetected(fork, told))
    }

    /// The evidence of a fork: what was cosigned, and what was offered.
    fn fork_record(
        &self,
        reason: String,
        last: &Cosigned,
        offered: &CheckedCheckpoint,
        note: String,
        now_ms: u64,
    ) -> Fork {
        Fork {
            reason,
            log: self.log_key.origin().to_owned(),
            detected_at_ms: now_ms,
            cosigned: SeenCheckpoint {
                size: last.size,
                root: last.root,
                note: last.note.clone(),
            },
            offered: SeenCheckpoint {
                size: offered.size,
                root: offered.root,
                note,
            },
        }
    }
}
