//! A purchase: a ticket bought, paid and signed, but not dealt yet. It
//! names the beacon round that will deal it, and it is on the public
//! record before that round is published: when the operator commits to
//! the purchase, nobody can know which position it will receive.

use crate::commit::{verify_with, ByteReader, SignatureError, MAX_PLAYER_LEN};
use crate::fixed_bytes::{ClientNonce, SignatureBytes};
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};

/// Domain tag of a purchase's signed bytes (docs/PROTOCOL.md §10).
pub const PURCHASE_TAG: &[u8] = b"ELDORADO-BUY-V1";

/// Everything the operator signs of a purchase. Its sale, once dealt, has
/// the same block, player, nonce and balance before, and its own sale id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Purchase {
    /// The operator's id of the purchase (not of its sale).
    pub purchase_id: u64,
    pub block: u64,
    pub tickets: u32,
    pub player: String,
    pub bought_at_ms: u64,
    pub client_nonce: ClientNonce,
    /// The beacon round whose randomness deals it.
    pub round: u64,
    /// The buyer's balance before the stake, and after it (no prize yet).
    pub balance_before_cents: u64,
    pub balance_after_cents: u64,
}

impl Purchase {
    pub fn canonical_bytes(&self) -> Result<Vec<u8>, SignatureError> {
        let player = self.player.as_bytes();
        if player.len() > MAX_PLAYER_LEN {
            return Err(SignatureError::FieldTooLong);
        }
        let mut bytes = Vec::with_capacity(PURCHASE_TAG.len() + 77 + player.len());
        bytes.extend_from_slice(PURCHASE_TAG);
        bytes.extend_from_slice(&self.purchase_id.to_be_bytes());
        bytes.extend_from_slice(&self.block.to_be_bytes());
        bytes.extend_from_slice(&self.tickets.to_be_bytes());
        bytes.push(player.len() as u8);
        bytes.extend_from_slice(player);
        bytes.extend_from_slice(&self.bought_at_ms.to_be_bytes());
        bytes.extend_from_slice(&self.client_nonce.0);
        bytes.extend_from_slice(&self.round.to_be_bytes());
        bytes.extend_from_slice(&self.balance_before_cents.to_be_bytes());
        bytes.extend_from_slice(&self.balance_after_cents.to_be_bytes());
        Ok(bytes)
    }

    /// Reads [`Purchase::canonical_bytes`] back; `None` unless `bytes` is
    /// exactly one purchase.
    pub fn parse(bytes: &[u8]) -> Option<Purchase> {
        let mut r = ByteReader(bytes.strip_prefix(PURCHASE_TAG)?);
        let purchase = Purchase {
            purchase_id: r.u64()?,
            block: r.u64()?,
            tickets: r.u32()?,
            player: r.short_text()?,
            bought_at_ms: r.u64()?,
            client_nonce: ClientNonce(r.array()?),
            round: r.u64()?,
            balance_before_cents: r.u64()?,
            balance_after_cents: r.u64()?,
        };
        r.0.is_empty().then_some(purchase)
    }

    /// The stake paid: what the balance lost.
    pub fn stake_cents(&self) -> Option<u64> {
        self.balance_before_cents
            .checked_sub(self.balance_after_cents)
    }

    pub fn sign(&self, key: &SigningKey) -> Result<SignatureBytes, SignatureError> {
        Ok(SignatureBytes(
            key.sign(&self.canonical_bytes()?).to_bytes(),
        ))
    }

    pub fn verify(
        &self,
        operator: &VerifyingKey,
        signature: &SignatureBytes,
    ) -> Result<(), SignatureError> {
        verify_with(operator, &self.canonical_bytes()?, signature)
    }
}
