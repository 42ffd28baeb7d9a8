//! What the witness publishes: every cosignature it made, in order, as it
//! made it (`GET /cosignatures?after=N`). The log cannot hide or re-date
//! them: anyone can tell when this witness first vouched for a record
//! (the first checkpoint larger than its index), whatever the log serves.
//! Kept in the state directory, one JSON line per cosignature, appended
//! and synced before the log sees the cosignature. A witness that had
//! cosigned before it published (an older version) begins its file with
//! the size it had cosigned then (`since`): of the records below it, its
//! first cosignature is not in the publication.

use super::state::{StateDir, StateError, PUBLISHED_FILE};
use eldorado_api::{CosignatureSubmission, WitnessCosignatures};

/// Cosignatures in one answer at most.
pub const PAGE: usize = 256;

/// One line of the file: where the publication begins, or one
/// cosignature (the checkpoint's size, then what was posted).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum Line {
    Since {
        since: u64,
    },
    Kept {
        size: u64,
        #[serde(flatten)]
        cosigned: CosignatureSubmission,
    },
}

#[derive(Debug, Default)]
pub struct Publication {
    /// The size this witness had cosigned when it began publishing.
    since: u64,
    /// By checkpoint size, ascending (a witness cosigns growing trees).
    entries: Vec<(u64, CosignatureSubmission)>,
}

impl Publication {
    /// What the state directory holds; a last line cut by a crash was
    /// never posted, and is dropped. A witness that has cosigned up to
    /// `cosigned` records and holds no publication yet begins one there.
    pub fn open(state: &StateDir, cosigned: u64) -> Result<Publication, StateError> {
        let path = state.path(PUBLISHED_FILE).display().to_string();
        let corrupt = |why: String| StateError::Corrupt {
            path: path.clone(),
            why,
        };
        let mut publication = Publication::default();
        let lines = state.lines(PUBLISHED_FILE)?;
        if lines.is_empty() && cosigned > 0 {
            let line = Line::Since { since: cosigned };
            let mut bytes = serde_json::to_vec(&line).map_err(|e| corrupt(e.to_string()))?;
            bytes.push(b'\n');
            state.append(PUBLISHED_FILE, &bytes)?;
            publication.since = cosigned;
        }
        for (n, line) in lines.iter().enumerate() {
            match serde_json::from_str(line).map_err(|e| corrupt(e.to_string()))? {
                Line::Since { since } if n == 0 => publication.since = since,
                Line::Since { .. } => return Err(corrupt("a second beginning".to_owned())),
                Line::Kept { size, cosigned } => publication.entries.push((size, cosigned)),
            }
        }
        Ok(publication)
    }

    /// Keeps a cosignature of the checkpoint of `size`, synced.
    pub fn append(
        &mut self,
        state: &StateDir,
        size: u64,
        cosigned: &CosignatureSubmission,
    ) -> Result<(), StateError> {
        let kept = Line::Kept {
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
            since: self.since,
            cosignatures: self.entries[start..]
                .iter()
                .take(PAGE)
                .map(|(_, c)| c.clone())
                .collect(),
        }
    }
}
