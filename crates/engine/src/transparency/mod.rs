//! The public record: one append-only log per deployment of every block
//! commitment and every sale, in the shape of Certificate Transparency
//! (RFC 6962 hashing) with C2SP checkpoints, signed notes and witness
//! cosignatures (`cosignature/v1`). docs/PROTOCOL.md specifies every byte.
//!
//! The tree arithmetic (stored hashes, record and tree proofs) is the
//! `tlog_tiles` crate's, the note format the `signed_note` crate's; this
//! module fixes what a leaf is and which keys must have signed.

mod add_checkpoint;
mod leaf;
mod memory_tree;
mod note;
mod page_build;
mod proof;

pub use add_checkpoint::{
    add_checkpoint_body, parse_add_checkpoint, AddCheckpoint, AddCheckpointError, MAX_PROOF_LINES,
};
pub use leaf::{LeafError, LogEntry};
pub use memory_tree::MemoryTree;
pub use note::{
    cosignature_message, open_checkpoint, sign_checkpoint, CheckedCheckpoint, CheckpointError,
    Cosigner, LogKey, WitnessKey,
};
pub use page_build::{page_fingerprint, PageBuild, PAGE_TAG};
pub use proof::{record_hash, verify_consistency, verify_inclusion, ProofError};
/// The tree arithmetic the server and the auditor build logs with.
pub use tlog_tiles as tlog;
