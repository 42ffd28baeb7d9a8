//! Player sessions: random bearer tokens (256 bits) that expire. Only the
//! SHA-256 of a token is stored, so a copy of the database grants nothing.
//!
//! The store holds every session; the cache only spares it a read per
//! request and is bounded (`--session-cache`). A session ends when it
//! expires, when its player signs out (`DELETE /api/session`), when the
//! operator ends all of a player's sessions, or when its player opens
//! `--max-sessions-per-player` newer ones (the oldest goes first, in the
//! opening's transaction, and its token is then answered
//! `TOO_MANY_SESSIONS`); expired rows are deleted by a periodic sweep
//! (`--session-sweep-secs`). This server's cache forgets an ended session
//! at once; another server of a shared database reads a cached session
//! from the store again once its entry is [`RECHECK_MS`] old, so it learns
//! of any way a session ended within that time.

use crate::clock::Clock;
use crate::error::ApiError;
use crate::keys::{digest, os_random};
use crate::store::launch::LaunchRedeemed;
use crate::store::{NewPlayer, NewSession, PlayerKind, PlayerRecord, SessionOpened, Store};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockWriteGuard};
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct Session {
    pub token: String,
    pub player_id: Arc<str>,
    /// When the session was opened: the player's session clock counts
    /// from here, across reloads of the page.
    pub started_at_ms: u64,
    pub expires_at_ms: u64,
    /// The portal's lobby, for a session opened by a launch link.
    pub lobby_url: Option<Arc<str>>,
}

#[derive(Clone, Debug)]
struct CachedSession {
    player_id: Arc<str>,
    started_at_ms: u64,
    expires_at_ms: u64,
    lobby_url: Option<Arc<str>>,
    /// When the store last said the session was live.
    checked_at_ms: u64,
}

/// How long a cached session is trusted without asking the store again.
/// Another server of the database may end it (sign-out, the operator, or a
/// newer session beyond `--max-sessions-per-player`) and can only tell this
/// one through the store: without a recheck, a session ended there lived on
/// here until it expired, and a player could keep any number of them alive
/// by using each on every server once. One indexed read per session every
/// 30 s is nothing beside the requests it spares.
pub const RECHECK_MS: u64 = 30_000;

pub struct Sessions {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    ttl: Duration,
    capacity: usize,
    /// Live sessions one player may hold (`--max-sessions-per-player`).
    max_per_player: u32,
    /// By token digest.
    cache: RwLock<HashMap<[u8; 32], CachedSession>>,
    /// Moves at every revocation, so that a lookup which read the store
    /// before a revocation does not put the revoked session back in the cache.
    revocations: AtomicU64,
}

const REFUSED: ApiError =
    ApiError::Unauthorized("a valid session token is required (Authorization: Bearer)");

impl Sessions {
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        ttl: Duration,
        capacity: usize,
        max_per_player: u32,
    ) -> Sessions {
        Sessions {
            store,
            clock,
            ttl,
            capacity: capacity.max(1),
            max_per_player: max_per_player.max(1),
            cache: RwLock::new(HashMap::new()),
            revocations: AtomicU64::new(0),
        }
    }

    fn cache_write(&self) -> RwLockWriteGuard<'_, HashMap<[u8; 32], CachedSession>> {
        self.cache.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Finds or creates the player and opens a session for it, in one store
    /// transaction (blocking: one durable commit).
    pub fn open(&self, player: &NewPlayer<'_>) -> Result<(Session, PlayerRecord), ApiError> {
        let token = hex::encode(os_random::<32>().map_err(ApiError::internal)?);
        let hash = digest(token.as_bytes());
        let now = self.clock.now_ms();
        let expires_at_ms = now.saturating_add(self.ttl.as_millis() as u64);
        let opened = self.store.open_session(
            player,
            &NewSession {
                token_hash: hash,
                created_at_ms: now,
                expires_at_ms,
                max_per_player: self.max_per_player,
            },
        )?;
        let record = match opened {
            SessionOpened::Opened { player, ended } => {
                self.forget(&ended);
                player
            }
            SessionOpened::OtherKind(PlayerKind::Demo) => {
                return Err(ApiError::Forbidden("this id belongs to a demo player"))
            }
            SessionOpened::OtherKind(PlayerKind::Operator) | SessionOpened::Taken => {
                return Err(ApiError::internal("a new player id was already taken"))
            }
        };
        Ok((
            self.remember(token, hash, player.id, expires_at_ms, None, now),
            record,
        ))
    }

    /// Trades a launch code for a new session (see `store::launch`). The
    /// demo player is used for a demo launch; `None` refuses those.
    pub fn open_launched(
        &self,
        code: &str,
        demo_player: Option<&NewPlayer<'_>>,
    ) -> Result<(Session, PlayerRecord), ApiError> {
        let code_hash = launch_code_hash(code)?;
        let token = hex::encode(os_random::<32>().map_err(ApiError::internal)?);
        let hash = digest(token.as_bytes());
        let now = self.clock.now_ms();
        let expires_at_ms = now.saturating_add(self.ttl.as_millis() as u64);
        let session = NewSession {
            token_hash: hash,
            created_at_ms: now,
            expires_at_ms,
            max_per_player: self.max_per_player,
        };
        match self
            .store
            .redeem_launch(&code_hash, &session, demo_player)?
        {
            LaunchRedeemed::Opened {
                player,
                lobby_url,
                ended,
            } => {
                self.forget(&ended);
                let lobby_url = lobby_url.map(Arc::from);
                let id = player.id.clone();
                Ok((
                    self.remember(token, hash, &id, expires_at_ms, lobby_url, now),
                    player,
                ))
            }
            LaunchRedeemed::Invalid => Err(ApiError::LaunchInvalid),
            LaunchRedeemed::OtherKind(_) => {
                Err(ApiError::Forbidden("this id belongs to a demo player"))
            }
        }
    }

    /// Drops sessions the store just ended from the cache. Counted as a
    /// revocation, so that a lookup which read one of them before the
    /// store's commit does not put it back.
    fn forget(&self, ended: &[[u8; 32]]) {
        if ended.is_empty() {
            return;
        }
        let mut cache = self.cache_write();
        self.revocations.fetch_add(1, Ordering::SeqCst);
        for hash in ended {
            cache.remove(hash);
        }
    }

    /// Why a token names no live session: ended for newer ones (while it
    /// would still have been valid), or the generic refusal.
    fn refusal(&self, hash: &[u8; 32], now: u64) -> ApiError {
        match self.store.evicted_session(hash) {
            Ok(Some(expires_at_ms)) if expires_at_ms > now => ApiError::TooManySessions,
            Ok(_) => REFUSED,
            Err(e) => e.into(),
        }
    }

    fn remember(
        &self,
        token: String,
        hash: [u8; 32],
        player_id: &str,
        expires_at_ms: u64,
        lobby_url: Option<Arc<str>>,
        now: u64,
    ) -> Session {
        let player_id: Arc<str> = Arc::from(player_id);
        let mut cache = self.cache_write();
        self.make_room(&mut cache, now);
        cache.insert(
            hash,
            CachedSession {
                player_id: Arc::clone(&player_id),
                started_at_ms: now,
                expires_at_ms,
                lobby_url: lobby_url.clone(),
                checked_at_ms: now,
            },
        );
        Session {
            token,
            player_id,
            started_at_ms: now,
            expires_at_ms,
            lobby_url,
        }
    }

    /// Keeps the cache under its capacity: expired entries go first, then
    /// those that expire soonest, down to three quarters so that the sort is
    /// paid once per many insertions.
    fn make_room(&self, cache: &mut HashMap<[u8; 32], CachedSession>, now: u64) {
        if cache.len() < self.capacity {
            return;
        }
        cache.retain(|_, entry| entry.expires_at_ms > now);
        if cache.len() < self.capacity {
            return;
        }
        let keep = self.capacity * 3 / 4;
        let mut expiries: Vec<u64> = cache.values().map(|e| e.expires_at_ms).collect();
        expiries.sort_unstable();
        let cutoff = expiries[cache.len() - keep];
        cache.retain(|_, entry| entry.expires_at_ms >= cutoff);
        // Ties at the cutoff may keep a few too many: drop arbitrary ones.
        let excess = cache.len().saturating_sub(keep);
        let drop: Vec<[u8; 32]> = cache.keys().take(excess).copied().collect();
        for key in drop {
            cache.remove(&key);
        }
    }

    /// Sessions in the cache now (for tests and metrics).
    pub fn cached(&self) -> usize {
        self.cache.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// The live session of a token (may block on a store read after a restart).
    pub fn find(&self, token: &str) -> Result<Session, ApiError> {
        let hash = token_hash(token)?;
        let now = self.clock.now_ms();
        let cached = self
            .cache
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&hash)
            .cloned();
        let entry = match cached {
            Some(entry) if now.saturating_sub(entry.checked_at_ms) < RECHECK_MS => entry,
            _ => {
                let revocations = self.revocations.load(Ordering::SeqCst);
                let Some(record) = self.store.session(&hash)? else {
                    // Ended elsewhere, if it was cached here.
                    self.cache_write().remove(&hash);
                    return Err(self.refusal(&hash, now));
                };
                let entry = CachedSession {
                    player_id: Arc::from(record.player_id),
                    started_at_ms: record.created_at_ms,
                    expires_at_ms: record.expires_at_ms,
                    lobby_url: record.lobby_url.map(Arc::from),
                    checked_at_ms: now,
                };
                let mut cache = self.cache_write();
                if self.revocations.load(Ordering::SeqCst) != revocations {
                    // It may have been revoked after the read: ask again.
                    drop(cache);
                    if self.store.session(&hash)?.is_none() {
                        return Err(self.refusal(&hash, now));
                    }
                } else {
                    self.make_room(&mut cache, now);
                    cache.insert(hash, entry.clone());
                }
                entry
            }
        };
        if entry.expires_at_ms <= now {
            return Err(ApiError::Unauthorized("the session has expired"));
        }
        Ok(Session {
            token: token.to_owned(),
            player_id: entry.player_id,
            started_at_ms: entry.started_at_ms,
            expires_at_ms: entry.expires_at_ms,
            lobby_url: entry.lobby_url,
        })
    }

    /// Ends one session (sign-out). False if the token named none.
    pub fn revoke(&self, token: &str) -> Result<bool, ApiError> {
        let hash = token_hash(token)?;
        let mut cache = self.cache_write();
        self.revocations.fetch_add(1, Ordering::SeqCst);
        cache.remove(&hash);
        Ok(self.store.delete_session(&hash)?)
    }

    /// Ends every session of a player; how many there were.
    pub fn revoke_player(&self, player_id: &str) -> Result<u64, ApiError> {
        let mut cache = self.cache_write();
        self.revocations.fetch_add(1, Ordering::SeqCst);
        cache.retain(|_, entry| &*entry.player_id != player_id);
        Ok(self.store.delete_player_sessions(player_id)?)
    }

    /// Deletes expired sessions from the store and the cache; how many rows.
    pub fn sweep(&self) -> Result<u64, ApiError> {
        let now = self.clock.now_ms();
        self.cache_write()
            .retain(|_, entry| entry.expires_at_ms > now);
        // Launch codes live a minute: swept with the sessions.
        self.store.delete_expired_launches(now)?;
        Ok(self.store.delete_expired_sessions(now)?)
    }
}

/// A launch code is 64 lowercase hex digits; anything else names no code.
fn launch_code_hash(code: &str) -> Result<[u8; 32], ApiError> {
    if code.len() != 64 || !code.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(ApiError::LaunchInvalid);
    }
    Ok(digest(code.as_bytes()))
}

fn token_hash(token: &str) -> Result<[u8; 32], ApiError> {
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(REFUSED);
    }
    Ok(digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::store::sqlite::SqliteStore;

    /// Tests about the cache and expiry open many sessions of one player.
    const MANY: u32 = 1_000;

    fn sessions(
        capacity: usize,
    ) -> (
        tempfile::TempDir,
        Arc<ManualClock>,
        Arc<dyn Store>,
        Sessions,
    ) {
        capped(capacity, MANY)
    }

    fn capped(
        capacity: usize,
        max_per_player: u32,
    ) -> (
        tempfile::TempDir,
        Arc<ManualClock>,
        Arc<dyn Store>,
        Sessions,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(1_700_000_000_000));
        let store: Arc<dyn Store> =
            Arc::new(SqliteStore::open(&dir.path().join("db"), clock.clone()).unwrap());
        let sessions = Sessions::new(
            Arc::clone(&store),
            clock.clone(),
            Duration::from_secs(60),
            capacity,
            max_per_player,
        );
        (dir, clock, store, sessions)
    }

    fn ann() -> NewPlayer<'static> {
        NewPlayer {
            id: "ann",
            kind: PlayerKind::Operator,
            balance_cents: 0,
            reuse: true,
        }
    }

    #[test]
    fn a_session_expires_when_the_clock_says_so() {
        let (_dir, clock, _store, sessions) = sessions(10);
        let (session, _) = sessions.open(&ann()).unwrap();
        assert_eq!(session.expires_at_ms, 1_700_000_060_000);
        clock.advance(Duration::from_millis(59_999));
        assert_eq!(&*sessions.find(&session.token).unwrap().player_id, "ann");
        clock.advance(Duration::from_millis(1));
        assert!(sessions.find(&session.token).is_err());
    }

    #[test]
    fn the_cache_stays_within_its_capacity_and_sessions_still_resolve() {
        let (_dir, clock, _store, sessions) = sessions(8);
        let mut opened = Vec::new();
        for _ in 0..50 {
            clock.advance(Duration::from_millis(1));
            let session = sessions.open(&ann()).unwrap().0;
            assert_eq!(session.started_at_ms, clock.now_ms());
            opened.push(session);
            assert!(sessions.cached() <= 8, "{}", sessions.cached());
        }
        clock.advance(Duration::from_millis(1_000));
        // Evicted sessions are read back from the store, with the time each
        // started (a page reloaded later keeps its session clock).
        for session in &opened {
            let found = sessions.find(&session.token).unwrap();
            assert_eq!(&*found.player_id, "ann");
            assert_eq!(found.started_at_ms, session.started_at_ms);
            assert!(sessions.cached() <= 8);
        }
    }

    #[test]
    fn revoked_and_expired_sessions_are_gone_from_the_store() {
        let (_dir, clock, store, sessions) = sessions(100);
        let (one, _) = sessions.open(&ann()).unwrap();
        let (two, _) = sessions.open(&ann()).unwrap();
        assert!(sessions.revoke(&one.token).unwrap());
        assert!(!sessions.revoke(&one.token).unwrap());
        assert!(sessions.find(&one.token).is_err());
        assert!(sessions.find(&two.token).is_ok());

        clock.advance(Duration::from_secs(30));
        let (three, _) = sessions.open(&ann()).unwrap();
        clock.advance(Duration::from_secs(31));
        // `two` has expired, `three` has not.
        assert_eq!(sessions.sweep().unwrap(), 1);
        assert!(store
            .session(&digest(two.token.as_bytes()))
            .unwrap()
            .is_none());
        assert!(sessions.find(&three.token).is_ok());

        assert_eq!(sessions.revoke_player("ann").unwrap(), 1);
        assert!(sessions.find(&three.token).is_err());
    }

    fn refused_as_too_many(sessions: &Sessions, token: &str) -> bool {
        matches!(sessions.find(token), Err(ApiError::TooManySessions))
    }

    #[test]
    fn opening_beyond_the_cap_ends_the_oldest_and_its_token_says_why() {
        let (_dir, clock, _store, sessions) = capped(100, 3);
        let mut opened = Vec::new();
        for _ in 0..3 {
            clock.advance(Duration::from_millis(1));
            opened.push(sessions.open(&ann()).unwrap().0);
        }
        // The first is in this server's cache: ending it must drop it there.
        sessions.find(&opened[0].token).unwrap();
        for _ in 0..2 {
            clock.advance(Duration::from_millis(1));
            opened.push(sessions.open(&ann()).unwrap().0);
        }
        assert!(refused_as_too_many(&sessions, &opened[0].token));
        assert!(refused_as_too_many(&sessions, &opened[1].token));
        for session in &opened[2..] {
            assert_eq!(&*sessions.find(&session.token).unwrap().player_id, "ann");
        }
        // Another player's sessions are its own.
        let bob = NewPlayer { id: "bob", ..ann() };
        let (bobs, _) = sessions.open(&bob).unwrap();
        assert!(sessions.find(&bobs.token).is_ok());
        assert!(sessions.find(&opened[2].token).is_ok());
        // Once the ended session would have expired, it is simply refused
        // (and the sweep forgets it).
        clock.advance(Duration::from_secs(60));
        assert!(matches!(
            sessions.find(&opened[0].token),
            Err(ApiError::Unauthorized(_))
        ));
        sessions.sweep().unwrap();
        assert!(matches!(
            sessions.find(&opened[1].token),
            Err(ApiError::Unauthorized(_))
        ));
    }

    /// Two servers of one database: a session ended on one is refused by
    /// the other, which had it in its cache, once the entry is
    /// `RECHECK_MS` old, whichever way it ended.
    #[test]
    fn another_server_learns_of_an_ended_session_within_the_recheck() {
        let (_dir, clock, store, one) = capped(100, 2);
        let other = Sessions::new(
            Arc::clone(&store),
            clock.clone(),
            Duration::from_secs(600),
            100,
            2,
        );
        let (first, _) = one.open(&ann()).unwrap();
        // Opened later, so that `first` is the oldest (at one instant, the
        // token's random hash would decide).
        clock.advance(Duration::from_millis(1));
        let (signed_out, _) = one.open(&ann()).unwrap();
        other.find(&first.token).unwrap();
        other.find(&signed_out.token).unwrap();
        clock.advance(Duration::from_millis(1));
        one.open(&ann()).unwrap();
        assert!(refused_as_too_many(&one, &first.token));
        assert!(one.revoke(&signed_out.token).unwrap());
        // Still trusted from the other's cache, until the recheck.
        clock.advance(Duration::from_millis(RECHECK_MS - 2));
        assert!(other.find(&first.token).is_ok());
        assert!(other.find(&signed_out.token).is_ok());
        clock.advance(Duration::from_millis(1));
        assert!(refused_as_too_many(&other, &first.token));
        assert!(matches!(
            other.find(&signed_out.token),
            Err(ApiError::Unauthorized(_))
        ));
        assert_eq!(other.cached(), 0, "both left the other's cache");
    }
}
