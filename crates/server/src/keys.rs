//! The operator's secrets in the data directory: the Ed25519 signing key and
//! the operator API key. Both are created on first start with mode 0600,
//! and are never served nor logged.

use eldorado_engine::commit::signing_key_from_secret;
use eldorado_engine::SigningKey;
use rand::rngs::OsRng;
use rand::TryRngCore;
use sha2::{Digest, Sha256};
use std::fs::OpenOptions;
use std::io::{ErrorKind, Write};
use std::path::Path;

pub const SIGNING_KEY_FILE: &str = "operator-ed25519.key";
pub const API_KEY_FILE: &str = "operator-api.key";
/// Overrides the operator API key file when set.
pub const API_KEY_ENV: &str = "ELDORADO_OPERATOR_API_KEY";

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{0} does not hold 64 hex digits")]
    Malformed(String),
    #[error("{0} can be read by other users (mode {1:o}); run chmod 600 on it")]
    TooOpen(String, u32),
    #[error("the operating system gave no randomness: {0}")]
    Random(String),
    #[error("the operator API key in ${API_KEY_ENV} must be at least 32 characters")]
    WeakApiKey,
}

pub fn os_random<const N: usize>() -> Result<[u8; N], KeyError> {
    let mut bytes = [0u8; N];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| KeyError::Random(e.to_string()))?;
    Ok(bytes)
}

/// Reads a 32-byte hex secret, or creates it (0600, never overwriting).
fn secret_file(path: &Path) -> Result<[u8; 32], KeyError> {
    let io = |source| KeyError::Io {
        path: path.display().to_string(),
        source,
    };
    match std::fs::read_to_string(path) {
        Ok(text) => {
            check_mode(path)?;
            let mut secret = [0u8; 32];
            hex::decode_to_slice(text.trim(), &mut secret)
                .map_err(|_| KeyError::Malformed(path.display().to_string()))?;
            Ok(secret)
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let secret = os_random::<32>()?;
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            let mut file = options.open(path).map_err(io)?;
            file.write_all(hex::encode(secret).as_bytes())
                .and_then(|()| file.sync_all())
                .map_err(io)?;
            tracing::info!(path = %path.display(), "created an operator secret (mode 0600)");
            Ok(secret)
        }
        Err(e) => Err(io(e)),
    }
}

#[cfg(unix)]
fn check_mode(path: &Path) -> Result<(), KeyError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(|source| KeyError::Io {
            path: path.display().to_string(),
            source,
        })?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(KeyError::TooOpen(path.display().to_string(), mode & 0o777));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_mode(_: &Path) -> Result<(), KeyError> {
    Ok(())
}

pub fn load_or_create_signing_key(data_dir: &Path) -> Result<SigningKey, KeyError> {
    Ok(signing_key_from_secret(secret_file(
        &data_dir.join(SIGNING_KEY_FILE),
    )?))
}

/// The operator API key as the digest the server compares against, so the
/// key itself is not kept around.
pub fn load_or_create_api_key_digest(data_dir: &Path) -> Result<[u8; 32], KeyError> {
    let key = match std::env::var(API_KEY_ENV) {
        Ok(key) if key.len() >= 32 => key,
        Ok(_) => return Err(KeyError::WeakApiKey),
        Err(_) => hex::encode(secret_file(&data_dir.join(API_KEY_FILE))?),
    };
    Ok(digest(key.as_bytes()))
}

pub fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Compares digests without an early exit, so timing tells nothing.
pub fn same_digest(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
