-- Launch links (POST /api/operator/launches): single-use codes, valid for a
-- minute. Only the SHA-256 of a code is stored, as for session tokens.
CREATE TABLE launch_codes (
    code_hash     BYTEA PRIMARY KEY,
    player_id     TEXT NOT NULL,
    mode          TEXT NOT NULL,
    lang          TEXT NOT NULL,
    lobby_url     TEXT,
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    used          BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX launch_codes_by_expiry ON launch_codes (expires_at_ms);
-- The portal's lobby of a session opened by a launch link.
ALTER TABLE sessions ADD COLUMN lobby_url TEXT;
