-- Money lines, block seeding and the client nonce (the same columns as the
-- SQLite migration 0002). Never edit a migration once released: change the
-- schema in the next numbered file.

-- Whose money a block's tickets are sold for, as signed in its commitment:
-- play money (demo players) and real money never share a block. Blocks
-- stored before this migration were all committed as real money.
ALTER TABLE blocks ADD COLUMN money TEXT NOT NULL DEFAULT 'real'
    CHECK (money IN ('real', 'play'));
-- How the block's generator was seeded: 'os' (32 bytes of OS randomness) or
-- 'demo' (a fixed --demo-seed, every ticket predictable). Earlier blocks
-- are recorded as 'os': that release did not keep track of it.
ALTER TABLE blocks ADD COLUMN seeding TEXT NOT NULL DEFAULT 'os'
    CHECK (seeding IN ('os', 'demo'));
-- Sales look their block up by stake AND money now.
DROP INDEX blocks_by_stake;
CREATE INDEX blocks_by_stake ON blocks (stake_cents, money, status, id);

-- The buyer's 16-byte nonce, signed into the sale. Sales stored before this
-- migration were signed with 16 zero bytes, which this default keeps.
ALTER TABLE sales ADD COLUMN client_nonce BYTEA NOT NULL
    DEFAULT '\x00000000000000000000000000000000'::bytea
    CHECK (length(client_nonce) = 16);
