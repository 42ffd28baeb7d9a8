//! The public randomness a deal draws from: rounds of a drand beacon of
//! the `bls-unchained-g1-rfc9380` scheme (the League of Entropy's
//! quicknet, or `eldorado beacon` locally). Round `r`'s signature is a BLS
//! signature on G1 of `SHA-256(u64be(r))` under a public key on G2, its
//! randomness `SHA-256(signature)`; round `r` is published at
//! `genesis + (r - 1) × period` and not before.
//!
//! Verification is the `drand-verify` crate's.

use drand_verify::{derive_randomness, G2PubkeyRfc, Pubkey};

/// The scheme every beacon the engine accepts uses.
pub const BEACON_SCHEME: &str = "bls-unchained-g1-rfc9380";

/// A compressed G2 point: a beacon's public key.
pub const BEACON_KEY_LEN: usize = 96;
/// A compressed G1 point: one round's signature.
pub const BEACON_SIGNATURE_LEN: usize = 48;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BeaconError {
    #[error("the beacon key is not a point of G2")]
    BadKey,
    #[error("round {round}'s signature is not a point of G1")]
    BadSignature { round: u64 },
    #[error("round {round}'s signature is not the beacon's")]
    WrongSignature { round: u64 },
    #[error("round 0 does not exist: rounds count from 1")]
    RoundZero,
    #[error("round {round}'s signature could not be checked here")]
    NotChecked { round: u64 },
}

impl BeaconError {
    /// One number per kind of error, for a check that runs where Rust's
    /// types do not cross: the page checks rounds in a WebAssembly module
    /// of its own (`crates/beacon-check`), which answers with this code.
    pub fn code(&self) -> u8 {
        match self {
            BeaconError::BadKey => 1,
            BeaconError::BadSignature { .. } => 2,
            BeaconError::WrongSignature { .. } => 3,
            BeaconError::RoundZero => 4,
            BeaconError::NotChecked { .. } => 5,
        }
    }

    /// The error [`BeaconError::code`] gave for round `round`; an unknown
    /// code reads as a round not checked.
    pub fn from_code(code: u8, round: u64) -> BeaconError {
        match code {
            1 => BeaconError::BadKey,
            2 => BeaconError::BadSignature { round },
            3 => BeaconError::WrongSignature { round },
            4 => BeaconError::RoundZero,
            _ => BeaconError::NotChecked { round },
        }
    }
}

/// Checks a round's signature under the beacon key a verifier pins and
/// gives the round's randomness. [`BeaconKey`] is the check itself; the
/// page passes one that calls the same check in a module it loads once the
/// game is playable, since the BLS12-381 arithmetic is most of the code a
/// deal's check needs and nothing before the first deal needs it.
pub trait VerifyRound {
    fn randomness(
        &self,
        round: u64,
        signature: &[u8; BEACON_SIGNATURE_LEN],
    ) -> Result<[u8; 32], BeaconError>;
}

/// A beacon as a verifier pins it.
pub struct BeaconKey(G2PubkeyRfc);

impl BeaconKey {
    pub fn from_bytes(bytes: &[u8; BEACON_KEY_LEN]) -> Result<BeaconKey, BeaconError> {
        G2PubkeyRfc::from_fixed(*bytes)
            .map(BeaconKey)
            .map_err(|_| BeaconError::BadKey)
    }

    /// Checks round `round`'s signature and returns its randomness.
    pub fn verify(
        &self,
        round: u64,
        signature: &[u8; BEACON_SIGNATURE_LEN],
    ) -> Result<[u8; 32], BeaconError> {
        if round == 0 {
            return Err(BeaconError::RoundZero);
        }
        match self.0.verify(round, b"", signature) {
            Ok(true) => Ok(derive_randomness(signature)),
            Ok(false) => Err(BeaconError::WrongSignature { round }),
            Err(_) => Err(BeaconError::BadSignature { round }),
        }
    }
}

impl VerifyRound for BeaconKey {
    fn randomness(
        &self,
        round: u64,
        signature: &[u8; BEACON_SIGNATURE_LEN],
    ) -> Result<[u8; 32], BeaconError> {
        self.verify(round, signature)
    }
}

/// When a beacon's rounds are published.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeaconClock {
    pub genesis_ms: u64,
    pub period_ms: u64,
}

impl BeaconClock {
    /// The time round `round` is published (round 1 at genesis).
    pub fn time_of(&self, round: u64) -> u64 {
        self.genesis_ms
            .saturating_add(round.saturating_sub(1).saturating_mul(self.period_ms))
    }

    /// The last round published at `now_ms`, 0 before genesis.
    pub fn round_at(&self, now_ms: u64) -> u64 {
        match now_ms.checked_sub(self.genesis_ms) {
            Some(elapsed) => elapsed / self.period_ms.max(1) + 1,
            None => 0,
        }
    }

    /// The first round published strictly after `ms`.
    pub fn first_round_after(&self, ms: u64) -> u64 {
        self.round_at(ms) + 1
    }
}
