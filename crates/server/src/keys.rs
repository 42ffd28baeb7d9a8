//! The operator's secrets in the data directory: the Ed25519 signing key and
//! the operator API key. Both are created on first start with mode 0600,
//! and are never served nor logged.

use crate::store::{Store, StoreError};
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
    #[error("reading the operator's secrets from the database: {0}")]
    Store(#[from] StoreError),
}

pub fn os_random<const N: usize>() -> Result<[u8; N], KeyError> {
    let mut bytes = [0u8; N];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| KeyError::Random(e.to_string()))?;
    Ok(bytes)
}

/// Reads a 32-byte hex secret, or creates it (0600, never overwriting).
pub fn secret_file(path: &Path) -> Result<[u8; 32], KeyError> {
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
        Err(e) if e.kind() == ErrorKind::NotFound => create_secret_file(path),
        Err(e) => Err(io(e)),
    }
}

/// Writes a new secret beside `path`, then links it into place: the link
/// fails if `path` appeared meanwhile, so servers starting together on one
/// key file all end up with the one secret that won, never a half-written
/// file nor two different keys.
fn create_secret_file(path: &Path) -> Result<[u8; 32], KeyError> {
    let io = |source| KeyError::Io {
        path: path.display().to_string(),
        source,
    };
    let secret = os_random::<32>()?;
    let draft = path.with_extension(format!("new-{}", std::process::id()));
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&draft).map_err(io)?;
    file.write_all(hex::encode(secret).as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(io)?;
    let linked = std::fs::hard_link(&draft, path);
    let _ = std::fs::remove_file(&draft);
    match linked {
        Ok(()) => {
            tracing::info!(path = %path.display(), "created an operator secret (mode 0600)");
            Ok(secret)
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => secret_file(path),
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

/// The names of the operator's secrets in a shared store.
const SIGNING_KEY_NAME: &str = "operator-ed25519";
const API_KEY_NAME: &str = "operator-api";

/// The operator's signing key and API key digest, shared by every server of
/// a deployment: the signing key from `key_file` when one is configured,
/// else from a store shared by several servers (generated once there),
/// else from the data directory; the API key from `$ELDORADO_OPERATOR_API_KEY`,
/// else the shared store, else the data directory.
pub fn operator_keys(
    key_file: Option<&Path>,
    store: &dyn Store,
    data_dir: &Path,
) -> Result<(SigningKey, [u8; 32]), KeyError> {
    let signing = match key_file {
        Some(path) => secret_file(path)?,
        None => match store.shared_secret(SIGNING_KEY_NAME, os_random()?)? {
            Some(secret) => secret,
            None => secret_file(&data_dir.join(SIGNING_KEY_FILE))?,
        },
    };
    let api_key = match std::env::var(API_KEY_ENV) {
        Ok(key) if key.len() >= 32 => key,
        Ok(_) => return Err(KeyError::WeakApiKey),
        Err(_) => match store.shared_secret(API_KEY_NAME, os_random()?)? {
            Some(secret) => hex::encode(secret),
            None => hex::encode(secret_file(&data_dir.join(API_KEY_FILE))?),
        },
    };
    Ok((signing_key_from_secret(signing), digest(api_key.as_bytes())))
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
