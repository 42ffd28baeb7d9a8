-- Sessions are deleted by player (revocation by the operator) and by expiry
-- (the periodic sweep): both without a scan of the whole table.
CREATE INDEX sessions_by_player ON sessions (player_id);
CREATE INDEX sessions_by_expiry ON sessions (expires_at_ms);
