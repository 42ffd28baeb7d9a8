//! The push side of C2SP tlog-witness: the log posts each new checkpoint
//! to `POST /add-checkpoint` with a consistency proof from the size this
//! witness cosigned last, and gets the cosignature line back at once
//! (docs/PROTOCOL.md §9). The same rules as a pull: only a tree that
//! extends the one cosigned last, and a fork is refused for good.

use super::{Cosigned, PassError, Witness};
use eldorado_engine::transparency::{
    open_checkpoint, parse_add_checkpoint, verify_consistency, CheckpointError,
};

/// Why a push is not cosigned, as the protocol answers it.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// 400.
    #[error("{0}")]
    Malformed(String),
    /// 404: not the log this witness watches.
    #[error("not the log this witness watches: {0}")]
    UnknownOrigin(String),
    /// 403.
    #[error("the checkpoint is not signed by the log's key")]
    NotSigned,
    /// 409: `old` is not the size cosigned last, which the answer gives.
    #[error("the witness cosigned {latest} records last")]
    Conflict { latest: u64 },
    /// 422.
    #[error("the consistency proof does not verify: {0}")]
    BadProof(String),
    /// 503: a fork was seen; nothing is cosigned any more.
    #[error("this witness saw a fork of the log and cosigns nothing")]
    Refusing,
    /// 500.
    #[error(transparent)]
    Failed(#[from] PassError),
}

impl Witness {
    /// Cosigns the pushed checkpoint if it extends the one cosigned last,
    /// and answers the cosignature line. The same checkpoint pushed again
    /// gets the line first made for it: its date stays when this witness
    /// first vouched for those records.
    pub fn add_checkpoint(&mut self, body: &str, now_ms: u64) -> Result<String, Refusal> {
        if self.fork.is_some() {
            return Err(Refusal::Refusing);
        }
        let push = parse_add_checkpoint(body).map_err(|e| Refusal::Malformed(e.to_string()))?;
        let checked =
            open_checkpoint(push.note.as_bytes(), &self.log_key, &[], 0).map_err(|e| match e {
                CheckpointError::WrongOrigin { found, .. } => Refusal::UnknownOrigin(found),
                CheckpointError::Malformed => Refusal::Malformed(e.to_string()),
                _ => Refusal::NotSigned,
            })?;
        if push.old > checked.size {
            return Err(Refusal::Malformed(format!(
                "old size {} is above the checkpoint's {}",
                push.old, checked.size
            )));
        }
        let latest = self.last.as_ref().map_or(0, |last| last.size);
        if push.old != latest {
            return Err(Refusal::Conflict { latest });
        }
        let note = push.note.to_owned();
        if let Some(last) = self.last.clone().filter(|last| last.size > 0) {
            if checked.size == last.size {
                if checked.root != last.root {
                    self.refuse_push(
                        "the same size with another root",
                        &last,
                        &checked,
                        note,
                        now_ms,
                    )?;
                    return Err(Refusal::Conflict { latest });
                }
                return self.first_line(&last, now_ms);
            }
            verify_consistency(
                last.size,
                &last.root,
                checked.size,
                &checked.root,
                &push.proof,
            )
            .map_err(|e| Refusal::BadProof(e.to_string()))?;
        } else if !push.proof.is_empty() {
            return Err(Refusal::BadProof(
                "a proof from the empty tree must be empty".to_owned(),
            ));
        }
        let submission = self.make_cosignature(&checked, note, now_ms)?;
        Ok(submission.cosignature)
    }

    /// The line this witness first made for the checkpoint cosigned last
    /// (a new one if its publication lost it).
    fn first_line(&mut self, last: &Cosigned, now_ms: u64) -> Result<String, Refusal> {
        match self.published_line_of(last) {
            Some(first) => Ok(first.cosignature),
            None => Ok(self
                .cosigner
                .cosign(last.note.as_bytes(), now_ms / 1000)
                .map_err(PassError::Cosign)?),
        }
    }

    /// A pushed checkpoint of the size cosigned last with another root:
    /// both signed by the log, a fork, refused for good.
    fn refuse_push(
        &mut self,
        reason: &str,
        last: &Cosigned,
        offered: &eldorado_engine::transparency::CheckedCheckpoint,
        note: String,
        now_ms: u64,
    ) -> Result<(), Refusal> {
        let fork = self.fork_record(reason.to_owned(), last, offered, note, now_ms);
        self.state.save_fork(&fork).map_err(PassError::State)?;
        eprintln!("{}", fork.line());
        self.fork = Some(fork);
        Ok(())
    }
}
