//! The store over SQL, written once for both databases.
//!
//! - `Conn`: the dialect-neutral connection (or open transaction) that a
//!   backend lends: run one statement with `Param`s, read `Row`s of
//!   `Value`s. SQLite (`store::sqlite`) and PostgreSQL (`store::postgres`)
//!   implement it, each with a per-connection statement cache.
//! - `text`: every SQL text, written once with `$1, $2, ...` placeholders;
//!   the one real difference between the dialects a text carries
//!   (`FOR UPDATE`, which SQLite lacks and needs not) is dropped by
//!   [`Sql::text`].
//! - `decode`: rows into the store's records, checked once.
//! - `access`: every transaction trait of `store::tx` implemented once over
//!   any `Conn`, and the plain reads and writes of the `Store` methods.
//! - `store`: [`SqlStore`], the `Store` implemented once over a [`Backend`]
//!   (a dialect's connection handling: opening, transactions, retries).

pub mod access;
pub mod batch;
pub mod decode;
pub mod public_log;
pub mod store;
pub mod text;

pub use store::{Backend, SqlStore};

use super::StoreResult;
use std::sync::OnceLock;

/// The SQL dialect a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// One SQL text, as written for PostgreSQL; SQLite's variant is derived
/// from it once ([`Sql::text`]). Statics, so that a text's address-stable
/// `&'static str` keys the statement caches.
pub struct Sql {
    text: &'static str,
    sqlite: OnceLock<String>,
}

impl Sql {
    pub const fn new(text: &'static str) -> Sql {
        Sql {
            text,
            sqlite: OnceLock::new(),
        }
    }

    /// The text in `dialect`. SQLite has no row locks: its writer holds the
    /// whole database, so `FOR UPDATE` is simply left out.
    pub fn text(&self, dialect: Dialect) -> &str {
        match dialect {
            Dialect::Postgres => self.text,
            Dialect::Sqlite => self
                .sqlite
                .get_or_init(|| self.text.replace(" FOR UPDATE", "")),
        }
    }
}

/// A statement parameter. Every column is a 64-bit integer, text, bytes or
/// a boolean (SQLite stores booleans as 0 and 1). `Texts` and `Ints`,
/// arrays, are PostgreSQL's alone (a batch's reads and writes, `batch`);
/// SQLite refuses them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Param<'a> {
    Null,
    Int(i64),
    Text(&'a str),
    Bytes(&'a [u8]),
    Bool(bool),
    Texts(&'a [&'a str]),
    Ints(&'a [i64]),
}

impl From<i64> for Param<'_> {
    fn from(v: i64) -> Self {
        Param::Int(v)
    }
}

impl From<u32> for Param<'_> {
    fn from(v: u32) -> Self {
        Param::Int(i64::from(v))
    }
}

impl From<u8> for Param<'_> {
    fn from(v: u8) -> Self {
        Param::Int(i64::from(v))
    }
}

impl From<bool> for Param<'_> {
    fn from(v: bool) -> Self {
        Param::Bool(v)
    }
}

impl<'a> From<&'a str> for Param<'a> {
    fn from(v: &'a str) -> Self {
        Param::Text(v)
    }
}

impl<'a> From<&'a String> for Param<'a> {
    fn from(v: &'a String) -> Self {
        Param::Text(v)
    }
}

impl<'a> From<&'a [u8]> for Param<'a> {
    fn from(v: &'a [u8]) -> Self {
        Param::Bytes(v)
    }
}

impl<'a, T: Into<Param<'a>>> From<Option<T>> for Param<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Param::Null, Into::into)
    }
}

/// One column of a result row.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
    Bool(bool),
}

/// A result row, decoded by `decode`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row(pub Vec<Value>);

impl Row {
    /// Column `i` becomes a text, reusing the buffer the previous row left
    /// there.
    pub fn set_text(&mut self, i: usize, text: &str) {
        self.grow(i);
        match &mut self.0[i] {
            Value::Text(s) => {
                s.clear();
                s.push_str(text);
            }
            other => *other = Value::Text(text.to_owned()),
        }
    }

    /// Column `i` becomes bytes, reusing the previous row's buffer.
    pub fn set_bytes(&mut self, i: usize, bytes: &[u8]) {
        self.grow(i);
        match &mut self.0[i] {
            Value::Bytes(b) => {
                b.clear();
                b.extend_from_slice(bytes);
            }
            other => *other = Value::Bytes(bytes.to_vec()),
        }
    }

    pub fn set(&mut self, i: usize, value: Value) {
        self.grow(i);
        self.0[i] = value;
    }

    fn grow(&mut self, i: usize) {
        if self.0.len() <= i {
            self.0.resize(i + 1, Value::Null);
        }
    }
}

/// A connection, or a transaction open on one, in either dialect.
pub trait Conn {
    fn dialect(&self) -> Dialect;
    /// Runs one statement; how many rows it changed.
    fn execute(&mut self, sql: &'static Sql, params: &[Param<'_>]) -> StoreResult<u64>;
    /// Runs one query and hands its rows to `each` in order, until `each`
    /// answers false (rows are streamed, not collected, each read into the
    /// same `Row` so that a long read allocates nothing per row).
    fn query_each(
        &mut self,
        sql: &'static Sql,
        params: &[Param<'_>],
        each: &mut dyn FnMut(&Row) -> StoreResult<bool>,
    ) -> StoreResult<()>;
    /// Runs statements without parameters or results (savepoints).
    fn batch(&mut self, sql: &str) -> StoreResult<()>;
    /// What the batch of sales running on this connection read ahead, if
    /// its backend reads ahead (`batch`).
    fn batch_cache(&mut self) -> Option<&mut batch::BatchCache> {
        None
    }
}

/// Every row of a query, each decoded by `decode`.
pub fn query<C: Conn + ?Sized, T>(
    conn: &mut C,
    sql: &'static Sql,
    params: &[Param<'_>],
    mut decode: impl FnMut(&Row) -> StoreResult<T>,
) -> StoreResult<Vec<T>> {
    let mut out = Vec::new();
    conn.query_each(sql, params, &mut |row| {
        out.push(decode(row)?);
        Ok(true)
    })?;
    Ok(out)
}

/// The first row of a query, if any, decoded by `decode`.
pub fn query_opt<C: Conn + ?Sized, T>(
    conn: &mut C,
    sql: &'static Sql,
    params: &[Param<'_>],
    decode: impl FnOnce(&Row) -> StoreResult<T>,
) -> StoreResult<Option<T>> {
    let mut decode = Some(decode);
    let mut first = None;
    // Read to the end: a statement left half-stepped could hold its
    // autocommitted write (SQLite) or its connection (PostgreSQL).
    conn.query_each(sql, params, &mut |row| {
        if let Some(decode) = decode.take() {
            first = Some(decode(row)?);
        }
        Ok(true)
    })?;
    Ok(first)
}

/// The one row a query always answers (an aggregate).
pub fn query_one<C: Conn + ?Sized, T>(
    conn: &mut C,
    sql: &'static Sql,
    params: &[Param<'_>],
    decode: impl FnOnce(&Row) -> StoreResult<T>,
) -> StoreResult<T> {
    query_opt(conn, sql, params, decode)?
        .ok_or_else(|| super::corrupt("a query that always answers a row answered none"))
}
