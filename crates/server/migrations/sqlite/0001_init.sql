-- Never edit a migration once released: a database already at this version
-- never runs it again. Change the schema in the next numbered file.
CREATE TABLE blocks (
    id            INTEGER PRIMARY KEY,
    stake_cents   INTEGER NOT NULL,
    tickets       INTEGER NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('generating','pending','open','sold_out','closed')),
    sold          INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0 AND sold <= tickets),
    commitment    TEXT NOT NULL,
    params        TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL
);
CREATE INDEX blocks_by_stake ON blocks (stake_cents, status, id);
CREATE TABLE tickets (
    block    INTEGER NOT NULL,
    position INTEGER NOT NULL,
    grids    TEXT NOT NULL,
    prize    INTEGER NOT NULL,
    extras   INTEGER NOT NULL,
    salt     BLOB NOT NULL,
    leaf     BLOB NOT NULL,
    PRIMARY KEY (block, position)
) WITHOUT ROWID;
CREATE TABLE block_prizes (
    block       INTEGER NOT NULL,
    prize_cents INTEGER NOT NULL,
    remaining   INTEGER NOT NULL CHECK (remaining >= 0),
    PRIMARY KEY (block, prize_cents)
) WITHOUT ROWID;
CREATE TABLE players (
    id            TEXT PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('demo','operator')),
    balance_cents INTEGER NOT NULL CHECK (balance_cents >= 0),
    created_at_ms INTEGER NOT NULL
);
CREATE TABLE wallet_ops (
    player_id     TEXT NOT NULL,
    reference     TEXT NOT NULL,
    kind          TEXT NOT NULL,
    amount_cents  INTEGER NOT NULL,
    balance_after INTEGER NOT NULL,
    at_ms         INTEGER NOT NULL,
    PRIMARY KEY (player_id, reference)
);
CREATE TABLE sessions (
    token_hash    BLOB PRIMARY KEY,
    player_id     TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL
);
CREATE TABLE sales (
    sale_id         INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id       TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    stake_cents     INTEGER NOT NULL,
    block           INTEGER NOT NULL,
    position        INTEGER NOT NULL,
    prize_cents     INTEGER NOT NULL,
    grid_count      INTEGER NOT NULL,
    sold_at_ms      INTEGER NOT NULL,
    balance_before  INTEGER NOT NULL,
    balance_after   INTEGER NOT NULL,
    revealed        INTEGER NOT NULL DEFAULT 0,
    UNIQUE (player_id, idempotency_key),
    UNIQUE (block, position)
);
CREATE INDEX sales_by_player ON sales (player_id, sale_id);
CREATE INDEX sales_unrevealed ON sales (player_id, sale_id) WHERE revealed < grid_count;
