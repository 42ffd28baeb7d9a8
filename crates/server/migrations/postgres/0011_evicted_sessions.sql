-- Sessions ended because their player opened more than
-- --max-sessions-per-player newer ones (the oldest is ended first): only
-- the token's SHA-256, kept until the session would have expired, so that
-- the page holding it is told why (401 TOO_MANY_SESSIONS) rather than that
-- it expired. At most as many per player as the cap: the store drops the
-- oldest beyond it. Never edit a migration once released.
CREATE TABLE evicted_sessions (
    token_hash    BYTEA PRIMARY KEY,
    player_id     TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    evicted_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL
);
CREATE INDEX evicted_sessions_by_player ON evicted_sessions (player_id);
CREATE INDEX evicted_sessions_by_expiry ON evicted_sessions (expires_at_ms);
