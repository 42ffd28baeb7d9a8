//! What one leaf of the log is: a signed message followed by its 64-byte
//! Ed25519 signature. The message's own tag tells a commitment
//! (`ELDORADO-COMMIT-V2`) from a purchase (`ELDORADO-BUY-V1`), a sale
//! (`ELDORADO-SALE-V3`) and a build of the page (`ELDORADO-PAGE-V1`).

use super::page_build::PageBuild;
use crate::commit::{Commitment, LoggedSale, SignatureError, SignedCommitment, SignedSale};
use crate::deal::Purchase;
use crate::fixed_bytes::SignatureBytes;
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};

/// One leaf of the log, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogEntry {
    Commitment {
        commitment: Commitment,
        signature: SignatureBytes,
    },
    Purchase {
        purchase: Purchase,
        signature: SignatureBytes,
    },
    Sale {
        sale: LoggedSale,
        signature: SignatureBytes,
    },
    Page {
        page: PageBuild,
        signature: SignatureBytes,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LeafError {
    #[error("the leaf is neither a commitment, a purchase, a V3 sale nor a page")]
    Malformed,
    #[error("the sale is a V2 sale: its balances are not signed, so it cannot be logged")]
    NotLoggable,
    #[error(transparent)]
    Signature(#[from] SignatureError),
}

const SIGNATURE_LEN: usize = 64;

impl LogEntry {
    /// The leaf of a commitment as the operator signed it.
    pub fn of_commitment(signed: &SignedCommitment) -> LogEntry {
        LogEntry::Commitment {
            commitment: signed.commitment.clone(),
            signature: signed.signature,
        }
    }

    /// The leaf of a V3 sale as the operator signed it.
    pub fn of_sale(signed: &SignedSale) -> Result<LogEntry, LeafError> {
        let sale = signed.sale.logged()?.ok_or(LeafError::NotLoggable)?;
        Ok(LogEntry::Sale {
            sale,
            signature: signed.signature,
        })
    }

    /// Signs `sale` with the operator key: the same signature as the
    /// `SignedSale` of the same sale (Ed25519 is deterministic).
    pub fn sign_sale(sale: LoggedSale, key: &SigningKey) -> Result<LogEntry, LeafError> {
        let signature = SignatureBytes(key.sign(&sale.canonical_bytes()?).to_bytes());
        Ok(LogEntry::Sale { sale, signature })
    }

    /// Signs `purchase` with the operator key.
    pub fn sign_purchase(purchase: Purchase, key: &SigningKey) -> Result<LogEntry, LeafError> {
        let signature = purchase.sign(key)?;
        Ok(LogEntry::Purchase {
            purchase,
            signature,
        })
    }

    /// Signs `page` with the operator key.
    pub fn sign_page(page: PageBuild, key: &SigningKey) -> LogEntry {
        let signature = page.sign(key);
        LogEntry::Page { page, signature }
    }

    /// The leaf's bytes: the signed message, then its signature.
    pub fn to_leaf(&self) -> Result<Vec<u8>, LeafError> {
        let (mut bytes, signature) = match self {
            LogEntry::Commitment {
                commitment,
                signature,
            } => (commitment.canonical_bytes(), signature),
            LogEntry::Purchase {
                purchase,
                signature,
            } => (purchase.canonical_bytes()?, signature),
            LogEntry::Sale { sale, signature } => (sale.canonical_bytes()?, signature),
            LogEntry::Page { page, signature } => (page.canonical_bytes(), signature),
        };
        bytes.extend_from_slice(&signature.0);
        Ok(bytes)
    }

    pub fn parse(leaf: &[u8]) -> Result<LogEntry, LeafError> {
        let split = leaf
            .len()
            .checked_sub(SIGNATURE_LEN)
            .ok_or(LeafError::Malformed)?;
        let (message, signature) = leaf.split_at(split);
        let signature = SignatureBytes(signature.try_into().map_err(|_| LeafError::Malformed)?);
        if let Some(commitment) = Commitment::parse(message) {
            return Ok(LogEntry::Commitment {
                commitment,
                signature,
            });
        }
        if let Some(purchase) = Purchase::parse(message) {
            return Ok(LogEntry::Purchase {
                purchase,
                signature,
            });
        }
        if let Some(page) = PageBuild::parse(message) {
            return Ok(LogEntry::Page { page, signature });
        }
        LoggedSale::parse(message)
            .map(|sale| LogEntry::Sale { sale, signature })
            .ok_or(LeafError::Malformed)
    }

    /// Checks the operator's signature on the leaf's message.
    pub fn verify(&self, operator: &VerifyingKey) -> Result<(), SignatureError> {
        match self {
            LogEntry::Commitment {
                commitment,
                signature,
            } => crate::commit::verify_with(operator, &commitment.canonical_bytes(), signature),
            LogEntry::Purchase {
                purchase,
                signature,
            } => purchase.verify(operator, signature),
            LogEntry::Sale { sale, signature } => sale.verify(operator, signature),
            LogEntry::Page { page, signature } => page.verify(operator, signature),
        }
    }

    /// The block the record is of; `None` for a page record.
    pub fn block(&self) -> Option<u64> {
        match self {
            LogEntry::Commitment { commitment, .. } => Some(commitment.block),
            LogEntry::Purchase { purchase, .. } => Some(purchase.block),
            LogEntry::Sale { sale, .. } => Some(sale.block),
            LogEntry::Page { .. } => None,
        }
    }
}
