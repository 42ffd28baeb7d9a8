-- Player protection (issue 12): limits, exclusion, reality check, and the
-- audit of every change. A player without a row has no limit of its own
-- (the server's defaults apply until its first sale or change).

-- A pending limit is one whose effective time is set; its limit may be NULL
-- (the removal of a limit). Times are Unix milliseconds.
CREATE TABLE player_protection (
    player_id                    TEXT PRIMARY KEY REFERENCES players (id),
    weekly_stake_limit_cents     INTEGER CHECK (weekly_stake_limit_cents > 0),
    weekly_loss_limit_cents      INTEGER CHECK (weekly_loss_limit_cents > 0),
    pending_stake_limit_cents    INTEGER CHECK (pending_stake_limit_cents > 0),
    pending_stake_effective_ms   INTEGER,
    pending_loss_limit_cents     INTEGER CHECK (pending_loss_limit_cents > 0),
    pending_loss_effective_ms    INTEGER,
    excluded_until_ms            INTEGER,
    excluded_indefinitely        INTEGER NOT NULL DEFAULT 0 CHECK (excluded_indefinitely IN (0, 1)),
    -- NULL: the server's --reality-check-minutes.
    reality_check_minutes        INTEGER CHECK (reality_check_minutes IN (15, 30, 60))
) WITHOUT ROWID;

-- Old and new values as JSON text (see AuditEntry in crates/api).
CREATE TABLE protection_audit (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id       TEXT NOT NULL,
    at_ms           INTEGER NOT NULL,
    actor           TEXT NOT NULL CHECK (actor IN ('player', 'operator')),
    change_kind     TEXT NOT NULL
        CHECK (change_kind IN ('weekly_stake_limit', 'weekly_loss_limit', 'exclusion', 'reality_check')),
    old_value       TEXT NOT NULL,
    new_value       TEXT NOT NULL,
    effective_at_ms INTEGER NOT NULL
);
CREATE INDEX protection_audit_by_player ON protection_audit (player_id, id);

-- Every sale summed over a player's rolling 7 days, from the index alone.
CREATE INDEX sales_by_player_time ON sales (player_id, sold_at_ms, stake_cents, prize_cents);
