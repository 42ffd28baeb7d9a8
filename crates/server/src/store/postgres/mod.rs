//! The PostgreSQL backend: one database shared by every `eldorado serve`
//! process of a deployment. Each process still commits its sales in groups
//! (one transaction per batch of the sale desk); row locks taken once per
//! batch keep the batches of different processes from racing for a ticket
//! or a balance.
//!
//! Driver: the synchronous `postgres` crate (tokio-postgres underneath, one
//! small runtime per connection) with an `r2d2` pool. Every store call comes
//! from a blocking thread (the sale desk's writer, `spawn_blocking`, the
//! block book's threads), so a sync client fits it without carrying a
//! runtime handle around, and a transaction is a plain value lent to the
//! rules like SQLite's. Each pooled connection keeps its prepared
//! statements (`PgConnection`).
//!
//! Only connection handling lives here: the pool, transactions run again
//! after a deadlock or a serialization failure (by SQL state), the batch's
//! lock order, the binary COPY of a block's tickets, the generation lease
//! (an advisory lock) and the operator's shared secrets; plus `schema`.
//! Statements and rules are shared with SQLite (`store::sql`).

mod schema;

use super::sql::batch::{BatchCache, BatchRun};
use super::sql::{access, Backend, Conn, Dialect, Param, Row, Sql, SqlStore, Value};
use super::{
    corrupt, BlockSeeding, BlockStatus, Holding, Lease, LeaseKind, SaleRequest, StoreError,
    StoreResult,
};
use crate::clock::Clock;
use bytes::BytesMut;
use eldorado_engine::{Block, SignedCommitment};
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::error::SqlState;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{to_sql_checked, FromSql, IsNull, ToSql, Type};
use postgres::{GenericClient, NoTls, Statement};
use std::collections::HashMap;
use std::error::Error;
use std::sync::Arc;
use std::time::Duration;

/// The store on PostgreSQL.
pub type PostgresStore = SqlStore<Postgres>;

type Pool = r2d2::Pool<Manager>;
type Pooled = r2d2::PooledConnection<Manager>;

/// Times a transaction that PostgreSQL aborted as a deadlock or a
/// serialization failure is run again: such a transaction wrote nothing,
/// so running it again is safe.
const RETRIES: usize = 3;

/// How long a caller waits for a free connection before the request fails.
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(10);

/// The advisory lock key of block generation (any constant shared by all
/// servers, distinct from the migration lock).
const GENERATION_LOCK: i64 = 0x0e1d_0002;
/// The advisory lock key of the public log's sequencer.
const SEQUENCING_LOCK: i64 = 0x0e1d_0003;

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        StoreError::Backend {
            sql_state: e.code().map(|c| c.code().to_owned()),
            message: e.to_string(),
        }
    }
}

impl From<r2d2::Error> for StoreError {
    fn from(e: r2d2::Error) -> StoreError {
        StoreError::backend(format!("no PostgreSQL connection: {e}"))
    }
}

/// Whether running the transaction again may succeed.
fn is_transient(e: &StoreError) -> bool {
    let transient = [
        SqlState::T_R_DEADLOCK_DETECTED.code(),
        SqlState::T_R_SERIALIZATION_FAILURE.code(),
    ];
    e.sql_state().is_some_and(|s| transient.contains(&s))
}

/// A connection of the pool with the statements prepared on it.
pub struct PgConnection {
    client: postgres::Client,
    statements: HashMap<usize, Statement>,
}

pub struct Manager(postgres::Config);

/// Every execution of a prepared statement is planned for its values and
/// the tables as they are. PostgreSQL would otherwise settle, after five
/// executions, on one plan for any values; on a new database, made while
/// the tables are empty, where reading a whole table costs nothing, it was
/// kept as the tables grew until autovacuum analysed them, a minute or more
/// later: each batch read the whole sales table for its keys. The planning
/// has a cost, and `enable_seqscan = off` instead was tried; this measured
/// steadier (docs/BENCHMARKS.md, Deployment).
const PLAN_EVERY_EXECUTION: &str = "SET plan_cache_mode = force_custom_plan";

impl r2d2::ManageConnection for Manager {
    type Connection = PgConnection;
    type Error = postgres::Error;

    fn connect(&self) -> Result<PgConnection, postgres::Error> {
        let mut client = self.0.connect(NoTls)?;
        client.batch_execute(PLAN_EVERY_EXECUTION)?;
        Ok(PgConnection {
            client,
            statements: HashMap::new(),
        })
    }

    fn is_valid(&self, conn: &mut PgConnection) -> Result<(), postgres::Error> {
        conn.client.simple_query("").map(|_| ())
    }

    fn has_broken(&self, conn: &mut PgConnection) -> bool {
        conn.client.is_closed()
    }
}

/// Binds a neutral parameter as the column's type asks (every integer
/// column is BIGINT, but a parameter PostgreSQL infers as INTEGER is bound
/// as one, checked).
impl ToSql for Param<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        fn checked<T: ToSql>(
            value: T,
            ty: &Type,
            out: &mut BytesMut,
        ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
            if !T::accepts(ty) {
                return Err(format!(
                    "a {} parameter cannot be bound as {ty}",
                    std::any::type_name::<T>()
                )
                .into());
            }
            value.to_sql(ty, out)
        }
        match *self {
            Param::Null => Ok(IsNull::Yes),
            Param::Int(v) => match *ty {
                Type::INT4 => checked(i32::try_from(v)?, ty, out),
                Type::INT2 => checked(i16::try_from(v)?, ty, out),
                _ => checked(v, ty, out),
            },
            Param::Text(v) => checked(v, ty, out),
            Param::Bytes(v) => checked(v, ty, out),
            Param::Bool(v) => checked(v, ty, out),
            Param::Texts(v) => checked(v, ty, out),
            Param::Ints(v) => checked(v, ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

impl<'a> FromSql<'a> for Value {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Value, Box<dyn Error + Sync + Send>> {
        Ok(match *ty {
            Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
            Type::INT4 => Value::Int(i32::from_sql(ty, raw)?.into()),
            Type::INT2 => Value::Int(i16::from_sql(ty, raw)?.into()),
            Type::BOOL => Value::Bool(bool::from_sql(ty, raw)?),
            Type::BYTEA => Value::Bytes(Vec::from_sql(ty, raw)?),
            _ if <String as FromSql>::accepts(ty) => Value::Text(String::from_sql(ty, raw)?),
            _ => return Err(format!("a column of type {ty}").into()),
        })
    }

    fn from_sql_null(_: &Type) -> Result<Value, Box<dyn Error + Sync + Send>> {
        Ok(Value::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// A PostgreSQL client or transaction, with its connection's statements,
/// and in a batch of sales what the batch read ahead.
struct Pg<'a, C> {
    client: &'a mut C,
    statements: &'a mut HashMap<usize, Statement>,
    cache: Option<BatchCache>,
}

impl<C: GenericClient> Pg<'_, C> {
    fn prepare(&mut self, sql: &'static Sql) -> StoreResult<Statement> {
        // A text is a static: its address names it.
        let key = sql as *const Sql as usize;
        if let Some(statement) = self.statements.get(&key) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql.text(Dialect::Postgres))?;
        self.statements.insert(key, statement.clone());
        Ok(statement)
    }
}

fn bound<'a>(params: &'a [Param<'_>]) -> Vec<&'a (dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

impl<C: GenericClient> Conn for Pg<'_, C> {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute(&mut self, sql: &'static Sql, params: &[Param<'_>]) -> StoreResult<u64> {
        let statement = self.prepare(sql)?;
        Ok(self.client.execute(&statement, &bound(params))?)
    }

    fn query_each(
        &mut self,
        sql: &'static Sql,
        params: &[Param<'_>],
        each: &mut dyn FnMut(&Row) -> StoreResult<bool>,
    ) -> StoreResult<()> {
        let statement = self.prepare(sql)?;
        let mut rows = self.client.query_raw(&statement, bound(params))?;
        let mut row = Row::default();
        while let Some(r) = rows.next()? {
            row.0.clear();
            for i in 0..r.len() {
                row.0.push(r.try_get::<_, Value>(i)?);
            }
            if !each(&row)? {
                break;
            }
        }
        Ok(())
    }

    fn batch(&mut self, sql: &str) -> StoreResult<()> {
        Ok(self.client.batch_execute(sql)?)
    }

    fn batch_cache(&mut self) -> Option<&mut BatchCache> {
        self.cache.as_mut()
    }
}

/// Runs `f` where the blocking client may block. The `postgres` client
/// drives its connection with a runtime of its own, which must not be
/// started on a thread that drives async tasks: a caller on a tokio worker
/// (a handler reading the store without `spawn_blocking`, as SQLite allows)
/// is moved off it for the call.
fn off_async<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

pub struct Postgres {
    pool: Pool,
    /// Connects outside the pool: a lease's own connection.
    manager: Manager,
}

impl SqlStore<Postgres> {
    /// Connects to `url` (a libpq-style URL; several hosts and
    /// `target_session_attrs=read-write` let a server follow a failover),
    /// keeps up to `pool_size` connections, and applies the migrations.
    pub fn open(url: &str, pool_size: u32, clock: Arc<dyn Clock>) -> StoreResult<PostgresStore> {
        let config: postgres::Config = url
            .parse()
            .map_err(|e| StoreError::backend(format!("database URL: {e}")))?;
        let pool = r2d2::Pool::builder()
            .max_size(pool_size.max(1))
            // No idle connections kept open at start: a deployment of many
            // servers must not exhaust the database's connection slots.
            .min_idle(Some(0))
            .connection_timeout(CHECKOUT_TIMEOUT)
            // A connection broken by a restart or a failover is found out
            // when taken, and replaced by a fresh one.
            .test_on_check_out(true)
            .build(Manager(config.clone()))?;
        off_async(|| schema::migrate(&mut pool.get()?.client))?;
        let manager = Manager(config);
        Ok(SqlStore::new(Postgres { pool, manager }, clock))
    }
}

impl Postgres {
    fn client(&self) -> StoreResult<Pooled> {
        let asked = std::time::Instant::now();
        let pooled = self.pool.get()?;
        metrics::histogram!(crate::metrics::POOL_WAIT).record(asked.elapsed());
        Ok(pooled)
    }

    /// Runs `f` in one transaction, committed only if `f` succeeds; run
    /// again (from scratch) if PostgreSQL aborted it as a deadlock or a
    /// serialization failure.
    fn run_transaction<T>(
        &self,
        mut f: impl FnMut(&mut Pg<'_, postgres::Transaction<'_>>) -> StoreResult<T>,
    ) -> StoreResult<T> {
        off_async(|| {
            let mut pooled = self.client()?;
            let PgConnection { client, statements } = &mut *pooled;
            let mut attempt = 0;
            loop {
                attempt += 1;
                let result = (|| {
                    let mut tx = client.transaction()?;
                    let value = f(&mut Pg {
                        client: &mut tx,
                        statements: &mut *statements,
                        cache: None,
                    })?;
                    tx.commit()?;
                    Ok(value)
                })();
                match result {
                    Err(e) if is_transient(&e) && attempt < RETRIES => {
                        tracing::warn!(error = %e, attempt, "transaction aborted by PostgreSQL, running it again");
                    }
                    result => return result,
                }
            }
        })
    }
}

/// Locks, before the rules run, the open blocks the batch sells from and
/// the rows of its players, and reads ahead what the sales will ask
/// (`BatchCache`). A sale retried on another server while the first try is
/// still in flight waits for its player's row, then finds the first try's
/// sale under its idempotency key (a replay, not a second sale).
fn lock_batch(
    c: &mut Pg<'_, postgres::Transaction<'_>>,
    requests: &[SaleRequest],
    run: BatchRun,
) -> StoreResult<()> {
    c.cache = Some(BatchCache::read_ahead(c, requests, run)?);
    Ok(())
}

/// A lease's advisory lock, held by a connection of its own (outside the
/// pool, so that a small pool is never short of one) for the life of the
/// lease. Dropping it closes the session and PostgreSQL frees the lock; a
/// server that dies, or a failover, ends the session the same way, and
/// another server takes the lease over.
struct HeldLock(Option<PgConnection>);

/// How long a lease's holder waits to learn that its session still stands.
const LEASE_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

impl Holding for HeldLock {
    fn still_held(&mut self) -> bool {
        self.0
            .as_mut()
            .is_some_and(|own| off_async(|| own.client.is_valid(LEASE_CHECK_TIMEOUT)).is_ok())
    }
}

impl Drop for HeldLock {
    /// Closing a connection waits for its end on the connection's own
    /// runtime, which must not run inside another: a lease may be dropped
    /// by an async task (a server shutting down), so it closes elsewhere.
    fn drop(&mut self) {
        if let Some(own) = self.0.take() {
            std::thread::spawn(move || drop(own));
        }
    }
}

impl Backend for Postgres {
    fn read<T>(&self, f: impl FnOnce(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T> {
        off_async(|| {
            let mut pooled = self.client()?;
            let PgConnection { client, statements } = &mut *pooled;
            f(&mut Pg {
                client,
                statements,
                cache: None,
            })
        })
    }

    fn snapshot<T>(&self, mut f: impl FnMut(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T> {
        self.run_transaction(|c| f(c))
    }

    fn write<T>(&self, f: impl FnOnce(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T> {
        self.read(f)
    }

    fn transaction<T>(&self, mut f: impl FnMut(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T> {
        self.run_transaction(|c| f(c))
    }

    /// Run first without savepoints, from one free open block per line; a
    /// sale that fails sends the batch round again with savepoints, so that
    /// it is undone alone, and a line whose open blocks are all held sends
    /// it round again waiting for them (`sql::batch`).
    fn sale_transaction<T>(
        &self,
        requests: &[SaleRequest],
        mut f: impl FnMut(&mut dyn Conn) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let mut run = BatchRun::default();
        loop {
            let result = self.run_transaction(|c| {
                lock_batch(c, requests, run)?;
                let value = f(c)?;
                // What the batch held back, before its commit.
                super::sql::batch::send_writes(c)?;
                Ok(value)
            });
            match result {
                Err(StoreError::RunWithSavepoints) if !run.savepoints => run.savepoints = true,
                Err(StoreError::RunLockingEveryOpenBlock) if !run.every_open_block => {
                    run.every_open_block = true
                }
                result => return result,
            }
        }
    }

    /// In ONE transaction: its row, its tickets (a binary COPY, which takes
    /// no lock that a sale waits for), its prize counts, and its status
    /// last. A server that dies midway leaves nothing behind.
    fn insert_block(
        &self,
        block: &Block,
        signed: &SignedCommitment,
        seeding: BlockSeeding,
        open_per_line: u32,
        now_ms: u64,
    ) -> StoreResult<BlockStatus> {
        self.run_transaction(|c| {
            access::insert_block_row(c, block, signed, seeding, now_ms)?;
            let id = super::sql::decode::to_i64(block.id)?;
            let sink = c.client.copy_in(
                "COPY tickets (block, position, grids, prize, extras, salt, leaf) \
                 FROM STDIN (FORMAT binary)",
            )?;
            let bytea = Type::BYTEA;
            let mut writer = BinaryCopyInWriter::new(
                sink,
                &[
                    Type::INT8,
                    Type::INT8,
                    Type::TEXT,
                    Type::INT8,
                    Type::INT8,
                    bytea.clone(),
                    bytea,
                ],
            );
            for ticket in &block.tickets {
                let leaf = block
                    .tree
                    .leaf(ticket.position)
                    .ok_or_else(|| corrupt("a ticket without its leaf"))?;
                writer.write(&[
                    &id,
                    &i64::from(ticket.position),
                    &super::sql::decode::grids_text(ticket),
                    &super::sql::decode::to_i64(ticket.prize_cents)?,
                    &i64::from(ticket.extras),
                    &&ticket.salt.0[..],
                    &&leaf.0[..],
                ])?;
            }
            writer.finish()?;
            access::finish_block(c, block, signed.commitment.money, open_per_line)
        })
    }

    fn pool_state(&self) -> Option<(u32, u32)> {
        let state = self.pool.state();
        Some((
            state.connections - state.idle_connections,
            state.idle_connections,
        ))
    }

    /// Whether the lock is free is asked on a pooled connection (and the
    /// lock given straight back), so that a server that does not get the
    /// lease opens no connection; only then does a connection of its own
    /// take it, if no other server took it meanwhile.
    fn try_lease(&self, kind: LeaseKind) -> StoreResult<Option<Lease>> {
        let key = match kind {
            LeaseKind::Generation => GENERATION_LOCK,
            LeaseKind::Sequencing => SEQUENCING_LOCK,
        };
        off_async(|| {
            let free: bool = self
                .client()?
                .client
                .query_one(
                    "SELECT CASE WHEN pg_try_advisory_lock($1) \
                     THEN pg_advisory_unlock($1) ELSE false END",
                    &[&key],
                )?
                .try_get(0)?;
            if !free {
                return Ok(None);
            }
            let mut own = r2d2::ManageConnection::connect(&self.manager)?;
            let got: bool = own
                .client
                .query_one("SELECT pg_try_advisory_lock($1)", &[&key])?
                .try_get(0)?;
            Ok(got.then(|| Lease::new(HeldLock(Some(own)))))
        })
    }

    /// The secret stored under `name`, or `fresh` if none was: the primary
    /// key makes the first server's insert win, and every other server
    /// reads it.
    fn shared_secret(&self, name: &str, fresh: [u8; 32]) -> StoreResult<Option<[u8; 32]>> {
        off_async(|| {
            let mut pooled = self.client()?;
            let client = &mut pooled.client;
            client.execute(
                "INSERT INTO operator_secrets (name, secret) VALUES ($1, $2) \
                 ON CONFLICT (name) DO NOTHING",
                &[&name, &&fresh[..]],
            )?;
            let stored: Vec<u8> = client
                .query_one(
                    "SELECT secret FROM operator_secrets WHERE name = $1",
                    &[&name],
                )?
                .try_get(0)?;
            stored
                .try_into()
                .map(Some)
                .map_err(|_| corrupt(format!("operator secret {name:?} is not 32 bytes")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transaction is run again for its SQL state alone, whatever the
    /// message says.
    #[test]
    fn deadlocks_and_serialization_failures_are_transient_by_code() {
        let state = |code: Option<&str>, message: &str| StoreError::Backend {
            sql_state: code.map(str::to_owned),
            message: message.to_owned(),
        };
        assert!(is_transient(&state(Some("40P01"), "anything")));
        assert!(is_transient(&state(Some("40001"), "anything")));
        assert!(!is_transient(&state(Some("23505"), "deadlock detected")));
        assert!(!is_transient(&state(None, "deadlock detected")));
        assert!(!is_transient(&corrupt("deadlock detected")));
    }
}
