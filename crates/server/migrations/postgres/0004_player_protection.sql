-- Player protection (issue 12), the same tables as the SQLite migration
-- 0004: limits, exclusion, reality check, and the audit of every change.
-- A player without a row has no limit of its own (the server's defaults
-- apply until its first sale or change).

-- A pending limit is one whose effective time is set; its limit may be NULL
-- (the removal of a limit). Times are Unix milliseconds.
CREATE TABLE player_protection (
    player_id                    TEXT PRIMARY KEY REFERENCES players (id),
    weekly_stake_limit_cents     BIGINT CHECK (weekly_stake_limit_cents > 0),
    weekly_loss_limit_cents      BIGINT CHECK (weekly_loss_limit_cents > 0),
    pending_stake_limit_cents    BIGINT CHECK (pending_stake_limit_cents > 0),
    pending_stake_effective_ms   BIGINT,
    pending_loss_limit_cents     BIGINT CHECK (pending_loss_limit_cents > 0),
    pending_loss_effective_ms    BIGINT,
    excluded_until_ms            BIGINT,
    excluded_indefinitely        BOOLEAN NOT NULL DEFAULT FALSE,
    -- NULL: the server's --reality-check-minutes.
    reality_check_minutes        BIGINT CHECK (reality_check_minutes IN (15, 30, 60))
);

-- Old and new values as JSON text (see AuditEntry in crates/api).
CREATE TABLE protection_audit (
    id              BIGSERIAL PRIMARY KEY,
    player_id       TEXT NOT NULL,
    at_ms           BIGINT NOT NULL,
    actor           TEXT NOT NULL CHECK (actor IN ('player', 'operator')),
    change_kind     TEXT NOT NULL
        CHECK (change_kind IN ('weekly_stake_limit', 'weekly_loss_limit', 'exclusion', 'reality_check')),
    old_value       TEXT NOT NULL,
    new_value       TEXT NOT NULL,
    effective_at_ms BIGINT NOT NULL
);
CREATE INDEX protection_audit_by_player ON protection_audit (player_id, id);

-- Every sale summed over a player's rolling 7 days, from the index alone.
CREATE INDEX sales_by_player_time ON sales (player_id, sold_at_ms) INCLUDE (stake_cents, prize_cents);
