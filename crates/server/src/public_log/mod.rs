//! The public record (docs/PROTOCOL.md §9) on the server's side: the log's
//! identity and witnesses (`identity`), the sequencer that logs what was
//! stored and signs checkpoints (`sequencer`), the tree's hashes read
//! back from the store for proofs (`stored_hashes`), and the newest
//! checkpoint its witnesses cosigned, which the database must hold before
//! the server sells (`witnessed`).

mod identity;
pub mod push;
mod sequencer;
mod stored_hashes;
mod witnessed;

pub use identity::{IdentityError, LogIdentity};
pub use sequencer::{sequence_once, SequenceError, Sequenced};
pub use stored_hashes::StoredHashes;
pub use witnessed::{Behind, Witnessed, WitnessedError, WITNESSED_FILE};
