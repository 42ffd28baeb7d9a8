-- Never edit a migration once released: a database already at this version
-- never runs it again. Change the schema in the next numbered file.
-- The same tables as the SQLite schema, in PostgreSQL's types: every amount
-- and count is BIGINT (cents never in floats), hashes and salts are BYTEA.
CREATE TABLE blocks (
    id            BIGINT PRIMARY KEY,
    stake_cents   BIGINT NOT NULL,
    tickets       BIGINT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('generating','pending','open','sold_out','closed')),
    sold          BIGINT NOT NULL DEFAULT 0 CHECK (sold >= 0 AND sold <= tickets),
    commitment    TEXT NOT NULL,
    params        TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE INDEX blocks_by_stake ON blocks (stake_cents, status, id);
CREATE TABLE tickets (
    block    BIGINT NOT NULL,
    position BIGINT NOT NULL,
    grids    TEXT NOT NULL,
    prize    BIGINT NOT NULL,
    extras   BIGINT NOT NULL,
    salt     BYTEA NOT NULL,
    leaf     BYTEA NOT NULL,
    PRIMARY KEY (block, position)
);
CREATE TABLE block_prizes (
    block       BIGINT NOT NULL,
    prize_cents BIGINT NOT NULL,
    remaining   BIGINT NOT NULL CHECK (remaining >= 0),
    PRIMARY KEY (block, prize_cents)
);
CREATE TABLE players (
    id            TEXT PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('demo','operator')),
    balance_cents BIGINT NOT NULL CHECK (balance_cents >= 0),
    created_at_ms BIGINT NOT NULL
);
CREATE TABLE wallet_ops (
    player_id     TEXT NOT NULL,
    reference     TEXT NOT NULL,
    kind          TEXT NOT NULL,
    amount_cents  BIGINT NOT NULL,
    balance_after BIGINT NOT NULL,
    at_ms         BIGINT NOT NULL,
    PRIMARY KEY (player_id, reference)
);
CREATE TABLE sessions (
    token_hash    BYTEA PRIMARY KEY,
    player_id     TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL
);
-- Sale ids come from a sequence: unique and increasing across every server
-- of the deployment, never reused.
CREATE TABLE sales (
    sale_id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    player_id       TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    stake_cents     BIGINT NOT NULL,
    block           BIGINT NOT NULL,
    position        BIGINT NOT NULL,
    prize_cents     BIGINT NOT NULL,
    grid_count      BIGINT NOT NULL,
    sold_at_ms      BIGINT NOT NULL,
    balance_before  BIGINT NOT NULL,
    balance_after   BIGINT NOT NULL,
    revealed        BIGINT NOT NULL DEFAULT 0,
    UNIQUE (player_id, idempotency_key),
    UNIQUE (block, position)
);
CREATE INDEX sales_by_player ON sales (player_id, sale_id);
CREATE INDEX sales_unrevealed ON sales (player_id, sale_id) WHERE revealed < grid_count;
-- The operator's secrets when no key file is configured: every server of a
-- deployment reads the same ones, and the primary key makes sure each is
-- generated once, by whichever server starts first.
CREATE TABLE operator_secrets (
    name   TEXT PRIMARY KEY,
    secret BYTEA NOT NULL CHECK (length(secret) = 32)
);
