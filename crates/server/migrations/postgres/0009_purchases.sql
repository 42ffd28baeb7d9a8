-- Fair dealing (docs/PROTOCOL.md §10): with a beacon, a sale is first a
-- purchase, paid and logged with the beacon round that will deal it; the
-- dealer later picks its position by the rule, credits its prize and
-- records its sale (sale_id) with the deal's evidence. Never edit a
-- migration once released.

CREATE TABLE purchases (
    purchase_id     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    player_id       TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    stake_cents     BIGINT NOT NULL,
    block           BIGINT NOT NULL,
    bought_at_ms    BIGINT NOT NULL,
    client_nonce    BYTEA NOT NULL CHECK (length(client_nonce) = 16),
    round           BIGINT NOT NULL,
    balance_before  BIGINT NOT NULL,
    balance_after   BIGINT NOT NULL,
    log_index       BIGINT,
    sale_id         BIGINT UNIQUE,
    -- The deal's evidence for the buyer: the unsold tree's root before
    -- it and the proof of the position (docs/PROTOCOL.md §10), and the
    -- beacon round's signature.
    deal_proof      BYTEA,
    round_signature BYTEA,
    UNIQUE (player_id, idempotency_key)
);
CREATE INDEX purchases_unlogged ON purchases (purchase_id) WHERE log_index IS NULL;
CREATE INDEX purchases_undealt ON purchases (log_index) WHERE sale_id IS NULL;
CREATE INDEX purchases_by_player ON purchases (player_id, bought_at_ms) WHERE sale_id IS NULL;
