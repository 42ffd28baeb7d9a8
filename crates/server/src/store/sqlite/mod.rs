//! The embedded SQLite backend: one file in the data directory, WAL with
//! `synchronous=FULL` so that every acknowledged commit survives a crash or
//! a power cut. One writer connection (SQLite has one writer anyway) behind
//! a mutex, and a few read-only connections that WAL lets run beside it.
//! Driver: `rusqlite`, synchronous like every store call, with its
//! per-connection statement cache (`prepare_cached`).
//!
//! Only connection handling lives here (opening, pragmas, transactions,
//! chunked block inserts, the generation lease) and `schema`; statements
//! and rules are shared with PostgreSQL (`store::sql`).

mod schema;

#[cfg(test)]
pub(crate) use schema::MIGRATIONS;

use super::sql::{access, text as q, Backend, Conn, Dialect, Param, Row, Sql, SqlStore, Value};
use super::{
    corrupt, BlockSeeding, BlockStatus, Holding, Lease, LeaseKind, StoreError, StoreResult,
};
use crate::clock::Clock;
use eldorado_engine::{Block, SignedCommitment};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, ToSql};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The store on SQLite.
pub type SqliteStore = SqlStore<Sqlite>;

const READERS: usize = 4;

/// Above the number of statement texts, so that the hot ones stay prepared.
const STATEMENT_CACHE: usize = 128;

/// Tickets inserted per transaction while a block is stored, so that sales
/// wait at most one chunk for the writer.
const TICKET_CHUNK: usize = 25_000;

/// The leases a store of this process holds, by database file. One process
/// may open a file twice (a second server on a data directory in the
/// tests): without this, both books would read the same next block id and
/// generate it twice.
static LEASED: Mutex<BTreeSet<(LeaseKind, PathBuf)>> = Mutex::new(BTreeSet::new());

/// Gives a file's lease back when the `Lease` holding it drops.
struct LeasedFile((LeaseKind, PathBuf));

impl Holding for LeasedFile {}

impl Drop for LeasedFile {
    fn drop(&mut self) {
        LEASED
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.0);
    }
}

pub struct Sqlite {
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
    /// The database file, resolved, as the key of its generation lease.
    file: PathBuf,
    #[cfg(test)]
    pub(crate) faults: super::failing::Faults,
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        // SQLite has result codes, not SQL states.
        StoreError::backend(e.to_string())
    }
}

impl ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match *self {
            Param::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Param::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(v)),
            Param::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            Param::Bytes(v) => ToSqlOutput::Borrowed(ValueRef::Blob(v)),
            Param::Bool(v) => ToSqlOutput::Borrowed(ValueRef::Integer(i64::from(v))),
            Param::Texts(_) | Param::Ints(_) => {
                return Err(rusqlite::Error::ToSqlConversionFailure(
                    "SQLite has no array parameters".into(),
                ))
            }
        })
    }
}

/// Reads a SQLite row into `row`, reusing its buffers.
fn read_row(r: &rusqlite::Row<'_>, columns: usize, row: &mut Row) -> StoreResult<()> {
    row.0.truncate(columns);
    for i in 0..columns {
        match r.get_ref(i)? {
            ValueRef::Null => row.set(i, Value::Null),
            ValueRef::Integer(v) => row.set(i, Value::Int(v)),
            ValueRef::Text(v) => row.set_text(
                i,
                std::str::from_utf8(v).map_err(|_| corrupt("stored text not UTF-8"))?,
            ),
            ValueRef::Blob(v) => row.set_bytes(i, v),
            ValueRef::Real(_) => return Err(corrupt("a real number in an integer column")),
        }
    }
    Ok(())
}

/// A SQLite connection (or a transaction on it: a `Transaction` derefs to
/// its `Connection`, so every statement run here is inside it).
struct Lite<'a> {
    conn: &'a Connection,
    #[cfg(test)]
    faults: &'a super::failing::Faults,
}

impl Lite<'_> {
    fn prepare(&self, sql: &'static Sql) -> StoreResult<rusqlite::CachedStatement<'_>> {
        let text = sql.text(Dialect::Sqlite);
        #[cfg(test)]
        self.faults.check(text)?;
        Ok(self.conn.prepare_cached(text)?)
    }
}

impl Conn for Lite<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn execute(&mut self, sql: &'static Sql, params: &[Param<'_>]) -> StoreResult<u64> {
        let changed = self
            .prepare(sql)?
            .execute(rusqlite::params_from_iter(params))?;
        Ok(changed as u64)
    }

    fn query_each(
        &mut self,
        sql: &'static Sql,
        params: &[Param<'_>],
        each: &mut dyn FnMut(&Row) -> StoreResult<bool>,
    ) -> StoreResult<()> {
        let mut statement = self.prepare(sql)?;
        let columns = statement.column_count();
        let mut rows = statement.query(rusqlite::params_from_iter(params))?;
        let mut row = Row::default();
        while let Some(r) = rows.next()? {
            read_row(r, columns, &mut row)?;
            if !each(&row)? {
                break;
            }
        }
        Ok(())
    }

    fn batch(&mut self, sql: &str) -> StoreResult<()> {
        #[cfg(test)]
        self.faults.check(sql)?;
        Ok(self.conn.execute_batch(sql)?)
    }
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    // FULL: in WAL mode, NORMAL may lose the last commits on power loss;
    // a sale acknowledged to a player must not be lost.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "cache_size", -32_000)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    Ok(())
}

impl SqlStore<Sqlite> {
    /// Opens (creating if needed) the database file, applies migrations and
    /// drops blocks whose generation was interrupted.
    pub fn open(path: &Path, clock: Arc<dyn Clock>) -> StoreResult<SqliteStore> {
        let mut writer = Connection::open(path)?;
        let mode: String = writer.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::backend(format!(
                "the database refused WAL mode ({mode})"
            )));
        }
        configure(&writer)?;
        schema::migrate(&mut writer)?;
        let mut readers = Vec::with_capacity(READERS);
        for _ in 0..READERS {
            let reader = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            configure(&reader)?;
            readers.push(Mutex::new(reader));
        }
        let backend = Sqlite {
            writer: Mutex::new(writer),
            readers,
            next_reader: AtomicUsize::new(0),
            // The file exists now: its resolved path names it however it
            // was reached.
            file: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned()),
            #[cfg(test)]
            faults: Default::default(),
        };
        backend.drop_interrupted()?;
        Ok(SqlStore::new(backend, clock))
    }
}

impl Sqlite {
    fn writer(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the writer rolled its transaction back
        // (rusqlite drops it), so the connection is still consistent.
        self.writer.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn reader(&self) -> MutexGuard<'_, Connection> {
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

    fn lite<'a>(&'a self, conn: &'a Connection) -> Lite<'a> {
        Lite {
            conn,
            #[cfg(test)]
            faults: &self.faults,
        }
    }

    /// A block still `generating` at start-up was cut off mid-insert: it was
    /// never on sale, so it goes, and the book generates a fresh one.
    fn drop_interrupted(&self) -> StoreResult<()> {
        self.transaction(|c| {
            let ids = super::sql::query(c, &q::GENERATING_BLOCKS, &[], |r| r.i64(0))?;
            for id in ids {
                tracing::warn!(
                    block = id,
                    "dropping a block whose generation was interrupted"
                );
                for sql in [
                    &q::DELETE_TICKETS,
                    &q::DELETE_BLOCK_PRIZES,
                    &q::DELETE_BLOCK,
                ] {
                    c.execute(sql, &[id.into()])?;
                }
            }
            Ok(())
        })
    }
}

impl Backend for Sqlite {
    fn read<T>(&self, f: impl FnOnce(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T> {
        let conn = self.reader();
        f(&mut self.lite(&conn))
    }

    fn snapshot<T>(&self, f: impl FnMut(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T> {
        self.read(f)
    }

    fn write<T>(&self, f: impl FnOnce(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T> {
        let conn = self.writer();
        f(&mut self.lite(&conn))
    }

    fn transaction<T>(&self, mut f: impl FnMut(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T> {
        let mut conn = self.writer();
        // IMMEDIATE: take the write lock before the first read, so that a
        // read-then-write never fails on a snapshot another connection (an
        // operator tool, a second process) has moved meanwhile.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let value = f(&mut self.lite(&tx))?;
        tx.commit()?;
        Ok(value)
    }

    /// In three steps so the writer is never held for long: the block row
    /// as `generating` (invisible to sales and reads), its tickets in
    /// chunks, then its prize counts and its status in one last transaction.
    fn insert_block(
        &self,
        block: &Block,
        signed: &SignedCommitment,
        seeding: BlockSeeding,
        open_per_line: u32,
        now_ms: u64,
    ) -> StoreResult<BlockStatus> {
        self.transaction(|c| access::insert_block_row(c, block, signed, seeding, now_ms))?;
        let id = super::sql::decode::int(block.id)?;
        for chunk in block.tickets.chunks(TICKET_CHUNK) {
            self.transaction(|c| {
                for ticket in chunk {
                    let leaf = block
                        .tree
                        .leaf(ticket.position)
                        .ok_or_else(|| corrupt("a ticket without its leaf"))?;
                    c.execute(
                        &q::INSERT_TICKET,
                        &[
                            id,
                            ticket.position.into(),
                            Param::Text(&super::sql::decode::grids_text(ticket)),
                            super::sql::decode::int(ticket.prize_cents)?,
                            ticket.extras.into(),
                            ticket.salt.0[..].into(),
                            leaf.0[..].into(),
                        ],
                    )?;
                }
                Ok(())
            })?;
        }
        self.transaction(|c| access::finish_block(c, block, signed.commitment.money, open_per_line))
    }

    /// One store of this process at a time per database file; another
    /// process must not open the file while a server runs on it.
    fn try_lease(&self, kind: LeaseKind) -> StoreResult<Option<Lease>> {
        let key = (kind, self.file.clone());
        let mut leased = LEASED.lock().unwrap_or_else(|p| p.into_inner());
        if !leased.insert(key.clone()) {
            return Ok(None);
        }
        Ok(Some(Lease::new(LeasedFile(key))))
    }
}
