//! The embedded SQLite backend: one file in the data directory, WAL with
//! `synchronous=FULL` so that every acknowledged commit survives a crash or
//! a power cut. One writer connection (SQLite has one writer anyway) behind
//! a mutex, and a few read-only connections that WAL lets run beside it.

use super::*;
use eldorado_engine::{Grid, Salt};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, Transaction};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const READERS: usize = 4;
/// Tickets inserted per transaction while a block is stored, so that sales
/// wait at most one chunk for the writer.
const TICKET_CHUNK: usize = 25_000;

/// Schema versions, applied in order; `PRAGMA user_version` is the count applied.
const MIGRATIONS: &[&str] = &[r#"
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
"#];

pub struct SqliteStore {
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Backend(e.to_string())
    }
}

fn corrupt(what: impl Into<String>) -> StoreError {
    StoreError::Corrupt(what.into())
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    // FULL: in WAL mode, NORMAL may lose the last commits on power loss;
    // a sale acknowledged to a player must not be lost.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "cache_size", -32_000)?;
    Ok(())
}

impl SqliteStore {
    /// Opens (creating if needed) the database file, applies migrations and
    /// drops blocks whose generation was interrupted.
    pub fn open(path: &Path) -> StoreResult<SqliteStore> {
        let mut writer = Connection::open(path)?;
        let mode: String = writer.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Backend(format!(
                "the database refused WAL mode ({mode})"
            )));
        }
        configure(&writer)?;
        migrate(&mut writer)?;
        drop_interrupted_blocks(&mut writer)?;
        let mut readers = Vec::with_capacity(READERS);
        for _ in 0..READERS {
            let reader = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            configure(&reader)?;
            readers.push(Mutex::new(reader));
        }
        Ok(SqliteStore {
            writer: Mutex::new(writer),
            readers,
            next_reader: AtomicUsize::new(0),
        })
    }

    fn write(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the writer rolled its transaction back
        // (rusqlite drops it), so the connection is still consistent.
        self.writer.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn read(&self) -> std::sync::MutexGuard<'_, Connection> {
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        for i in 0..self.readers.len() {
            if let Ok(guard) = self.readers[(start + i) % self.readers.len()].try_lock() {
                return guard;
            }
        }
        self.readers[start % self.readers.len()]
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }
}

fn migrate(conn: &mut Connection) -> StoreResult<()> {
    let applied: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let applied = usize::try_from(applied).map_err(|_| corrupt("negative schema version"))?;
    if applied > MIGRATIONS.len() {
        return Err(corrupt(format!(
            "schema version {applied} is newer than this server ({})",
            MIGRATIONS.len()
        )));
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(applied) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (index + 1) as i64)?;
        tx.commit()?;
        tracing::info!(version = index + 1, "applied schema migration");
    }
    Ok(())
}

fn drop_interrupted_blocks(conn: &mut Connection) -> StoreResult<()> {
    let tx = conn.transaction()?;
    let ids: Vec<i64> = tx
        .prepare("SELECT id FROM blocks WHERE status = 'generating'")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for id in ids {
        tracing::warn!(
            block = id,
            "dropping a block whose generation was interrupted"
        );
        tx.execute("DELETE FROM tickets WHERE block = ?1", [id])?;
        tx.execute("DELETE FROM block_prizes WHERE block = ?1", [id])?;
        tx.execute("DELETE FROM blocks WHERE id = ?1", [id])?;
    }
    tx.commit()?;
    Ok(())
}

fn to_u64(value: i64, what: &str) -> StoreResult<u64> {
    u64::try_from(value).map_err(|_| corrupt(format!("negative {what}")))
}

fn to_i64(value: u64) -> StoreResult<i64> {
    i64::try_from(value).map_err(|_| corrupt("amount out of range"))
}

fn grids_text(ticket: &Ticket) -> String {
    ticket
        .grids
        .iter()
        .map(|g| g.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn parse_ticket(
    position: u32,
    stake_cents: u64,
    grids: &str,
    prize: i64,
    extras: i64,
    salt: &[u8],
) -> StoreResult<Ticket> {
    let grids = grids
        .split(' ')
        .map(|g| g.parse::<Grid>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| corrupt(format!("stored grid: {e}")))?;
    let salt = Salt(
        salt.try_into()
            .map_err(|_| corrupt("stored salt of wrong length"))?,
    );
    Ok(Ticket {
        position,
        stake_cents,
        grids,
        prize_cents: to_u64(prize, "prize")?,
        extras: u8::try_from(extras).map_err(|_| corrupt("stored extras"))?,
        salt,
    })
}

fn hash_of(bytes: &[u8]) -> StoreResult<Hash> {
    Ok(Hash(
        bytes
            .try_into()
            .map_err(|_| corrupt("stored hash of wrong length"))?,
    ))
}

fn block_record(conn: &Connection, id: u64) -> StoreResult<Option<BlockRecord>> {
    let row = conn
        .prepare_cached(
            "SELECT status, sold, commitment, params FROM blocks WHERE id = ?1 AND status <> 'generating'",
        )?
        .query_row([to_i64(id)?], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })
        .optional()?;
    let Some((status, sold, commitment, params)) = row else {
        return Ok(None);
    };
    let remaining_by_prize = conn
        .prepare_cached(
            "SELECT prize_cents, remaining FROM block_prizes WHERE block = ?1 ORDER BY prize_cents DESC",
        )?
        .query_map([to_i64(id)?], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?
        .map(|row| {
            let (prize, remaining) = row?;
            Ok((
                to_u64(prize, "prize")?,
                u32::try_from(remaining).map_err(|_| corrupt("remaining prizes"))?,
            ))
        })
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Some(BlockRecord {
        signed: serde_json::from_str(&commitment)
            .map_err(|e| corrupt(format!("stored commitment: {e}")))?,
        params: serde_json::from_str(&params)
            .map_err(|e| corrupt(format!("stored params: {e}")))?,
        status: BlockStatus::parse(&status).ok_or_else(|| corrupt("block status"))?,
        sold: u32::try_from(sold).map_err(|_| corrupt("sold count"))?,
        remaining_by_prize,
    }))
}

const SALE_COLUMNS: &str = "s.sale_id, s.player_id, s.block, b.tickets, s.position, s.stake_cents, \
     t.grids, t.prize, t.extras, t.salt, s.sold_at_ms, s.balance_before, s.balance_after, s.revealed";

fn sale_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoreResult<SaleRecord>> {
    let position: i64 = r.get(4)?;
    let grids: String = r.get(6)?;
    let salt: Vec<u8> = r.get(9)?;
    let (sale_id, block, tickets, stake): (i64, i64, i64, i64) =
        (r.get(0)?, r.get(2)?, r.get(3)?, r.get(5)?);
    let (prize, extras): (i64, i64) = (r.get(7)?, r.get(8)?);
    let (sold_at, before, after, revealed): (i64, i64, i64, i64) =
        (r.get(10)?, r.get(11)?, r.get(12)?, r.get(13)?);
    let player_id: String = r.get(1)?;
    Ok((|| {
        Ok(SaleRecord {
            sale_id: to_u64(sale_id, "sale id")?,
            player_id,
            block: to_u64(block, "block")?,
            block_tickets: u32::try_from(tickets).map_err(|_| corrupt("tickets"))?,
            ticket: parse_ticket(
                u32::try_from(position).map_err(|_| corrupt("position"))?,
                to_u64(stake, "stake")?,
                &grids,
                prize,
                extras,
                &salt,
            )?,
            sold_at_ms: to_u64(sold_at, "time")?,
            balance_before_cents: to_u64(before, "balance")?,
            balance_after_cents: to_u64(after, "balance")?,
            revealed: u8::try_from(revealed).map_err(|_| corrupt("revealed"))?,
        })
    })())
}

fn query_sales(
    conn: &Connection,
    filter: &str,
    params: &[&dyn rusqlite::ToSql],
) -> StoreResult<Vec<SaleRecord>> {
    let sql = format!(
        "SELECT {SALE_COLUMNS} FROM sales s JOIN blocks b ON b.id = s.block \
         JOIN tickets t ON t.block = s.block AND t.position = s.position {filter}"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params, sale_from_row)?;
    let mut out = Vec::new();
    for row in rows {
        out.push(row??);
    }
    Ok(out)
}

/// The open block of a stake during a sale batch: id, size, tickets sold.
#[derive(Clone, Copy)]
struct Cursor {
    block: u64,
    tickets: u32,
    sold: u32,
}

fn open_cursor(tx: &Transaction<'_>, stake: u64) -> StoreResult<Option<Cursor>> {
    let row = tx
        .prepare_cached(
            "SELECT id, tickets, sold FROM blocks WHERE stake_cents = ?1 AND status = 'open' ORDER BY id LIMIT 1",
        )?
        .query_row([to_i64(stake)?], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
        })
        .optional()?;
    row.map(|(id, tickets, sold)| {
        Ok(Cursor {
            block: to_u64(id, "block")?,
            tickets: u32::try_from(tickets).map_err(|_| corrupt("tickets"))?,
            sold: u32::try_from(sold).map_err(|_| corrupt("sold"))?,
        })
    })
    .transpose()
}

/// Opens the oldest pending block of `stake`, if any.
fn open_next_pending(tx: &Transaction<'_>, stake: u64) -> StoreResult<()> {
    tx.prepare_cached(
        "UPDATE blocks SET status = 'open' WHERE id = \
         (SELECT id FROM blocks WHERE stake_cents = ?1 AND status = 'pending' ORDER BY id LIMIT 1)",
    )?
    .execute([to_i64(stake)?])?;
    Ok(())
}

fn sell_one(
    tx: &Transaction<'_>,
    cursors: &mut HashMap<u64, Option<Cursor>>,
    request: &SaleRequest,
    now_ms: u64,
) -> StoreResult<SaleOutcome> {
    let stake = request.stake.cents();
    let existing = tx
        .prepare_cached(
            "SELECT sale_id, stake_cents FROM sales WHERE player_id = ?1 AND idempotency_key = ?2",
        )?
        .query_row(params![request.player_id, request.idempotency_key], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
        })
        .optional()?;
    if let Some((sale_id, sale_stake)) = existing {
        if to_u64(sale_stake, "stake")? != stake {
            return Ok(SaleOutcome::KeyConflict);
        }
        let mut found = query_sales(tx, "WHERE s.sale_id = ?1", &[&sale_id])?;
        return found
            .pop()
            .map(SaleOutcome::Replayed)
            .ok_or_else(|| corrupt("sale without its ticket"));
    }
    let balance = tx
        .prepare_cached("SELECT balance_cents FROM players WHERE id = ?1")?
        .query_row([&request.player_id], |r| r.get::<_, i64>(0))
        .optional()?;
    let Some(balance) = balance else {
        return Ok(SaleOutcome::UnknownPlayer);
    };
    let balance = to_u64(balance, "balance")?;
    if balance < stake {
        return Ok(SaleOutcome::InsufficientFunds {
            balance_cents: balance,
        });
    }
    let cursor = match cursors.get(&stake) {
        Some(cursor) => *cursor,
        None => {
            let cursor = open_cursor(tx, stake)?;
            cursors.insert(stake, cursor);
            cursor
        }
    };
    let Some(cursor) = cursor else {
        return Ok(SaleOutcome::SoldOut);
    };
    let position = cursor.sold;
    let (grids, prize, extras, salt) = tx
        .prepare_cached(
            "SELECT grids, prize, extras, salt FROM tickets WHERE block = ?1 AND position = ?2",
        )?
        .query_row(params![to_i64(cursor.block)?, position], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, Vec<u8>>(3)?,
            ))
        })
        .optional()?
        .ok_or_else(|| corrupt(format!("block {} has no ticket {position}", cursor.block)))?;
    let ticket = parse_ticket(position, stake, &grids, prize, extras, &salt)?;
    let after = balance - stake + ticket.prize_cents;
    tx.prepare_cached("UPDATE players SET balance_cents = ?1 WHERE id = ?2")?
        .execute(params![to_i64(after)?, request.player_id])?;
    let grid_count = 1 + i64::from(ticket.extras);
    tx.prepare_cached(
        "INSERT INTO sales (player_id, idempotency_key, stake_cents, block, position, prize_cents, \
         grid_count, sold_at_ms, balance_before, balance_after) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
    )?
    .execute(params![
        request.player_id,
        request.idempotency_key,
        to_i64(stake)?,
        to_i64(cursor.block)?,
        position,
        prize,
        grid_count,
        to_i64(now_ms)?,
        to_i64(balance)?,
        to_i64(after)?,
    ])?;
    let sale_id = to_u64(tx.last_insert_rowid(), "sale id")?;
    let sold = position + 1;
    if sold == cursor.tickets {
        tx.prepare_cached("UPDATE blocks SET sold = ?1, status = 'sold_out' WHERE id = ?2")?
            .execute(params![sold, to_i64(cursor.block)?])?;
        open_next_pending(tx, stake)?;
        cursors.remove(&stake);
    } else {
        tx.prepare_cached("UPDATE blocks SET sold = ?1 WHERE id = ?2")?
            .execute(params![sold, to_i64(cursor.block)?])?;
        cursors.insert(stake, Some(Cursor { sold, ..cursor }));
    }
    if ticket.prize_cents > 0 {
        tx.prepare_cached(
            "UPDATE block_prizes SET remaining = remaining - 1 WHERE block = ?1 AND prize_cents = ?2",
        )?
        .execute(params![to_i64(cursor.block)?, prize])?;
    }
    Ok(SaleOutcome::Sold(SaleRecord {
        sale_id,
        player_id: request.player_id.clone(),
        block: cursor.block,
        block_tickets: cursor.tickets,
        ticket,
        sold_at_ms: now_ms,
        balance_before_cents: balance,
        balance_after_cents: after,
        revealed: 0,
    }))
}

impl Store for SqliteStore {
    fn blocks(&self) -> StoreResult<Vec<BlockRecord>> {
        let conn = self.read();
        let ids: Vec<i64> = conn
            .prepare_cached("SELECT id FROM blocks WHERE status <> 'generating' ORDER BY id")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        ids.into_iter()
            .filter_map(|id| block_record(&conn, id as u64).transpose())
            .collect()
    }

    fn block(&self, id: u64) -> StoreResult<Option<BlockRecord>> {
        block_record(&self.read(), id)
    }

    fn next_block_id(&self) -> StoreResult<u64> {
        let max: Option<i64> = self
            .write()
            .query_row("SELECT MAX(id) FROM blocks", [], |r| r.get(0))?;
        Ok(max.map_or(Ok(0), |m| to_u64(m, "block id"))? + 1)
    }

    fn insert_block(&self, block: &Block, signed: &SignedCommitment) -> StoreResult<BlockStatus> {
        let id = to_i64(block.id)?;
        let stake = to_i64(block.stake.cents())?;
        let commitment = serde_json::to_string(signed)
            .map_err(|e| StoreError::Backend(format!("serializing a commitment: {e}")))?;
        let params = serde_json::to_string(&block.params)
            .map_err(|e| StoreError::Backend(format!("serializing params: {e}")))?;
        let now = now_ms();
        {
            let mut conn = self.write();
            let tx = conn.transaction()?;
            tx.execute(
                "INSERT INTO blocks (id, stake_cents, tickets, status, commitment, params, created_at_ms) \
                 VALUES (?1, ?2, ?3, 'generating', ?4, ?5, ?6)",
                params![id, stake, block.tickets.len() as i64, commitment, params, to_i64(now)?],
            )?;
            tx.commit()?;
        }
        let mut prizes: HashMap<u64, i64> = HashMap::new();
        for chunk in block.tickets.chunks(TICKET_CHUNK) {
            let mut conn = self.write();
            let tx = conn.transaction()?;
            {
                let mut insert = tx.prepare_cached(
                    "INSERT INTO tickets (block, position, grids, prize, extras, salt, leaf) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )?;
                for ticket in chunk {
                    let leaf = block
                        .tree
                        .leaf(ticket.position)
                        .ok_or_else(|| corrupt("a ticket without its leaf"))?;
                    if ticket.prize_cents > 0 {
                        *prizes.entry(ticket.prize_cents).or_default() += 1;
                    }
                    insert.execute(params![
                        id,
                        ticket.position,
                        grids_text(ticket),
                        to_i64(ticket.prize_cents)?,
                        ticket.extras,
                        &ticket.salt.0[..],
                        &leaf.0[..],
                    ])?;
                }
            }
            tx.commit()?;
        }
        let mut conn = self.write();
        let tx = conn.transaction()?;
        for (prize, count) in &prizes {
            tx.execute(
                "INSERT INTO block_prizes (block, prize_cents, remaining) VALUES (?1, ?2, ?3)",
                params![id, to_i64(*prize)?, count],
            )?;
        }
        let has_open: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM blocks WHERE stake_cents = ?1 AND status = 'open')",
            [stake],
            |r| r.get(0),
        )?;
        let status = if has_open {
            BlockStatus::Pending
        } else {
            BlockStatus::Open
        };
        tx.execute(
            "UPDATE blocks SET status = ?1 WHERE id = ?2",
            params![status.as_str(), id],
        )?;
        tx.commit()?;
        Ok(status)
    }

    fn block_leaves(&self, id: u64) -> StoreResult<Vec<Hash>> {
        let conn = self.read();
        let mut stmt =
            conn.prepare_cached("SELECT leaf FROM tickets WHERE block = ?1 ORDER BY position")?;
        let rows = stmt.query_map([to_i64(id)?], |r| r.get::<_, Vec<u8>>(0))?;
        let mut leaves = Vec::with_capacity(400_000);
        for row in rows {
            leaves.push(hash_of(&row?)?);
        }
        Ok(leaves)
    }

    fn for_each_ticket(&self, id: u64, f: &mut dyn FnMut(Ticket, Hash) -> bool) -> StoreResult<()> {
        let conn = self.read();
        let stake: i64 = conn.query_row(
            "SELECT stake_cents FROM blocks WHERE id = ?1",
            [to_i64(id)?],
            |r| r.get(0),
        )?;
        let mut stmt = conn.prepare_cached(
            "SELECT position, grids, prize, extras, salt, leaf FROM tickets WHERE block = ?1 ORDER BY position",
        )?;
        let mut rows = stmt.query([to_i64(id)?])?;
        while let Some(r) = rows.next()? {
            let position: i64 = r.get(0)?;
            let grids: String = r.get(1)?;
            let salt: Vec<u8> = r.get(4)?;
            let leaf: Vec<u8> = r.get(5)?;
            let ticket = parse_ticket(
                u32::try_from(position).map_err(|_| corrupt("position"))?,
                to_u64(stake, "stake")?,
                &grids,
                r.get(2)?,
                r.get(3)?,
                &salt,
            )?;
            if !f(ticket, hash_of(&leaf)?) {
                break;
            }
        }
        Ok(())
    }

    fn close_block(&self, id: u64) -> StoreResult<Option<BlockRecord>> {
        let mut conn = self.write();
        let tx = conn.transaction()?;
        let row = tx
            .query_row(
                "SELECT status, stake_cents FROM blocks WHERE id = ?1 AND status <> 'generating'",
                [to_i64(id)?],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)),
            )
            .optional()?;
        let Some((status, stake)) = row else {
            return Ok(None);
        };
        if status == "open" || status == "pending" {
            tx.execute(
                "UPDATE blocks SET status = 'closed' WHERE id = ?1",
                [to_i64(id)?],
            )?;
            if status == "open" {
                open_next_pending(&tx, to_u64(stake, "stake")?)?;
            }
        }
        let record = block_record(&tx, id)?;
        tx.commit()?;
        Ok(record)
    }

    fn create_player(&self, id: &str, kind: PlayerKind, balance_cents: u64) -> StoreResult<bool> {
        let conn = self.write();
        let inserted = conn
            .prepare_cached(
                "INSERT OR IGNORE INTO players (id, kind, balance_cents, created_at_ms) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, kind.as_str(), to_i64(balance_cents)?, to_i64(now_ms())?])?;
        Ok(inserted == 1)
    }

    fn player(&self, id: &str) -> StoreResult<Option<PlayerRecord>> {
        let conn = self.read();
        let row = conn
            .prepare_cached("SELECT kind, balance_cents FROM players WHERE id = ?1")?
            .query_row([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .optional()?;
        row.map(|(kind, balance)| {
            Ok(PlayerRecord {
                id: id.to_owned(),
                kind: if kind == "demo" {
                    PlayerKind::Demo
                } else {
                    PlayerKind::Operator
                },
                balance_cents: to_u64(balance, "balance")?,
            })
        })
        .transpose()
    }

    fn transfer(&self, transfer: &Transfer, now_ms: u64) -> StoreResult<TransferOutcome> {
        let kind = match transfer.kind {
            TransferKind::Credit => "credit",
            TransferKind::Debit => "debit",
        };
        let mut conn = self.write();
        let tx = conn.transaction()?;
        let previous = tx
            .query_row(
                "SELECT kind, amount_cents, balance_after FROM wallet_ops WHERE player_id = ?1 AND reference = ?2",
                params![transfer.player_id, transfer.reference],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)),
            )
            .optional()?;
        if let Some((previous_kind, amount, _)) = previous {
            if previous_kind != kind || to_u64(amount, "amount")? != transfer.amount_cents {
                return Ok(TransferOutcome::ReferenceConflict);
            }
            let balance: i64 = tx.query_row(
                "SELECT balance_cents FROM players WHERE id = ?1",
                [&transfer.player_id],
                |r| r.get(0),
            )?;
            return Ok(TransferOutcome::Replayed {
                balance_cents: to_u64(balance, "balance")?,
            });
        }
        let player = tx
            .query_row(
                "SELECT kind, balance_cents FROM players WHERE id = ?1",
                [&transfer.player_id],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)),
            )
            .optional()?;
        let balance = match (player, transfer.kind) {
            (Some((kind, _)), _) if kind == "demo" => return Ok(TransferOutcome::DemoPlayer),
            (Some((_, balance)), _) => to_u64(balance, "balance")?,
            // Credit before the first session: the operator's player exists
            // from its first transfer in.
            (None, TransferKind::Credit) => {
                tx.execute(
                    "INSERT INTO players (id, kind, balance_cents, created_at_ms) VALUES (?1, 'operator', 0, ?2)",
                    params![transfer.player_id, to_i64(now_ms)?],
                )?;
                0
            }
            (None, TransferKind::Debit) => return Ok(TransferOutcome::UnknownPlayer),
        };
        let after = match transfer.kind {
            TransferKind::Credit => balance
                .checked_add(transfer.amount_cents)
                .filter(|b| i64::try_from(*b).is_ok())
                .ok_or_else(|| corrupt("balance overflow"))?,
            TransferKind::Debit => match balance.checked_sub(transfer.amount_cents) {
                Some(after) => after,
                None => {
                    return Ok(TransferOutcome::InsufficientFunds {
                        balance_cents: balance,
                    })
                }
            },
        };
        tx.execute(
            "UPDATE players SET balance_cents = ?1 WHERE id = ?2",
            params![to_i64(after)?, transfer.player_id],
        )?;
        tx.execute(
            "INSERT INTO wallet_ops (player_id, reference, kind, amount_cents, balance_after, at_ms) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                transfer.player_id,
                transfer.reference,
                kind,
                to_i64(transfer.amount_cents)?,
                to_i64(after)?,
                to_i64(now_ms)?
            ],
        )?;
        tx.commit()?;
        Ok(TransferOutcome::Applied {
            balance_cents: after,
        })
    }

    fn create_session(
        &self,
        token_hash: &[u8; 32],
        player_id: &str,
        now_ms: u64,
        expires_at_ms: u64,
    ) -> StoreResult<()> {
        let conn = self.write();
        conn.prepare_cached(
            "INSERT INTO sessions (token_hash, player_id, created_at_ms, expires_at_ms) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![
            &token_hash[..],
            player_id,
            to_i64(now_ms)?,
            to_i64(expires_at_ms)?
        ])?;
        Ok(())
    }

    fn session(&self, token_hash: &[u8; 32]) -> StoreResult<Option<SessionRecord>> {
        let conn = self.read();
        let row = conn
            .prepare_cached("SELECT player_id, expires_at_ms FROM sessions WHERE token_hash = ?1")?
            .query_row([&token_hash[..]], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
            })
            .optional()?;
        row.map(|(player_id, expires)| {
            Ok(SessionRecord {
                player_id,
                expires_at_ms: to_u64(expires, "expiry")?,
            })
        })
        .transpose()
    }

    fn sell_batch(&self, requests: &[SaleRequest], now_ms: u64) -> StoreResult<Vec<SaleOutcome>> {
        let mut conn = self.write();
        let tx = conn.transaction()?;
        let mut cursors = HashMap::new();
        let outcomes = requests
            .iter()
            .map(|request| sell_one(&tx, &mut cursors, request, now_ms))
            .collect::<StoreResult<Vec<_>>>()?;
        tx.commit()?;
        Ok(outcomes)
    }

    fn sale(&self, player_id: &str, sale_id: u64) -> StoreResult<Option<SaleRecord>> {
        let Ok(sale_id) = i64::try_from(sale_id) else {
            return Ok(None);
        };
        Ok(query_sales(
            &self.read(),
            "WHERE s.sale_id = ?1 AND s.player_id = ?2",
            &[&sale_id, &player_id],
        )?
        .pop())
    }

    fn history(
        &self,
        player_id: &str,
        before: Option<u64>,
        limit: u32,
    ) -> StoreResult<Vec<SaleRecord>> {
        let before = before.map_or(i64::MAX, |b| i64::try_from(b).unwrap_or(i64::MAX));
        query_sales(
            &self.read(),
            "WHERE s.player_id = ?1 AND s.sale_id < ?2 ORDER BY s.sale_id DESC LIMIT ?3",
            &[&player_id, &before, &limit],
        )
    }

    fn unrevealed(&self, player_id: &str) -> StoreResult<Option<SaleRecord>> {
        Ok(query_sales(
            &self.read(),
            "WHERE s.player_id = ?1 AND s.revealed < s.grid_count ORDER BY s.sale_id LIMIT 1",
            &[&player_id],
        )?
        .pop())
    }

    fn set_revealed(&self, player_id: &str, sale_id: u64, revealed: u8) -> StoreResult<Option<u8>> {
        let Ok(sale_id) = i64::try_from(sale_id) else {
            return Ok(None);
        };
        let mut conn = self.write();
        let tx = conn.transaction()?;
        tx.prepare_cached(
            "UPDATE sales SET revealed = MIN(grid_count, MAX(revealed, ?1)) WHERE sale_id = ?2 AND player_id = ?3",
        )?
        .execute(params![revealed, sale_id, player_id])?;
        let stored = tx
            .prepare_cached("SELECT revealed FROM sales WHERE sale_id = ?1 AND player_id = ?2")?
            .query_row(params![sale_id, player_id], |r| r.get::<_, i64>(0))
            .optional()?;
        tx.commit()?;
        stored
            .map(|v| u8::try_from(v).map_err(|_| corrupt("revealed")))
            .transpose()
    }

    fn totals(&self) -> StoreResult<Totals> {
        let conn = self.read();
        let balances: i64 = conn.query_row(
            "SELECT COALESCE(SUM(balance_cents), 0) FROM players",
            [],
            |r| r.get(0),
        )?;
        let (stakes, prizes, sales): (i64, i64, i64) = conn.query_row(
            "SELECT COALESCE(SUM(stake_cents), 0), COALESCE(SUM(prize_cents), 0), COUNT(*) FROM sales",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        Ok(Totals {
            balances_cents: to_u64(balances, "balances")?,
            stakes_cents: to_u64(stakes, "stakes")?,
            prizes_cents: to_u64(prizes, "prizes")?,
            sales: to_u64(sales, "sales")?,
        })
    }
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
