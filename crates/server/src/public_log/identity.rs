//! Which log this deployment is and whose cosignatures it requires.

use crate::config::LogSettings;
use eldorado_api::LogConfig;
use eldorado_engine::transparency::{CheckpointError, LogKey, WitnessKey};
use eldorado_engine::SigningKey;

#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error("--witness {0:?}: {1}")]
    Witness(String, CheckpointError),
    #[error("--witness-quorum {quorum} is more than the {witnesses} witnesses given")]
    Quorum { quorum: u32, witnesses: usize },
    #[error("the log's key: {0}")]
    LogKey(CheckpointError),
}

#[derive(Clone, Debug)]
pub struct LogIdentity {
    key: LogKey,
    witnesses: Vec<WitnessKey>,
    quorum: u32,
}

impl LogIdentity {
    /// The log of the deployment whose operator key is `key`: its origin
    /// names the key, so two deployments never share an origin.
    pub fn new(key: &SigningKey, settings: &LogSettings) -> Result<LogIdentity, IdentityError> {
        let public = key.verifying_key();
        let origin = format!(
            "eldorado/{}",
            &eldorado_engine::fixed_bytes::to_hex(public.as_bytes())[..16]
        );
        let key = LogKey::new(&origin, public).map_err(IdentityError::LogKey)?;
        let witnesses = settings
            .witnesses
            .iter()
            .map(|vkey| {
                WitnessKey::parse(vkey).map_err(|e| IdentityError::Witness(vkey.clone(), e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        // Without a quorum given, every witness must cosign.
        let quorum = settings.quorum.unwrap_or(witnesses.len() as u32);
        if quorum as usize > witnesses.len() {
            return Err(IdentityError::Quorum {
                quorum,
                witnesses: witnesses.len(),
            });
        }
        Ok(LogIdentity {
            key,
            witnesses,
            quorum,
        })
    }

    pub fn origin(&self) -> &str {
        self.key.origin()
    }
    pub fn key(&self) -> &LogKey {
        &self.key
    }
    pub fn witnesses(&self) -> &[WitnessKey] {
        &self.witnesses
    }
    pub fn quorum(&self) -> u32 {
        self.quorum
    }

    /// As `/api/config` announces it.
    pub fn config(&self) -> LogConfig {
        LogConfig {
            origin: self.origin().to_owned(),
            key: self.key.vkey(),
            witnesses: self.witnesses.iter().map(WitnessKey::vkey).collect(),
            quorum: self.quorum,
        }
    }
}
