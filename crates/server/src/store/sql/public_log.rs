//! The public record's reads and writes (`store::public_log`), over any
//! [`Conn`].

use super::decode::{self, int};
use super::text as q;
use super::{query, query_one, query_opt, Conn};
use crate::store::public_log::{LogAppend, RecordSource, ServedCheckpoint, Unlogged};
use crate::store::{corrupt, StoreResult};
use eldorado_engine::transparency::PageBuild;
use eldorado_engine::{Hash, SignedCommitment};

/// Run in one snapshot: see [`Unlogged`].
pub fn unlogged<C: Conn + ?Sized>(conn: &mut C, max_sales: u32) -> StoreResult<Unlogged> {
    let size = query_one(conn, &q::LOG_SIZE, &[], |r| r.u64(0, "log size"))?;
    let blocks = query(conn, &q::UNLOGGED_BLOCKS, &[], |r| {
        serde_json::from_str::<SignedCommitment>(r.str(0)?)
            .map_err(|e| corrupt(format!("stored commitment: {e}")))
    })?;
    let sales = query(conn, &q::UNLOGGED_SALES, &[max_sales.into()], decode::sale)?;
    let purchases = query(
        conn,
        &q::UNLOGGED_PURCHASES,
        &[max_sales.into()],
        decode::purchase,
    )?;
    let pages = query(conn, &q::UNLOGGED_PAGES, &[], |r| {
        let page = PageBuild {
            published_at_ms: r.u64(1, "page publication")?,
            files: u32::try_from(r.u64(2, "page files")?)
                .map_err(|_| corrupt("a page of more than 2^32 files"))?,
            fingerprint: Hash(r.array(3, "page fingerprint")?),
        };
        Ok((r.u64(0, "page id")?, page))
    })?;
    Ok(Unlogged {
        size,
        blocks,
        sales,
        purchases,
        pages,
    })
}

/// Stores a build of the page to be logged, unless it is the newest one
/// stored already; `true` when it was stored.
pub fn record_page<C: Conn + ?Sized>(
    conn: &mut C,
    fingerprint: &Hash,
    files: u32,
    now_ms: u64,
) -> StoreResult<bool> {
    let newest = query_opt(conn, &q::NEWEST_PAGE_FINGERPRINT, &[], |r| {
        r.array::<32>(0, "page fingerprint")
    })?;
    if newest == Some(fingerprint.0) {
        return Ok(false);
    }
    conn.execute(
        &q::INSERT_PAGE_BUILD,
        &[fingerprint.0[..].into(), files.into(), int(now_ms)?],
    )?;
    Ok(true)
}

/// Writes one sequencer pass; `false` (and nothing written) when the log
/// is no longer at `append.from_size`.
pub fn append<C: Conn + ?Sized>(
    conn: &mut C,
    append: &LogAppend<'_>,
    now_ms: u64,
) -> StoreResult<bool> {
    let count = append.leaves.len() as u64;
    let new_size = append.from_size + count;
    let moved = conn.execute(&q::LOG_ADVANCE, &[int(new_size)?, int(append.from_size)?])?;
    if moved != 1 {
        return Ok(false);
    }
    if append.sources.len() != append.leaves.len() {
        return Err(corrupt("a log pass with a leaf without its source"));
    }
    for (offset, (leaf, source)) in append.leaves.iter().zip(append.sources).enumerate() {
        let index = int(append.from_size + offset as u64)?;
        conn.execute(&q::INSERT_LOG_RECORD, &[index, leaf[..].into()])?;
        let updated = match *source {
            RecordSource::Commitment { block } => {
                conn.execute(&q::SET_BLOCK_LOG_INDEX, &[index, int(block)?])?
            }
            RecordSource::Sale { sale_id } => {
                conn.execute(&q::SET_SALE_LOG_INDEX, &[index, int(sale_id)?])?
            }
            RecordSource::Purchase { purchase_id, round } => conn.execute(
                &q::SET_PURCHASE_LOG_INDEX,
                &[index, int(round)?, int(purchase_id)?],
            )?,
            RecordSource::Page { id } => {
                conn.execute(&q::SET_PAGE_LOG_INDEX, &[index, int(id)?])?
            }
        };
        // Only the sequencer that advanced the size gets here, so a record
        // already logged means the pass read a stale snapshot: undo it all.
        if updated != 1 {
            return Err(corrupt(format!("{source:?} is already in the log")));
        }
    }
    for (offset, hash) in append.hashes.iter().enumerate() {
        conn.execute(
            &q::INSERT_LOG_HASH,
            &[int(append.first_hash + offset as u64)?, hash.0[..].into()],
        )?;
    }
    conn.execute(
        &q::INSERT_LOG_CHECKPOINT,
        &[int(new_size)?, append.checkpoint.into(), int(now_ms)?],
    )?;
    Ok(true)
}

pub fn hashes<C: Conn + ?Sized>(conn: &mut C, indexes: &[u64]) -> StoreResult<Vec<Hash>> {
    indexes
        .iter()
        .map(|&index| {
            query_opt(conn, &q::LOG_HASH, &[int(index)?], |r| {
                Ok(Hash(r.array(0, "log hash")?))
            })?
            .ok_or_else(|| corrupt(format!("the log has no stored hash {index}")))
        })
        .collect()
}

pub fn leaves<C: Conn + ?Sized>(conn: &mut C, start: u64, end: u64) -> StoreResult<Vec<Vec<u8>>> {
    query(conn, &q::LOG_LEAVES, &[int(start)?, int(end)?], |r| {
        Ok(r.bytes(0)?.to_vec())
    })
}

/// The newest checkpoint with at least `min_cosignatures`, with them.
pub fn checkpoint<C: Conn + ?Sized>(
    conn: &mut C,
    min_cosignatures: u32,
) -> StoreResult<Option<ServedCheckpoint>> {
    let found = query_opt(
        conn,
        &q::LOG_NEWEST_COSIGNED,
        &[min_cosignatures.into()],
        |r| Ok((r.u64(0, "log size")?, r.text(1)?)),
    )?;
    with_cosignatures(conn, found)
}

/// The first checkpoint above record `index` with at least
/// `min_cosignatures`, with them.
pub fn covering<C: Conn + ?Sized>(
    conn: &mut C,
    index: u64,
    min_cosignatures: u32,
) -> StoreResult<Option<ServedCheckpoint>> {
    let found = query_opt(
        conn,
        &q::LOG_FIRST_COSIGNED_ABOVE,
        &[int(index)?, min_cosignatures.into()],
        |r| Ok((r.u64(0, "log size")?, r.text(1)?)),
    )?;
    with_cosignatures(conn, found)
}

fn with_cosignatures<C: Conn + ?Sized>(
    conn: &mut C,
    found: Option<(u64, String)>,
) -> StoreResult<Option<ServedCheckpoint>> {
    let Some((size, mut note)) = found else {
        return Ok(None);
    };
    for line in query(conn, &q::LOG_COSIGNATURES, &[int(size)?], |r| r.text(0))? {
        note.push_str(&line);
    }
    Ok(Some(ServedCheckpoint { size, note }))
}

/// The log's own note of the checkpoint of `size`, without cosignatures.
pub fn checkpoint_at<C: Conn + ?Sized>(conn: &mut C, size: u64) -> StoreResult<Option<String>> {
    query_opt(conn, &q::LOG_CHECKPOINT, &[int(size)?], |r| r.text(0))
}

pub fn add_cosignature<C: Conn + ?Sized>(
    conn: &mut C,
    size: u64,
    witness: &str,
    line: &str,
    now_ms: u64,
) -> StoreResult<()> {
    conn.execute(
        &q::INSERT_LOG_COSIGNATURE,
        &[int(size)?, witness.into(), line.into(), int(now_ms)?],
    )?;
    Ok(())
}
