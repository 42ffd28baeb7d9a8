//! Every SQL text of the store, once for both dialects. Placeholders are
//! `$1, $2, ...`, first used in that order: SQLite numbers `$N` parameters
//! by first appearance, PostgreSQL by N, and the test below keeps the two
//! the same. A text is PostgreSQL's; SQLite's drops `FOR UPDATE`
//! ([`Sql::text`]). Everything else here is SQL both accept (`RETURNING`,
//! `ON CONFLICT`, `CAST(... AS BIGINT)`, `TRUE`, row values).

use super::Sql;

macro_rules! texts {
    ($($(#[$doc:meta])* $name:ident = $text:expr;)*) => {
        $($(#[$doc])* pub static $name: Sql = Sql::new($text);)*
        #[cfg(test)]
        pub static ALL: &[(&str, &Sql)] = &[$((stringify!($name), &$name)),*];
    };
}

/// A sale with its block's ticket count and its ticket, in the column order
/// of `decode::sale`.
macro_rules! sale_select {
    () => {
        "SELECT s.sale_id, s.player_id, s.block, b.tickets, s.position, s.stake_cents, \
         t.grids, t.prize, t.extras, t.salt, s.sold_at_ms, s.balance_before, s.balance_after, \
         s.revealed, s.client_nonce, s.log_index FROM sales s JOIN blocks b ON b.id = s.block \
         JOIN tickets t ON t.block = s.block AND t.position = s.position "
    };
}

/// A purchase with its block's ticket count, in the column order of
/// `decode::purchase`. The count is a subquery, not a join, so that
/// `FOR UPDATE` locks the purchase alone.
macro_rules! purchase_select {
    () => {
        "SELECT p.purchase_id, p.player_id, p.idempotency_key, p.block, \
         (SELECT b.tickets FROM blocks b WHERE b.id = p.block), p.stake_cents, p.bought_at_ms, \
         p.client_nonce, p.round, p.balance_before, p.balance_after, p.log_index, p.sale_id, \
         p.deal_proof, p.round_signature, p.dealt_round FROM purchases p "
    };
}

/// A player's protection settings, in the column order of
/// `decode::protection`.
macro_rules! protection_columns {
    () => {
        "weekly_stake_limit_cents, pending_stake_limit_cents, pending_stake_effective_ms, \
         weekly_loss_limit_cents, pending_loss_limit_cents, pending_loss_effective_ms, \
         excluded_until_ms, excluded_indefinitely, reality_check_minutes"
    };
}

/// A round's columns, in the order of `decode::round`.
macro_rules! round_columns {
    () => {
        "round_id, player_id, idempotency_key, stake_cents, block, position, client_nonce, \
         reserved_at_ms"
    };
}

texts! {
    // Blocks and tickets.
    BLOCK_IDS = "SELECT id FROM blocks WHERE status <> 'generating' ORDER BY id";
    BLOCK = "SELECT status, sold, commitment, params, money, seeding, log_index, \
             (SELECT COUNT(*) FROM purchases p WHERE p.block = blocks.id AND p.sale_id IS NULL) \
             FROM blocks WHERE id = $1 AND status <> 'generating'";
    BLOCK_PRIZES = "SELECT prize_cents, remaining FROM block_prizes WHERE block = $1 \
                    ORDER BY prize_cents DESC";
    MAX_BLOCK_ID = "SELECT MAX(id) FROM blocks";
    INSERT_BLOCK = "INSERT INTO blocks (id, stake_cents, tickets, status, commitment, params, \
                    created_at_ms, money, seeding) \
                    VALUES ($1, $2, $3, 'generating', $4, $5, $6, $7, $8)";
    INSERT_TICKET = "INSERT INTO tickets (block, position, grids, prize, extras, salt, leaf) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7)";
    INSERT_BLOCK_PRIZE = "INSERT INTO block_prizes (block, prize_cents, remaining) \
                          VALUES ($1, $2, $3)";
    GENERATING_BLOCKS = "SELECT id FROM blocks WHERE status = 'generating'";
    DELETE_TICKETS = "DELETE FROM tickets WHERE block = $1";
    DELETE_BLOCK_PRIZES = "DELETE FROM block_prizes WHERE block = $1";
    DELETE_BLOCK = "DELETE FROM blocks WHERE id = $1";
    LEAVES = "SELECT leaf FROM tickets WHERE block = $1 ORDER BY position";
    BLOCK_STAKE = "SELECT stake_cents FROM blocks WHERE id = $1";
    TICKETS = "SELECT position, grids, prize, extras, salt, leaf FROM tickets WHERE block = $1 \
               ORDER BY position";
    TICKET = "SELECT grids, prize, extras, salt FROM tickets WHERE block = $1 AND position = $2";
    /// The tickets a batch of sales is about to take (`batch`).
    TICKET_SPAN = "SELECT position, grids, prize, extras, salt FROM tickets \
                   WHERE block = $1 AND position >= $2 AND position < $3 ORDER BY position";
    BLOCK_STATUS_FOR_UPDATE = "SELECT status, stake_cents, money FROM blocks \
                               WHERE id = $1 AND status <> 'generating' FOR UPDATE";
    SET_BLOCK_STATUS = "UPDATE blocks SET status = $1 WHERE id = $2";
    OLDEST_PENDING_BLOCK = "SELECT id FROM blocks WHERE stake_cents = $1 AND money = $2 \
                            AND status = 'pending' ORDER BY id LIMIT 1";
    /// Locked, so that the sales of another server's batch wait here and
    /// then read the count this batch leaves (READ COMMITTED re-reads a
    /// locked row once its holder commits).
    OPEN_BLOCK_FOR_UPDATE = "SELECT id, tickets, sold FROM blocks WHERE stake_cents = $1 \
                             AND money = $2 AND status = 'open' ORDER BY id LIMIT 1 FOR UPDATE";
    /// Every open block of a line, waited for and locked: a new block of
    /// the line opens only while fewer than `--open-blocks-per-line` are.
    OPEN_BLOCKS_FOR_UPDATE = "SELECT id FROM blocks WHERE stake_cents = $1 AND money = $2 \
                              AND status = 'open' ORDER BY id FOR UPDATE";
    OPEN_BLOCK_COUNT = "SELECT COUNT(*) FROM blocks WHERE stake_cents = $1 AND money = $2 \
                        AND status = 'open'";
    BLOCK_COUNTS_FOR_UPDATE = "SELECT status, sold, tickets FROM blocks WHERE id = $1 FOR UPDATE";
    SET_BLOCK_SOLD = "UPDATE blocks SET sold = $1, status = $2 WHERE id = $3";
    TAKE_PRIZE = "UPDATE block_prizes SET remaining = remaining - 1 \
                  WHERE block = $1 AND prize_cents = $2";

    // The public record (`store::public_log`).
    LOG_SIZE = "SELECT size FROM log_tree WHERE id = 1";
    UNLOGGED_BLOCKS = "SELECT commitment FROM blocks \
                       WHERE log_index IS NULL AND status <> 'generating' ORDER BY id";
    UNLOGGED_SALES = concat!(sale_select!(), "WHERE s.log_index IS NULL ORDER BY s.sale_id LIMIT $1");
    UNLOGGED_PURCHASES = concat!(
        purchase_select!(),
        "WHERE p.log_index IS NULL ORDER BY p.purchase_id LIMIT $1"
    );
    /// Only from the size this pass started at: a second sequencer that
    /// raced it writes nothing (PostgreSQL re-reads the locked row).
    LOG_ADVANCE = "UPDATE log_tree SET size = $1 WHERE id = 1 AND size = $2";
    INSERT_LOG_RECORD = "INSERT INTO log_records (idx, leaf) VALUES ($1, $2)";
    SET_BLOCK_LOG_INDEX = "UPDATE blocks SET log_index = $1 WHERE id = $2 AND log_index IS NULL";
    UNLOGGED_PAGES = "SELECT id, published_at_ms, files, fingerprint FROM page_builds \
                      WHERE log_index IS NULL ORDER BY id";
    SET_PAGE_LOG_INDEX = "UPDATE page_builds SET log_index = $1 WHERE id = $2 AND log_index IS NULL";
    NEWEST_PAGE_FINGERPRINT = "SELECT fingerprint FROM page_builds ORDER BY id DESC LIMIT 1";
    INSERT_PAGE_BUILD = "INSERT INTO page_builds (fingerprint, files, published_at_ms) \
                         VALUES ($1, $2, $3)";
    SET_SALE_LOG_INDEX = "UPDATE sales SET log_index = $1 WHERE sale_id = $2 AND log_index IS NULL";
    SET_PURCHASE_LOG_INDEX = "UPDATE purchases SET log_index = $1, round = $2 \
                              WHERE purchase_id = $3 AND log_index IS NULL";
    INSERT_LOG_HASH = "INSERT INTO log_hashes (idx, hash) VALUES ($1, $2)";
    LOG_HASH = "SELECT hash FROM log_hashes WHERE idx = $1";
    LOG_LEAVES = "SELECT leaf FROM log_records WHERE idx >= $1 AND idx < $2 ORDER BY idx";
    INSERT_LOG_CHECKPOINT = "INSERT INTO log_checkpoints (size, note, signed_at_ms) \
                             VALUES ($1, $2, $3) ON CONFLICT (size) DO NOTHING";
    LOG_CHECKPOINT = "SELECT note FROM log_checkpoints WHERE size = $1";
    LOG_NEWEST_COSIGNED = "SELECT c.size, c.note FROM log_checkpoints c WHERE \
                           (SELECT COUNT(*) FROM log_cosignatures s WHERE s.size = c.size) >= $1 \
                           ORDER BY c.size DESC LIMIT 1";
    LOG_FIRST_COSIGNED_ABOVE = "SELECT c.size, c.note FROM log_checkpoints c WHERE c.size > $1 \
                                AND (SELECT COUNT(*) FROM log_cosignatures s \
                                WHERE s.size = c.size) >= $2 ORDER BY c.size LIMIT 1";
    LOG_COSIGNATURES = "SELECT line FROM log_cosignatures WHERE size = $1 ORDER BY witness";
    INSERT_LOG_COSIGNATURE = "INSERT INTO log_cosignatures (size, witness, line, received_at_ms) \
                              VALUES ($1, $2, $3, $4) ON CONFLICT (size, witness) DO NOTHING";

    // The operator's reports (`reports.rs`): days are UTC days since 1970.
    DAILY_SALES = "SELECT CAST(s.sold_at_ms / 86400000 AS BIGINT), s.stake_cents, b.money, \
                   COUNT(*), CAST(SUM(s.stake_cents) AS BIGINT), CAST(SUM(s.prize_cents) AS BIGINT) \
                   FROM sales s JOIN blocks b ON b.id = s.block \
                   WHERE s.sold_at_ms >= $1 AND s.sold_at_ms < $2 \
                   GROUP BY CAST(s.sold_at_ms / 86400000 AS BIGINT), s.stake_cents, b.money \
                   ORDER BY 1, 2, 3";
    FINISHED_BLOCKS_BETWEEN = "SELECT b.id FROM blocks b JOIN sales s ON s.block = b.id \
                               WHERE b.status IN ('sold_out', 'closed') GROUP BY b.id \
                               HAVING MAX(s.sold_at_ms) >= $1 AND MAX(s.sold_at_ms) < $2 \
                               ORDER BY b.id";

    // The operator's console (`console/`).
    SALES_BUCKETS = "SELECT CAST(sold_at_ms / $1 AS BIGINT), COUNT(*), \
                     CAST(SUM(stake_cents) AS BIGINT), CAST(SUM(prize_cents) AS BIGINT) \
                     FROM sales WHERE sold_at_ms >= $2 AND sold_at_ms < $3 \
                     GROUP BY CAST(sold_at_ms / $1 AS BIGINT) ORDER BY 1";
    LIVE_SESSIONS = "SELECT COUNT(*) FROM sessions WHERE expires_at_ms > $1";
    PLAYER_LIVE_SESSIONS = "SELECT COUNT(*) FROM sessions \
                            WHERE player_id = $1 AND expires_at_ms > $2";
    /// Ids are ASCII (`check_player_id`), so a length in characters is one
    /// in bytes; `substr` rather than `LIKE`, which SQLite folds to lower case.
    PLAYERS_WITH_PREFIX = "SELECT id, kind, balance_cents FROM players \
                           WHERE substr(id, 1, $1) = $2 ORDER BY id LIMIT $3";
    /// Blocks on sale that purchases were dealt from (`state.rs`).
    DEALT_BLOCKS_ON_SALE = "SELECT b.id FROM blocks b WHERE b.status IN ('open', 'pending') \
                            AND EXISTS (SELECT 1 FROM purchases p WHERE p.block = b.id) \
                            ORDER BY b.id";
    BLOCK_SALE_SPAN = "SELECT MIN(sold_at_ms), MAX(sold_at_ms) FROM sales WHERE block = $1";
    OUTBOX_FAILURES = "SELECT last_error, COUNT(*), MIN(created_at_ms) FROM wallet_outbox \
                       WHERE acknowledged_at_ms IS NULL AND last_error IS NOT NULL \
                       GROUP BY last_error ORDER BY 2 DESC, 1";

    // Players, wallets, sessions.
    PLAYER = "SELECT kind, balance_cents FROM players WHERE id = $1";
    PLAYER_FOR_UPDATE = "SELECT kind, balance_cents FROM players WHERE id = $1 FOR UPDATE";
    /// An existing player is left as it is: creating is idempotent.
    CREATE_PLAYER = "INSERT INTO players (id, kind, balance_cents, created_at_ms) \
                     VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING";
    INSERT_PLAYER = "INSERT INTO players (id, kind, balance_cents, created_at_ms) \
                     VALUES ($1, $2, $3, $4)";
    HAS_PLAYERS = "SELECT EXISTS (SELECT 1 FROM players WHERE kind = $1)";
    SET_BALANCE = "UPDATE players SET balance_cents = $1 WHERE id = $2";
    WALLET_OP = "SELECT kind, amount_cents FROM wallet_ops WHERE player_id = $1 AND reference = $2";
    INSERT_WALLET_OP = "INSERT INTO wallet_ops (player_id, reference, kind, amount_cents, \
                        balance_after, at_ms) VALUES ($1, $2, $3, $4, $5, $6)";
    INSERT_SESSION = "INSERT INTO sessions (token_hash, player_id, created_at_ms, expires_at_ms) \
                      VALUES ($1, $2, $3, $4)";
    SESSION = "SELECT player_id, expires_at_ms, lobby_url, created_at_ms FROM sessions \
               WHERE token_hash = $1";
    DELETE_SESSION = "DELETE FROM sessions WHERE token_hash = $1";
    DELETE_PLAYER_SESSIONS = "DELETE FROM sessions WHERE player_id = $1";
    DELETE_EXPIRED_SESSIONS = "DELETE FROM sessions WHERE expires_at_ms <= $1";
    SET_SESSION_LOBBY = "UPDATE sessions SET lobby_url = $1 WHERE token_hash = $2";
    /// The player's live sessions other than the new one ($3), newest first,
    /// beyond the first $4 - 1: with the new one, $4 are left. A window
    /// function rather than `LIMIT … OFFSET`, which SQLite takes only with a
    /// `LIMIT` and PostgreSQL's `LIMIT ALL` SQLite does not know.
    END_OLDEST_SESSIONS = "DELETE FROM sessions WHERE token_hash IN (SELECT token_hash FROM \
                           (SELECT token_hash, ROW_NUMBER() OVER \
                           (ORDER BY created_at_ms DESC, token_hash DESC) AS newer \
                           FROM sessions WHERE player_id = $1 AND expires_at_ms > $2 \
                           AND token_hash <> $3) AS ranked WHERE newer >= $4) \
                           RETURNING token_hash, created_at_ms, expires_at_ms";
    INSERT_EVICTED_SESSION = "INSERT INTO evicted_sessions (token_hash, player_id, created_at_ms, \
                              evicted_at_ms, expires_at_ms) VALUES ($1, $2, $3, $4, $5) \
                              ON CONFLICT (token_hash) DO NOTHING";
    TRIM_EVICTED_SESSIONS = "DELETE FROM evicted_sessions WHERE token_hash IN (SELECT token_hash \
                             FROM (SELECT token_hash, ROW_NUMBER() OVER (ORDER BY evicted_at_ms \
                             DESC, created_at_ms DESC, token_hash DESC) AS newer \
                             FROM evicted_sessions WHERE player_id = $1) AS ranked \
                             WHERE newer > $2)";
    EVICTED_SESSION = "SELECT expires_at_ms FROM evicted_sessions WHERE token_hash = $1";
    DELETE_EXPIRED_EVICTED_SESSIONS = "DELETE FROM evicted_sessions WHERE expires_at_ms <= $1";

    // Launch codes.
    INSERT_LAUNCH = "INSERT INTO launch_codes (code_hash, player_id, mode, lang, lobby_url, \
                     created_at_ms, expires_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)";
    /// A concurrent transaction updating the same row waits for this one,
    /// then sees `used` and updates nothing (PostgreSQL's READ COMMITTED
    /// re-checks the WHERE clause on the new row version; SQLite has one
    /// writer).
    TAKE_LAUNCH = "UPDATE launch_codes SET used = TRUE \
                   WHERE code_hash = $1 AND NOT used AND expires_at_ms > $2 \
                   RETURNING player_id, mode, lobby_url";
    DELETE_EXPIRED_LAUNCHES = "DELETE FROM launch_codes WHERE expires_at_ms <= $1";

    // Sales.
    SALE_BY_KEY = "SELECT sale_id, stake_cents FROM sales \
                   WHERE player_id = $1 AND idempotency_key = $2";
    SALE_BY_ID = concat!(sale_select!(), "WHERE s.sale_id = $1");
    PLAYER_SALE = concat!(sale_select!(), "WHERE s.sale_id = $1 AND s.player_id = $2");
    HISTORY = concat!(
        sale_select!(),
        "WHERE s.player_id = $1 AND s.sale_id < $2 ORDER BY s.sale_id DESC LIMIT $3"
    );
    UNREVEALED = concat!(
        sale_select!(),
        "WHERE s.player_id = $1 AND s.revealed < s.grid_count ORDER BY s.sale_id LIMIT 1"
    );
    INSERT_SALE = "INSERT INTO sales (player_id, idempotency_key, stake_cents, block, position, \
                   prize_cents, grid_count, sold_at_ms, balance_before, balance_after, \
                   client_nonce) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
                   RETURNING sale_id";
    /// Raises, never lowers, and never past the sale's grids.
    SET_REVEALED = "UPDATE sales SET revealed = CASE WHEN $1 <= revealed THEN revealed \
                    WHEN $1 >= grid_count THEN grid_count ELSE $1 END \
                    WHERE sale_id = $2 AND player_id = $3 RETURNING revealed";
    // Purchases, dealt by the beacon (`store::deal`).
    PURCHASE_BY_KEY = concat!(
        purchase_select!(),
        "WHERE p.player_id = $1 AND p.idempotency_key = $2"
    );
    PURCHASE = concat!(purchase_select!(), "WHERE p.purchase_id = $1");
    PURCHASE_OF_SALE = concat!(purchase_select!(), "WHERE p.sale_id = $1");
    INSERT_PURCHASE = "INSERT INTO purchases (player_id, idempotency_key, stake_cents, block, \
                       bought_at_ms, client_nonce, round, balance_before, balance_after) \
                       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING purchase_id";
    UNDEALT_FOR_UPDATE = concat!(
        purchase_select!(),
        "WHERE p.sale_id IS NULL AND p.log_index IS NOT NULL ORDER BY p.log_index LIMIT $1 \
         FOR UPDATE"
    );
    UNDEALT_COUNT = "SELECT COUNT(*) FROM purchases WHERE sale_id IS NULL";
    UNDEALT_LOGGED = "SELECT purchase_id, log_index, round FROM purchases \
                      WHERE sale_id IS NULL AND log_index IS NOT NULL ORDER BY log_index LIMIT $1";
    SOLD_POSITIONS = "SELECT position FROM sales WHERE block = $1";
    SOLD_COUNT = "SELECT COUNT(*) FROM sales WHERE block = $1";
    SET_PURCHASE_DEALT = "UPDATE purchases SET sale_id = $1, deal_proof = $2, \
                          round_signature = $3, dealt_round = $4 \
                          WHERE purchase_id = $5 AND sale_id IS NULL";
    /// Sums of BIGINT are NUMERIC in PostgreSQL: cast back, exactly.
    BALANCES = "SELECT CAST(COALESCE(SUM(balance_cents), 0) AS BIGINT) FROM players";
    SALE_TOTALS = "SELECT CAST(COALESCE(SUM(stake_cents), 0) AS BIGINT), \
                   CAST(COALESCE(SUM(prize_cents), 0) AS BIGINT), COUNT(*) FROM sales";
    SAVEPOINT = "SAVEPOINT sale";
    RELEASE_SAVEPOINT = "RELEASE SAVEPOINT sale";
    /// ROLLBACK TO keeps the savepoint open; RELEASE closes it.
    ROLLBACK_TO_SAVEPOINT = "ROLLBACK TO SAVEPOINT sale; RELEASE SAVEPOINT sale";

    // Player protection.
    PROTECTION = concat!(
        "SELECT ",
        protection_columns!(),
        " FROM player_protection WHERE player_id = $1"
    );
    PUT_PROTECTION = "INSERT INTO player_protection (player_id, weekly_stake_limit_cents, \
                      pending_stake_limit_cents, pending_stake_effective_ms, \
                      weekly_loss_limit_cents, pending_loss_limit_cents, pending_loss_effective_ms, \
                      excluded_until_ms, excluded_indefinitely, reality_check_minutes) \
                      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                      ON CONFLICT (player_id) DO UPDATE SET \
                      weekly_stake_limit_cents = excluded.weekly_stake_limit_cents, \
                      pending_stake_limit_cents = excluded.pending_stake_limit_cents, \
                      pending_stake_effective_ms = excluded.pending_stake_effective_ms, \
                      weekly_loss_limit_cents = excluded.weekly_loss_limit_cents, \
                      pending_loss_limit_cents = excluded.pending_loss_limit_cents, \
                      pending_loss_effective_ms = excluded.pending_loss_effective_ms, \
                      excluded_until_ms = excluded.excluded_until_ms, \
                      excluded_indefinitely = excluded.excluded_indefinitely, \
                      reality_check_minutes = excluded.reality_check_minutes";
    WINDOW_TOTALS = "SELECT CAST(COALESCE(SUM(stake_cents), 0) AS BIGINT), \
                     CAST(COALESCE(SUM(prize_cents), 0) AS BIGINT) FROM ( \
                     SELECT stake_cents, prize_cents FROM sales \
                     WHERE player_id = $1 AND sold_at_ms > $2 \
                     UNION ALL SELECT stake_cents, 0 FROM wallet_rounds \
                     WHERE player_id = $1 AND state = 'reserved' AND reserved_at_ms > $2 \
                     UNION ALL SELECT stake_cents, 0 FROM purchases \
                     WHERE player_id = $1 AND sale_id IS NULL AND bought_at_ms > $2\
                     ) AS window_stakes";
    WINDOW_SALES = "SELECT at_ms, stake_cents, prize_cents FROM ( \
                    SELECT sold_at_ms AS at_ms, stake_cents, prize_cents FROM sales \
                    WHERE player_id = $1 AND sold_at_ms > $2 \
                    UNION ALL SELECT reserved_at_ms, stake_cents, CAST(0 AS BIGINT) \
                    FROM wallet_rounds \
                    WHERE player_id = $1 AND state = 'reserved' AND reserved_at_ms > $2 \
                    UNION ALL SELECT bought_at_ms, stake_cents, CAST(0 AS BIGINT) FROM purchases \
                    WHERE player_id = $1 AND sale_id IS NULL AND bought_at_ms > $2\
                    ) AS window_stakes ORDER BY at_ms";
    INSERT_AUDIT = "INSERT INTO protection_audit (player_id, at_ms, actor, change_kind, \
                    old_value, new_value, effective_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)";
    AUDIT = "SELECT at_ms, actor, change_kind, old_value, new_value, effective_at_ms \
             FROM protection_audit WHERE player_id = $1 ORDER BY id DESC";

    // The seamless wallet.
    TAKE_FREE_TICKET = "DELETE FROM wallet_free_tickets WHERE (block, position) = \
                        (SELECT block, position FROM wallet_free_tickets WHERE block = $1 \
                        ORDER BY position LIMIT 1 FOR UPDATE) RETURNING position";
    RESERVED_TICKETS = "SELECT COUNT(*) FROM wallet_rounds WHERE block = $1 AND state = 'reserved'";
    RESERVED_ROUND_BY_KEY = concat!(
        "SELECT ",
        round_columns!(),
        " FROM wallet_rounds WHERE player_id = $1 AND idempotency_key = $2 \
         AND state = 'reserved'"
    );
    INSERT_ROUND = concat!(
        "INSERT INTO wallet_rounds (",
        round_columns!(),
        ", state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'reserved')"
    );
    RESERVED_ROUND_FOR_UPDATE = concat!(
        "SELECT ",
        round_columns!(),
        " FROM wallet_rounds WHERE round_id = $1 AND state = 'reserved' FOR UPDATE"
    );
    END_ROUND = "UPDATE wallet_rounds SET state = $1, sale_id = $2, ended_at_ms = $3 \
                 WHERE round_id = $4 AND state = 'reserved'";
    PAID_ROUND_BY_KEY = "SELECT round_id FROM wallet_rounds \
                         WHERE player_id = $1 AND idempotency_key = $2 AND state = 'sold'";
    FREE_TICKET = "INSERT INTO wallet_free_tickets (block, position) VALUES ($1, $2)";
    INSERT_OUTBOX = "INSERT INTO wallet_outbox (transaction_id, kind, round_id, player_id, \
                     amount_cents, original_transaction_id, created_at_ms) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7)";
    ROUNDS_RESERVED_BEFORE = "SELECT round_id FROM wallet_rounds \
                              WHERE state = 'reserved' AND reserved_at_ms < $1 \
                              ORDER BY reserved_at_ms";
    OUTBOX_DUE = "SELECT transaction_id, kind, round_id, player_id, amount_cents, \
                  original_transaction_id, created_at_ms, attempts FROM wallet_outbox \
                  WHERE acknowledged_at_ms IS NULL AND given_up_at_ms IS NULL \
                  ORDER BY created_at_ms, transaction_id LIMIT $1";
    OUTBOX_ACKNOWLEDGED = "UPDATE wallet_outbox SET acknowledged_at_ms = $1, balance_cents = $2, \
                           attempts = attempts + 1 \
                           WHERE transaction_id = $3 AND acknowledged_at_ms IS NULL";
    OUTBOX_ATTEMPT_FAILED = "UPDATE wallet_outbox SET attempts = attempts + 1, last_error = $1 \
                             WHERE transaction_id = $2";
    OUTBOX_GIVEN_UP = "UPDATE wallet_outbox SET attempts = attempts + 1, last_error = $1, \
                       given_up_at_ms = $2 \
                       WHERE transaction_id = $3 AND acknowledged_at_ms IS NULL";
    OUTBOX_GIVEN_UP_COUNT = "SELECT COUNT(*) FROM wallet_outbox \
                             WHERE given_up_at_ms IS NOT NULL AND acknowledged_at_ms IS NULL";
}

// What a batch of sales reads once for all its sales (`batch`): arrays,
// so PostgreSQL's alone, and kept out of `texts!`, whose every text SQLite
// prepares too. `$1` is the players' ids; `$2`, for the keys, the
// idempotency keys in the same order.

/// One open block of each line of the batch's stakes (`$1`) that no other
/// batch holds, locked: batches of several servers sell side by side from
/// different blocks of a line. A line whose every open block is held comes
/// back with no block (`StoreError::RunLockingEveryOpenBlock`).
pub static BATCH_LOCK_FREE_OPEN_BLOCKS: Sql = Sql::new(
    "SELECT l.stake_cents, l.money, b.id, b.tickets, b.sold FROM \
     (SELECT DISTINCT stake_cents, money FROM blocks \
      WHERE status = 'open' AND stake_cents = ANY($1)) AS l \
     LEFT JOIN LATERAL (SELECT id, tickets, sold FROM blocks \
      WHERE status = 'open' AND stake_cents = l.stake_cents AND money = l.money \
      ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) AS b ON TRUE",
);
/// Every open block of the batch's stakes (`$1`), waited for and locked in
/// id order, as every batch that runs this way locks them (so that they
/// wait for each other instead of deadlocking).
pub static BATCH_LOCK_EVERY_OPEN_BLOCK: Sql = Sql::new(
    "SELECT id FROM blocks WHERE status = 'open' AND stake_cents = ANY($1) ORDER BY id FOR UPDATE",
);
/// A line's first open block that no other batch holds (one this batch
/// holds is not skipped), after the one it locked first sold out.
pub static BATCH_FREE_OPEN_BLOCK: Sql = Sql::new(
    "SELECT id, tickets, sold FROM blocks WHERE stake_cents = $1 AND money = $2 \
     AND status = 'open' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED",
);

/// The batch's players with their protection settings (in the column order
/// of `decode::protection`, then whether they are stored), the players
/// locked in id order as every batch of every server locks them (so that
/// they wait for each other instead of deadlocking).
pub static BATCH_PLAYERS: Sql = Sql::new(concat!(
    "SELECT ",
    protection_columns!(),
    ", pp.player_id IS NOT NULL, p.kind, p.balance_cents, p.id FROM players p \
     LEFT JOIN player_protection pp ON pp.player_id = p.id \
     WHERE p.id = ANY($1) ORDER BY p.id FOR UPDATE OF p"
));
/// The purchases and the sales already made under the batch's keys, in
/// one statement: purchases in the column order of `decode::purchase`,
/// then FALSE; sales as their id, player, key and stake in the same
/// places, then TRUE.
pub static BATCH_BY_KEY: Sql = Sql::new(concat!(
    "SELECT pu.*, FALSE FROM (",
    purchase_select!(),
    "WHERE (p.player_id, p.idempotency_key) IN (SELECT * FROM UNNEST($1::text[], $2::text[]))\
     ) AS pu UNION ALL SELECT s.sale_id, s.player_id, s.idempotency_key, NULL, NULL, \
     s.stake_cents, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, TRUE FROM sales s \
     WHERE (s.player_id, s.idempotency_key) IN (SELECT * FROM UNNEST($1::text[], $2::text[]))"
));
/// A block's released tickets and tickets reserved by seamless rounds,
/// counted, once the batch holds the block.
pub static BATCH_TICKET_POOL: Sql = Sql::new(
    "SELECT (SELECT COUNT(*) FROM wallet_free_tickets WHERE block = $1), \
     (SELECT COUNT(*) FROM wallet_rounds WHERE block = $1 AND state = 'reserved')",
);

/// The batch's held-back writes (`BatchCache::take_writes`), newest value
/// per row, at its end or before a sale is undone, in one statement: the
/// balances, the open blocks' sold counts, the prizes taken; the rows
/// written by each come back counted.
pub static BATCH_WRITES: Sql = Sql::new(
    "WITH balances AS (UPDATE players AS p SET balance_cents = u.balance \
       FROM UNNEST($1::text[], $2::bigint[]) AS u(id, balance) WHERE p.id = u.id RETURNING 1), \
     sold AS (UPDATE blocks AS b SET sold = u.sold \
       FROM UNNEST($3::bigint[], $4::bigint[]) AS u(id, sold) WHERE b.id = u.id RETURNING 1), \
     prizes AS (UPDATE block_prizes AS p SET remaining = p.remaining - u.taken \
       FROM UNNEST($5::bigint[], $6::bigint[], $7::bigint[]) AS u(block, prize_cents, taken) \
       WHERE p.block = u.block AND p.prize_cents = u.prize_cents RETURNING 1) \
     SELECT (SELECT COUNT(*) FROM balances), (SELECT COUNT(*) FROM sold), \
     (SELECT COUNT(*) FROM prizes)",
);

#[cfg(test)]
mod tests {
    use super::super::Dialect;
    use super::ALL;

    /// The numbers of a text's placeholders in order of first appearance.
    fn first_appearances(text: &str) -> Vec<u32> {
        let mut seen = Vec::new();
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            rest = &rest[at + 1..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let n: u32 = digits.parse().expect("a number after $");
            if !seen.contains(&n) {
                seen.push(n);
            }
        }
        seen
    }

    /// SQLite numbers `$N` by first appearance: each text must use $1, $2,
    /// ... first in that order, or SQLite would bind the wrong values.
    #[test]
    fn every_text_first_uses_its_placeholders_in_order() {
        for (name, sql) in ALL {
            let seen = first_appearances(sql.text(Dialect::Postgres));
            let expected: Vec<u32> = (1..=seen.len() as u32).collect();
            assert_eq!(seen, expected, "{name}");
        }
    }

    #[test]
    fn sqlite_texts_carry_no_row_locks_and_prepare() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for migration in crate::store::sqlite::MIGRATIONS {
            conn.execute_batch(migration).unwrap();
        }
        for (name, sql) in ALL {
            let text = sql.text(Dialect::Sqlite);
            assert!(!text.contains("FOR UPDATE"), "{name}");
            // Batches (the savepoint's rollback) are run, not prepared.
            if !text.contains(';') {
                conn.prepare(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }
}
