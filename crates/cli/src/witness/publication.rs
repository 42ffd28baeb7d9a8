//! What the witness publishes: every cosignature it made, in order, as it
//! made it (`GET /cosignatures?after=N`). The log cannot hide or re-date
//! them: anyone can tell when this witness first vouched for a record
//! (the first checkpoint larger than its index), whatever the log serves.
//! Kept in the state directory, one JSON line per cosignature, appended
//! and synced before the log sees the cosignature.

use super::state::{StateDir, StateError, PUBLISHED_FILE};
use eldorado_api::{CosignatureSubmission, WitnessCosignatures};

/// Cosignatures in one answer at most.
pub const PAGE: usize = 256;

/// One cosignature as kept: the checkpoint's size, then what was posted.
#[derive(serde::Serialize, serde::Deserialize)]
struct Kept {
    size: u64,
    #[serde(flatten)]
    cosigned: CosignatureSubmission,
}

#[derive(Debug, Default)]
pub struct Publication {
    /// By checkpoint size, ascending (a witness cosigns growing trees).
    entries: Vec<(u64, CosignatureSubmission)>,
}

impl Publication {
    /// What the state directory holds; a last line cut by a crash was
    /// never posted, and is dropped.
    pub fn open(state: &StateDir) -> Result<Publication, StateError> {
        let path = state.path(PUBLISHED_FILE).display().to_string();
        let entries = state
            .lines(PUBLISHED_FILE)?
            .iter()
            .map(|line| {
                let kept: Kept = serde_json::from_str(line).map_err(|e| StateError::Corrupt {
                    path: path.clone(),
                    why: e.to_string(),
                })?;
                Ok((kept.size, kept.cosigned))
            })
            .collect::<Result<_, StateError>>()?;
        Ok(Publication { entries })
    }

    /// Keeps a cosignature of the checkpoint of `size`, synced.
    pub fn append(
        &mut self,
        state: &StateDir,
        size: u64,
        cosigned: &CosignatureSubmission,
    ) -> Result<(), StateError> {
        let kept = Kept {
            size,
            cosigned: cosigned.clone(),
        };
        let mut line = serde_json::to_vec(&kept).map_err(|e| StateError::Corrupt {
            path: state.path(PUBLISHED_FILE).display().to_string(),
            why: e.to_string(),
        })?;
        line.push(b'\n');
        state.append(PUBLISHED_FILE, &line)?;
        self.entries.push((size, cosigned.clone()));
        Ok(())
    }

    /// The newest cosignature.
    pub fn last(&self) -> Option<CosignatureSubmission> {
        self.entries.last().map(|(_, c)| c.clone())
    }

    /// The cosignatures of checkpoints larger than `size`, oldest first,
    /// at most [`PAGE`].
    pub fn after(&self, size: u64) -> WitnessCosignatures {
        let start = self.entries.partition_point(|(s, _)| *s <= size);
        WitnessCosignatures {
            cosignatures: self.entries[start..]
                .iter()
                .take(PAGE)
                .map(|(_, c)| c.clone())
                .collect(),
        }
    }
}
