-- The seamless wallet (eldorado serve --wallet): the operator holds the
-- money, so a sale is a round reserved here, debited there, then sold or
-- released here. Never edit a migration once released.

-- One row per attempt to sell a ticket to a seamless-wallet player. Its
-- round_id names the operator's transactions (debit:<round_id>, ...).
CREATE TABLE wallet_rounds (
    round_id        TEXT PRIMARY KEY,
    player_id       TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    stake_cents     INTEGER NOT NULL,
    block           INTEGER NOT NULL,
    position        INTEGER NOT NULL,
    client_nonce    BLOB NOT NULL,
    reserved_at_ms  INTEGER NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('reserved', 'sold', 'released')),
    sale_id         INTEGER,
    ended_at_ms     INTEGER
);
-- A ticket is reserved by one round at a time, and a key by one attempt.
CREATE UNIQUE INDEX wallet_rounds_reserved_ticket ON wallet_rounds (block, position)
    WHERE state = 'reserved';
CREATE UNIQUE INDEX wallet_rounds_reserved_key ON wallet_rounds (player_id, idempotency_key)
    WHERE state = 'reserved';
CREATE INDEX wallet_rounds_reserved_at ON wallet_rounds (reserved_at_ms) WHERE state = 'reserved';

-- Tickets whose round was released: the next buyer of the block takes the
-- lowest of them before any ticket never reserved.
CREATE TABLE wallet_free_tickets (
    block    INTEGER NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (block, position)
) WITHOUT ROWID;

-- Calls the operator's wallet must acknowledge: prize credits (written in
-- the sale's own transaction) and rollbacks of unanswered debits. Retried
-- with the same transaction id until the operator answers ok.
CREATE TABLE wallet_outbox (
    transaction_id          TEXT PRIMARY KEY,
    kind                    TEXT NOT NULL CHECK (kind IN ('credit', 'rollback')),
    round_id                TEXT NOT NULL,
    player_id               TEXT NOT NULL,
    amount_cents            INTEGER NOT NULL CHECK (amount_cents > 0),
    original_transaction_id TEXT,
    created_at_ms           INTEGER NOT NULL,
    attempts                INTEGER NOT NULL DEFAULT 0,
    last_error              TEXT,
    acknowledged_at_ms      INTEGER,
    balance_cents           INTEGER
);
CREATE INDEX wallet_outbox_due ON wallet_outbox (created_at_ms) WHERE acknowledged_at_ms IS NULL;
