//! Checkpoints (C2SP tlog-checkpoint) as signed notes (C2SP signed-note):
//! the log's own signature by the operator key (algorithm 0x01, Ed25519),
//! and witnesses' cosignatures (C2SP tlog-cosignature, `cosignature/v1`,
//! algorithm 0x04: an 8-byte big-endian timestamp, then an Ed25519
//! signature of `cosignature/v1\ntime <T>\n` followed by the checkpoint's
//! text).

use crate::fixed_bytes::Hash;
use base64::prelude::{Engine, BASE64_STANDARD};
use ed25519_dalek::{Signer as _, SigningKey, Verifier as _, VerifyingKey};
use signed_note::{key_id, Note, Signer, Verifier, VerifierList};
use tlog_tiles::{tlog, Checkpoint};

const ALG_ED25519: u8 = 0x01;
const ALG_COSIGNATURE_V1: u8 = 0x04;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    #[error("the checkpoint is not a well-formed signed note")]
    Malformed,
    #[error("the checkpoint is for log {found:?}, not {expected:?}")]
    WrongOrigin { expected: String, found: String },
    #[error("the log's signature is missing or does not verify")]
    LogSignature,
    #[error("a cosignature of witness {0:?} does not verify")]
    BadCosignature(String),
    #[error("{found} of the {quorum} witness cosignatures required")]
    TooFewCosignatures { found: usize, quorum: usize },
    #[error("the key {0:?} is not a valid verifier key")]
    BadKey(String),
}

/// A named Ed25519 key in the signed-note verifier key form
/// `<name>+<key id, 8 hex>+<base64 of algorithm byte ‖ key>`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct NamedKey {
    name: String,
    id: u32,
    key: VerifyingKey,
}

impl NamedKey {
    fn new(name: &str, key: VerifyingKey, alg: u8) -> Result<NamedKey, CheckpointError> {
        if !signed_note::is_key_name_valid(name) {
            return Err(CheckpointError::BadKey(name.to_owned()));
        }
        Ok(NamedKey {
            name: name.to_owned(),
            id: key_id(name, &alg_key(alg, &key)),
            key,
        })
    }

    fn parse(vkey: &str, alg: u8) -> Result<NamedKey, CheckpointError> {
        let bad = || CheckpointError::BadKey(vkey.to_owned());
        let mut parts = vkey.splitn(3, '+');
        let (Some(name), Some(id16), Some(key64)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let bytes = BASE64_STANDARD.decode(key64).map_err(|_| bad())?;
        let (&[found_alg], key) = bytes.split_at_checked(1).ok_or_else(bad)? else {
            return Err(bad());
        };
        let key: [u8; 32] = key.try_into().map_err(|_| bad())?;
        let key = VerifyingKey::from_bytes(&key).map_err(|_| bad())?;
        let named = NamedKey::new(name, key, alg)?;
        if found_alg != alg || id16.len() != 8 || id16 != format!("{:08x}", named.id) {
            return Err(bad());
        }
        Ok(named)
    }

    fn vkey(&self, alg: u8) -> String {
        format!(
            "{}+{:08x}+{}",
            self.name,
            self.id,
            BASE64_STANDARD.encode(alg_key(alg, &self.key))
        )
    }
}

fn alg_key(alg: u8, key: &VerifyingKey) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(33);
    bytes.push(alg);
    bytes.extend_from_slice(key.as_bytes());
    bytes
}

/// The log's key: the operator key named by the log's origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogKey(NamedKey);

impl LogKey {
    pub fn new(origin: &str, key: VerifyingKey) -> Result<LogKey, CheckpointError> {
        NamedKey::new(origin, key, ALG_ED25519).map(LogKey)
    }
    pub fn parse(vkey: &str) -> Result<LogKey, CheckpointError> {
        NamedKey::parse(vkey, ALG_ED25519).map(LogKey)
    }
    pub fn origin(&self) -> &str {
        &self.0.name
    }
    pub fn key(&self) -> &VerifyingKey {
        &self.0.key
    }
    /// The signed-note verifier key, as `/api/config` announces it.
    pub fn vkey(&self) -> String {
        self.0.vkey(ALG_ED25519)
    }
}

/// A witness's cosigning key, by its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WitnessKey(NamedKey);

impl WitnessKey {
    pub fn new(name: &str, key: VerifyingKey) -> Result<WitnessKey, CheckpointError> {
        NamedKey::new(name, key, ALG_COSIGNATURE_V1).map(WitnessKey)
    }
    pub fn parse(vkey: &str) -> Result<WitnessKey, CheckpointError> {
        NamedKey::parse(vkey, ALG_COSIGNATURE_V1).map(WitnessKey)
    }
    pub fn name(&self) -> &str {
        &self.0.name
    }
    pub fn key_id(&self) -> u32 {
        self.0.id
    }
    pub fn vkey(&self) -> String {
        self.0.vkey(ALG_COSIGNATURE_V1)
    }
}

struct LogSigner<'a> {
    key: &'a NamedKey,
    signing: &'a SigningKey,
}

impl Signer for LogSigner<'_> {
    fn name(&self) -> &str {
        &self.key.name
    }
    fn key_id(&self) -> u32 {
        self.key.id
    }
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, signature::Error> {
        Ok(self.signing.sign(msg).to_vec())
    }
}

/// Signs the checkpoint of a tree of `size` records with root `root`: the
/// whole signed note, as served.
pub fn sign_checkpoint(
    origin: &str,
    size: u64,
    root: &Hash,
    key: &SigningKey,
) -> Result<Vec<u8>, CheckpointError> {
    let named = NamedKey::new(origin, key.verifying_key(), ALG_ED25519)?;
    let text = Checkpoint::new(origin, size, tlog::Hash(root.0), "")
        .map_err(|_| CheckpointError::Malformed)?
        .to_bytes();
    let mut note = Note::new(&text, &[]).map_err(|_| CheckpointError::Malformed)?;
    note.add_sigs(&[&LogSigner {
        key: &named,
        signing: key,
    }])
    .map_err(|_| CheckpointError::Malformed)?;
    Ok(note.to_bytes())
}

/// What a witness signs for a checkpoint text at `timestamp` (seconds).
pub fn cosignature_message(text: &[u8], timestamp: u64) -> Vec<u8> {
    let mut message = format!("cosignature/v1\ntime {timestamp}\n").into_bytes();
    message.extend_from_slice(text);
    message
}

/// A witness's signer: `cosign` returns the signature line to append to
/// the checkpoint.
pub struct Cosigner {
    key: NamedKey,
    signing: SigningKey,
}

impl Cosigner {
    pub fn new(name: &str, signing: SigningKey) -> Result<Cosigner, CheckpointError> {
        Ok(Cosigner {
            key: NamedKey::new(name, signing.verifying_key(), ALG_COSIGNATURE_V1)?,
            signing,
        })
    }

    pub fn witness_key(&self) -> WitnessKey {
        WitnessKey(self.key.clone())
    }

    /// The signature line (`— <name> <base64>\n`) of this witness over the
    /// text of `checkpoint` (a signed note) at `timestamp`.
    pub fn cosign(&self, checkpoint: &[u8], timestamp: u64) -> Result<String, CheckpointError> {
        let note = Note::from_bytes(checkpoint).map_err(|_| CheckpointError::Malformed)?;
        let signature = self
            .signing
            .sign(&cosignature_message(note.text(), timestamp));
        let mut sig = timestamp.to_be_bytes().to_vec();
        sig.extend_from_slice(&signature.to_bytes());
        let line = signed_note::Signature::new(self.key.name.clone(), self.key.id, sig)
            .map_err(|_| CheckpointError::Malformed)?
            .to_bytes();
        String::from_utf8(line).map_err(|_| CheckpointError::Malformed)
    }
}

struct LogVerifier(NamedKey);

impl Verifier for LogVerifier {
    fn name(&self) -> &str {
        &self.0.name
    }
    fn key_id(&self) -> u32 {
        self.0.id
    }
    fn verify(&self, msg: &[u8], sig: &[u8]) -> bool {
        let Ok(sig) = ed25519_dalek::Signature::from_slice(sig) else {
            return false;
        };
        self.0.key.verify(msg, &sig).is_ok()
    }
}

struct CosignatureVerifier(NamedKey);

impl Verifier for CosignatureVerifier {
    fn name(&self) -> &str {
        &self.0.name
    }
    fn key_id(&self) -> u32 {
        self.0.id
    }
    fn verify(&self, msg: &[u8], sig: &[u8]) -> bool {
        let Some((timestamp, sig)) = sig.split_first_chunk::<8>() else {
            return false;
        };
        let Ok(sig) = ed25519_dalek::Signature::from_slice(sig) else {
            return false;
        };
        let message = cosignature_message(msg, u64::from_be_bytes(*timestamp));
        self.0.key.verify(&message, &sig).is_ok()
    }
}

/// A checkpoint whose log signature and required cosignatures verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedCheckpoint {
    pub size: u64,
    pub root: Hash,
    /// The witnesses whose cosignatures verified, by name.
    pub witnesses: Vec<String>,
    /// When each of them cosigned (Unix seconds, as it signed them), in
    /// the order of `witnesses`.
    pub cosigned_at: Vec<u64>,
}

impl CheckedCheckpoint {
    /// The second by which at least `quorum` of its witnesses had
    /// cosigned it (the `quorum`-th earliest cosignature): it was on the
    /// record before `(t + 1) × 1000` ms. `None` with fewer, or quorum 0.
    pub fn quorum_cosigned_at(&self, quorum: usize) -> Option<u64> {
        crate::deal::quorum_time(&self.cosigned_at, quorum)
    }
}

/// Opens a served checkpoint: the text is a checkpoint of `log`'s origin,
/// the log signed it, and at least `quorum` of `witnesses` cosigned it.
/// Signatures by unknown keys are ignored; a known key's bad signature is
/// an error.
pub fn open_checkpoint(
    note: &[u8],
    log: &LogKey,
    witnesses: &[WitnessKey],
    quorum: usize,
) -> Result<CheckedCheckpoint, CheckpointError> {
    let parsed = Note::from_bytes(note).map_err(|_| CheckpointError::Malformed)?;
    let checkpoint =
        Checkpoint::from_bytes(parsed.text()).map_err(|_| CheckpointError::Malformed)?;
    if checkpoint.origin() != log.origin() {
        return Err(CheckpointError::WrongOrigin {
            expected: log.origin().to_owned(),
            found: checkpoint.origin().to_owned(),
        });
    }
    let log_only = VerifierList::new(vec![Box::new(LogVerifier(log.0.clone()))]);
    parsed
        .verify(&log_only)
        .map_err(|_| CheckpointError::LogSignature)?;
    let mut cosigned = Vec::new();
    let mut cosigned_at = Vec::new();
    if !witnesses.is_empty() {
        let list = VerifierList::new(
            witnesses
                .iter()
                .map(|w| Box::new(CosignatureVerifier(w.0.clone())) as Box<dyn Verifier>)
                .collect(),
        );
        match parsed.verify(&list) {
            Ok((verified, _)) => {
                cosigned = verified.iter().map(|s| s.name().to_owned()).collect();
                cosigned_at = verified
                    .iter()
                    .map(|s| {
                        s.signature()
                            .first_chunk::<8>()
                            .map_or(0, |t| u64::from_be_bytes(*t))
                    })
                    .collect();
            }
            Err(signed_note::NoteError::InvalidSignature { name, .. }) => {
                return Err(CheckpointError::BadCosignature(name))
            }
            Err(signed_note::NoteError::UnverifiedNote) => {}
            Err(_) => return Err(CheckpointError::Malformed),
        }
    }
    if cosigned.len() < quorum {
        return Err(CheckpointError::TooFewCosignatures {
            found: cosigned.len(),
            quorum,
        });
    }
    Ok(CheckedCheckpoint {
        size: checkpoint.size(),
        root: Hash(checkpoint.hash().0),
        witnesses: cosigned,
        cosigned_at,
    })
}
