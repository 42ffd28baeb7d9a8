-- The public record (docs/PROTOCOL.md §9): one append-only log of every
-- block commitment and every sale. Sales and blocks are stored as before;
-- the sequencer (one pass at a time, guarded by log_tree.size) gives the
-- unlogged ones the next record indices and writes their leaves, the
-- tree's stored hashes and a signed checkpoint in one transaction. Blocks
-- and sales stored before this migration are logged by the first passes,
-- blocks first. Never edit a migration once released.

CREATE TABLE log_tree (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    size INTEGER NOT NULL
);
INSERT INTO log_tree (id, size) VALUES (1, 0);
CREATE TABLE log_records (
    idx  INTEGER PRIMARY KEY,
    leaf BLOB NOT NULL
);
-- tlog stored hashes (the Go checksum database's numbering).
CREATE TABLE log_hashes (
    idx  INTEGER PRIMARY KEY,
    hash BLOB NOT NULL
);
CREATE TABLE log_checkpoints (
    size         INTEGER PRIMARY KEY,
    note         TEXT NOT NULL,
    signed_at_ms INTEGER NOT NULL
);
CREATE TABLE log_cosignatures (
    size           INTEGER NOT NULL,
    witness        TEXT NOT NULL,
    line           TEXT NOT NULL,
    received_at_ms INTEGER NOT NULL,
    PRIMARY KEY (size, witness)
);
ALTER TABLE sales ADD COLUMN log_index INTEGER;
ALTER TABLE blocks ADD COLUMN log_index INTEGER;
CREATE INDEX sales_unlogged ON sales (sale_id) WHERE log_index IS NULL;
CREATE INDEX blocks_unlogged ON blocks (id) WHERE log_index IS NULL;
-- The operator's daily reports read sales by time.
CREATE INDEX sales_by_time ON sales (sold_at_ms);
