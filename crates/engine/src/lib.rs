//! The rules engine of Eldorado: the rules of `shared/SPEC.md` as pure
//! functions, the block generator and the commitments of SPEC §7.
//!
//! This crate does no I/O and knows nothing of HTTP, databases, wasm,
//! timing or drawing: the server generates and signs with it, the browser
//! verifies with it, the CLI audits with it.

pub mod commit;
pub mod deal;
pub mod export;
pub mod fixed_bytes;
pub mod generate;
pub mod grid;
pub mod line;
pub mod merkle;
pub mod prize_table;
pub mod stake;
pub mod symbol;
pub mod ticket;
pub mod transparency;
pub mod verify;

pub use commit::{Commitment, LoggedSale, Money, Sale, SignedCommitment, SignedSale};
pub use ed25519_dalek::SigningKey;
pub use fixed_bytes::{ClientNonce, Hash, PublicKeyBytes, Salt, SignatureBytes};
pub use generate::{generate_block, Block, Params};
pub use grid::Grid;
pub use line::{evaluate_line, Award, Combination, LineOutcome};
pub use stake::Stake;
pub use symbol::Symbol;
pub use ticket::{evaluate_grids, validate_ticket, Evaluation, Ticket, TicketError};
pub use verify::{
    verify_receipt, verify_sale, verify_sale_remembering, BalanceChange, Check, CommitmentSeen,
    Expected, Report, VerifiedCommitments,
};

pub use rand::SeedableRng;
/// The CSPRNG used to generate blocks: ChaCha20, seeded from the OS by the
/// caller (the engine itself never touches the OS).
pub use rand_chacha::ChaCha20Rng as BlockRng;
