//! Canonical bytes, leaf hashes and Ed25519 signatures of SPEC §7.
//!
//! Every layout here is specified in docs/PROTOCOL.md; integers are
//! big-endian, grids are their 15 ASCII codes. Signatures cover these bytes,
//! never a JSON serialization.

use crate::fixed_bytes::{ClientNonce, Hash, PublicKeyBytes, SignatureBytes};
use crate::prize_table::prize_table_digest;
use crate::ticket::Ticket;
use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const LEAF_TAG: &[u8] = b"ELDORADO-LEAF-V1";
pub const COMMIT_TAG: &[u8] = b"ELDORADO-COMMIT-V2";
pub const SALE_TAG: &[u8] = b"ELDORADO-SALE-V2";
/// The sale layout that signs the buyer's balances and leaves the Merkle
/// proof out (it is checked against the signed commitment's root anyway):
/// what the public log records (docs/PROTOCOL.md).
pub const SALE_TAG_V3: &[u8] = b"ELDORADO-SALE-V3";
/// Longest player id a sale can carry, in UTF-8 bytes.
pub const MAX_PLAYER_LEN: usize = 255;

/// The bytes hashed into a ticket's leaf.
pub fn leaf_bytes(block: u64, ticket: &Ticket) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(1 + LEAF_TAG.len() + 38 + 15 * ticket.grids.len() + 16);
    bytes.push(0x00);
    bytes.extend_from_slice(LEAF_TAG);
    bytes.extend_from_slice(&block.to_be_bytes());
    bytes.extend_from_slice(&ticket.position.to_be_bytes());
    bytes.extend_from_slice(&ticket.stake_cents.to_be_bytes());
    bytes.extend_from_slice(&ticket.prize_cents.to_be_bytes());
    bytes.push(ticket.extras);
    bytes.push(ticket.grids.len() as u8);
    for grid in &ticket.grids {
        bytes.extend_from_slice(&grid.codes());
    }
    bytes.extend_from_slice(&ticket.salt.0);
    bytes
}

pub fn leaf_hash(block: u64, ticket: &Ticket) -> Hash {
    Hash(Sha256::digest(leaf_bytes(block, ticket)).into())
}

/// Whose money a block's tickets are sold for. Play money (demo players)
/// never buys from a real-money block: the kind is signed into the
/// commitment so that the page can refuse a ticket of the wrong kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Money {
    Real,
    Play,
}

impl Money {
    /// The byte in the commitment's canonical bytes.
    pub const fn byte(self) -> u8 {
        match self {
            Money::Real => 0,
            Money::Play => 1,
        }
    }

    pub const fn from_byte(byte: u8) -> Option<Money> {
        match byte {
            0 => Some(Money::Real),
            1 => Some(Money::Play),
            _ => None,
        }
    }

    /// `"real"` or `"play"`, as in the JSON forms.
    pub const fn as_str(self) -> &'static str {
        match self {
            Money::Real => "real",
            Money::Play => "play",
        }
    }
}

/// What the operator commits to before a block's first sale.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commitment {
    pub block: u64,
    pub stake_cents: u64,
    pub tickets: u32,
    pub money: Money,
    pub prize_table: Hash,
    pub root: Hash,
}

impl Commitment {
    pub fn new(block: u64, stake_cents: u64, tickets: u32, money: Money, root: Hash) -> Commitment {
        Commitment {
            block,
            stake_cents,
            tickets,
            money,
            prize_table: Hash(prize_table_digest()),
            root,
        }
    }

    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(COMMIT_TAG.len() + 85);
        bytes.extend_from_slice(COMMIT_TAG);
        bytes.extend_from_slice(&self.block.to_be_bytes());
        bytes.extend_from_slice(&self.stake_cents.to_be_bytes());
        bytes.extend_from_slice(&self.tickets.to_be_bytes());
        bytes.push(self.money.byte());
        bytes.extend_from_slice(&self.prize_table.0);
        bytes.extend_from_slice(&self.root.0);
        bytes
    }

    /// Reads [`Commitment::canonical_bytes`] back; `None` unless `bytes` is
    /// exactly one commitment with a known money byte.
    pub fn parse(bytes: &[u8]) -> Option<Commitment> {
        let mut r = ByteReader(bytes.strip_prefix(COMMIT_TAG)?);
        let commitment = Commitment {
            block: r.u64()?,
            stake_cents: r.u64()?,
            tickets: r.u32()?,
            money: Money::from_byte(r.array::<1>()?[0])?,
            prize_table: Hash(r.array()?),
            root: Hash(r.array()?),
        };
        r.0.is_empty().then_some(commitment)
    }

    pub fn sign(self, key: &SigningKey) -> SignedCommitment {
        let signature = SignatureBytes(key.sign(&self.canonical_bytes()).to_bytes());
        SignedCommitment {
            commitment: self,
            public_key: PublicKeyBytes(key.verifying_key().to_bytes()),
            signature,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "FlatSignedCommitment")]
pub struct SignedCommitment {
    #[serde(flatten)]
    pub commitment: Commitment,
    pub public_key: PublicKeyBytes,
    pub signature: SignatureBytes,
}

/// The same JSON object read field by field: `flatten` on the reading side
/// buffers every value first, and that machinery was a tenth of the
/// browser game's download.
#[derive(Deserialize)]
struct FlatSignedCommitment {
    block: u64,
    stake_cents: u64,
    tickets: u32,
    money: Money,
    prize_table: Hash,
    root: Hash,
    public_key: PublicKeyBytes,
    signature: SignatureBytes,
}

impl From<FlatSignedCommitment> for SignedCommitment {
    fn from(f: FlatSignedCommitment) -> SignedCommitment {
        SignedCommitment {
            commitment: Commitment {
                block: f.block,
                stake_cents: f.stake_cents,
                tickets: f.tickets,
                money: f.money,
                prize_table: f.prize_table,
                root: f.root,
            },
            public_key: f.public_key,
            signature: f.signature,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the public key is not a valid Ed25519 key")]
    BadKey,
    #[error("signed by another key than the operator's")]
    WrongKey,
    #[error("the signature does not match the signed bytes")]
    Invalid,
    #[error("the player id is over {MAX_PLAYER_LEN} bytes or the proof over 255 hashes")]
    FieldTooLong,
    #[error("the sale carries one balance without the other")]
    PartialBalances,
}

fn verify_bytes(
    key: &PublicKeyBytes,
    message: &[u8],
    signature: &SignatureBytes,
) -> Result<(), SignatureError> {
    verify_with(&verifying_key(key)?, message, signature)
}

/// The operator key as a curve point, ready to verify with (decoding it
/// costs about a tenth of a verification: callers verifying many sales
/// keep it).
pub fn verifying_key(key: &PublicKeyBytes) -> Result<VerifyingKey, SignatureError> {
    VerifyingKey::from_bytes(&key.0).map_err(|_| SignatureError::BadKey)
}

pub(crate) fn verify_with(
    key: &VerifyingKey,
    message: &[u8],
    signature: &SignatureBytes,
) -> Result<(), SignatureError> {
    let signature = ed25519_dalek::Signature::from_bytes(&signature.0);
    key.verify(message, &signature)
        .map_err(|_| SignatureError::Invalid)
}

impl SignedCommitment {
    /// Checks the signature and that it is `operator`'s.
    pub fn verify(&self, operator: &PublicKeyBytes) -> Result<(), SignatureError> {
        if self.public_key != *operator {
            return Err(SignatureError::WrongKey);
        }
        verify_bytes(
            operator,
            &self.commitment.canonical_bytes(),
            &self.signature,
        )
    }
}

/// A sold ticket as the operator attests it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sale {
    /// The operator's id of this sale, unique across blocks.
    pub sale_id: u64,
    pub block: u64,
    /// Tickets in the block: fixes the tree shape the proof walks.
    pub tickets: u32,
    pub ticket: Ticket,
    /// Sibling hashes from the leaf up (docs/PROTOCOL.md).
    pub proof: Vec<Hash>,
    pub player: String,
    /// Unix time of the sale in milliseconds.
    pub sold_at_ms: u64,
    /// The buyer's nonce from the purchase request (all zeros when an API
    /// client sent none): binds this signature to that one request.
    pub client_nonce: ClientNonce,
    /// The buyer's balance before and after the sale, signed from layout
    /// V3 on: both present (V3) or both absent (a V2 receipt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance_before_cents: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance_after_cents: Option<u64>,
}

/// A V3 sale as the public log records it: everything the operator signs,
/// the ticket by its leaf hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoggedSale {
    pub sale_id: u64,
    pub block: u64,
    pub tickets: u32,
    pub position: u32,
    pub ticket_leaf: Hash,
    pub player: String,
    pub sold_at_ms: u64,
    pub client_nonce: ClientNonce,
    pub balance_before_cents: u64,
    pub balance_after_cents: u64,
}

impl LoggedSale {
    /// The V3 signed bytes.
    pub fn canonical_bytes(&self) -> Result<Vec<u8>, SignatureError> {
        let player = self.player.as_bytes();
        if player.len() > MAX_PLAYER_LEN {
            return Err(SignatureError::FieldTooLong);
        }
        let mut bytes = Vec::with_capacity(SALE_TAG_V3.len() + 109 + player.len());
        bytes.extend_from_slice(SALE_TAG_V3);
        bytes.extend_from_slice(&self.sale_id.to_be_bytes());
        bytes.extend_from_slice(&self.block.to_be_bytes());
        bytes.extend_from_slice(&self.tickets.to_be_bytes());
        bytes.extend_from_slice(&self.position.to_be_bytes());
        bytes.extend_from_slice(&self.ticket_leaf.0);
        bytes.push(player.len() as u8);
        bytes.extend_from_slice(player);
        bytes.extend_from_slice(&self.sold_at_ms.to_be_bytes());
        bytes.extend_from_slice(&self.client_nonce.0);
        bytes.extend_from_slice(&self.balance_before_cents.to_be_bytes());
        bytes.extend_from_slice(&self.balance_after_cents.to_be_bytes());
        Ok(bytes)
    }

    /// Reads [`LoggedSale::canonical_bytes`] back; `None` unless `bytes` is
    /// exactly one V3 sale.
    pub fn parse(bytes: &[u8]) -> Option<LoggedSale> {
        let mut r = ByteReader(bytes.strip_prefix(SALE_TAG_V3)?);
        let sale = LoggedSale {
            sale_id: r.u64()?,
            block: r.u64()?,
            tickets: r.u32()?,
            position: r.u32()?,
            ticket_leaf: Hash(r.array()?),
            player: r.short_text()?,
            sold_at_ms: r.u64()?,
            client_nonce: ClientNonce(r.array()?),
            balance_before_cents: r.u64()?,
            balance_after_cents: r.u64()?,
        };
        r.0.is_empty().then_some(sale)
    }

    pub fn verify(
        &self,
        operator: &VerifyingKey,
        signature: &SignatureBytes,
    ) -> Result<(), SignatureError> {
        verify_with(operator, &self.canonical_bytes()?, signature)
    }
}

/// Reads big-endian fields off the front of a byte string.
pub(crate) struct ByteReader<'a>(pub(crate) &'a [u8]);

impl<'a> ByteReader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    pub(crate) fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
    pub(crate) fn u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_be_bytes)
    }
    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_be_bytes)
    }
    /// A UTF-8 text after its one-byte length (a player id).
    pub(crate) fn short_text(&mut self) -> Option<String> {
        let len = usize::from(self.array::<1>()?[0]);
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }
}

impl Sale {
    /// The V3 form of this sale, `None` for a V2 sale (no balances).
    pub fn logged(&self) -> Result<Option<LoggedSale>, SignatureError> {
        match (self.balance_before_cents, self.balance_after_cents) {
            (Some(before), Some(after)) => Ok(Some(LoggedSale {
                sale_id: self.sale_id,
                block: self.block,
                tickets: self.tickets,
                position: self.ticket.position,
                ticket_leaf: self.leaf(),
                player: self.player.clone(),
                sold_at_ms: self.sold_at_ms,
                client_nonce: self.client_nonce,
                balance_before_cents: before,
                balance_after_cents: after,
            })),
            (None, None) => Ok(None),
            _ => Err(SignatureError::PartialBalances),
        }
    }

    pub fn leaf(&self) -> Hash {
        leaf_hash(self.block, &self.ticket)
    }

    /// The signed bytes: V3 when the sale carries balances, else V2.
    pub fn canonical_bytes(&self) -> Result<Vec<u8>, SignatureError> {
        match self.logged()? {
            Some(logged) => logged.canonical_bytes(),
            None => self.canonical_bytes_v2(),
        }
    }

    fn canonical_bytes_v2(&self) -> Result<Vec<u8>, SignatureError> {
        let player = self.player.as_bytes();
        if player.len() > MAX_PLAYER_LEN || self.proof.len() > usize::from(u8::MAX) {
            return Err(SignatureError::FieldTooLong);
        }
        let mut bytes =
            Vec::with_capacity(SALE_TAG.len() + 116 + 32 * self.proof.len() + player.len());
        bytes.extend_from_slice(SALE_TAG);
        bytes.extend_from_slice(&self.sale_id.to_be_bytes());
        bytes.extend_from_slice(&self.block.to_be_bytes());
        bytes.extend_from_slice(&self.tickets.to_be_bytes());
        bytes.extend_from_slice(&self.ticket.position.to_be_bytes());
        bytes.extend_from_slice(&self.leaf().0);
        bytes.push(self.proof.len() as u8);
        for sibling in &self.proof {
            bytes.extend_from_slice(&sibling.0);
        }
        bytes.push(player.len() as u8);
        bytes.extend_from_slice(player);
        bytes.extend_from_slice(&self.sold_at_ms.to_be_bytes());
        bytes.extend_from_slice(&self.client_nonce.0);
        Ok(bytes)
    }

    pub fn sign(self, key: &SigningKey) -> Result<SignedSale, SignatureError> {
        let signature = SignatureBytes(key.sign(&self.canonical_bytes()?).to_bytes());
        Ok(SignedSale {
            sale: self,
            signature,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "FlatSignedSale")]
pub struct SignedSale {
    #[serde(flatten)]
    pub sale: Sale,
    pub signature: SignatureBytes,
}

/// Read field by field, as [`FlatSignedCommitment`].
#[derive(Deserialize)]
struct FlatSignedSale {
    sale_id: u64,
    block: u64,
    tickets: u32,
    ticket: Ticket,
    proof: Vec<Hash>,
    player: String,
    sold_at_ms: u64,
    client_nonce: ClientNonce,
    #[serde(default)]
    balance_before_cents: Option<u64>,
    #[serde(default)]
    balance_after_cents: Option<u64>,
    signature: SignatureBytes,
}

impl From<FlatSignedSale> for SignedSale {
    fn from(f: FlatSignedSale) -> SignedSale {
        SignedSale {
            sale: Sale {
                sale_id: f.sale_id,
                block: f.block,
                tickets: f.tickets,
                ticket: f.ticket,
                proof: f.proof,
                player: f.player,
                sold_at_ms: f.sold_at_ms,
                client_nonce: f.client_nonce,
                balance_before_cents: f.balance_before_cents,
                balance_after_cents: f.balance_after_cents,
            },
            signature: f.signature,
        }
    }
}

impl SignedSale {
    pub fn verify_signature(&self, operator: &PublicKeyBytes) -> Result<(), SignatureError> {
        verify_bytes(operator, &self.sale.canonical_bytes()?, &self.signature)
    }

    /// [`SignedSale::verify_signature`] with the operator key already
    /// decoded by [`verifying_key`].
    pub fn verify_signature_with(&self, operator: &VerifyingKey) -> Result<(), SignatureError> {
        verify_with(operator, &self.sale.canonical_bytes()?, &self.signature)
    }
}

/// Builds an operator key from 32 secret bytes (drawn by the caller from the OS).
pub fn signing_key_from_secret(secret: [u8; 32]) -> SigningKey {
    SigningKey::from_bytes(&secret)
}

pub fn public_key_of(key: &SigningKey) -> PublicKeyBytes {
    PublicKeyBytes(key.verifying_key().to_bytes())
}
