//! Player sessions: random bearer tokens (256 bits) that expire. Only the
//! SHA-256 of a token is stored, so a copy of the database grants nothing.

use crate::clock::Clock;
use crate::error::ApiError;
use crate::keys::{digest, os_random};
use crate::store::Store;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// Cached sessions before the cache is swept of expired entries.
const CACHE_SWEEP_AT: usize = 100_000;

#[derive(Clone, Debug)]
pub struct Session {
    pub token: String,
    pub player_id: Arc<str>,
    pub expires_at_ms: u64,
}

type CachedSession = (Arc<str>, u64);

pub struct Sessions {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    ttl: Duration,
    /// Token digest to (player, expiry).
    cache: RwLock<HashMap<[u8; 32], CachedSession>>,
}

impl Sessions {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, ttl: Duration) -> Sessions {
        Sessions {
            store,
            clock,
            ttl,
            cache: RwLock::new(HashMap::new()),
        }
    }

    /// Creates and stores a new session (blocking: one durable commit).
    pub fn create(&self, player_id: &str) -> Result<Session, ApiError> {
        let token = hex::encode(os_random::<32>().map_err(ApiError::internal)?);
        let hash = digest(token.as_bytes());
        let now = self.clock.now_ms();
        let expires_at_ms = now + self.ttl.as_millis() as u64;
        self.store
            .create_session(&hash, player_id, now, expires_at_ms)?;
        let player_id: Arc<str> = Arc::from(player_id);
        self.cache
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(hash, (Arc::clone(&player_id), expires_at_ms));
        Ok(Session {
            token,
            player_id,
            expires_at_ms,
        })
    }

    /// The live session of a token (may block on a store read after a restart).
    pub fn find(&self, token: &str) -> Result<Session, ApiError> {
        const REFUSED: ApiError =
            ApiError::Unauthorized("a valid session token is required (Authorization: Bearer)");
        if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(REFUSED);
        }
        let hash = digest(token.as_bytes());
        let now = self.clock.now_ms();
        let cached = self
            .cache
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&hash)
            .cloned();
        let (player_id, expires_at_ms) = match cached {
            Some(entry) => entry,
            None => {
                let Some(record) = self.store.session(&hash)? else {
                    return Err(REFUSED);
                };
                let entry = (Arc::<str>::from(record.player_id), record.expires_at_ms);
                let mut cache = self.cache.write().unwrap_or_else(|p| p.into_inner());
                if cache.len() >= CACHE_SWEEP_AT {
                    cache.retain(|_, (_, expires)| *expires > now);
                }
                cache.insert(hash, entry.clone());
                entry
            }
        };
        if expires_at_ms <= now {
            return Err(ApiError::Unauthorized("the session has expired"));
        }
        Ok(Session {
            token: token.to_owned(),
            player_id,
            expires_at_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::store::sqlite::SqliteStore;
    use crate::store::PlayerKind;

    #[test]
    fn a_session_expires_when_the_clock_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(1_700_000_000_000));
        let store: Arc<dyn Store> =
            Arc::new(SqliteStore::open(&dir.path().join("db"), clock.clone()).unwrap());
        store.create_player("ann", PlayerKind::Demo, 0).unwrap();
        let sessions = Sessions::new(store, clock.clone(), Duration::from_secs(60));
        let session = sessions.create("ann").unwrap();
        assert_eq!(session.expires_at_ms, 1_700_000_060_000);
        clock.advance(Duration::from_millis(59_999));
        assert_eq!(&*sessions.find(&session.token).unwrap().player_id, "ann");
        clock.advance(Duration::from_millis(1));
        assert!(sessions.find(&session.token).is_err());
    }
}
