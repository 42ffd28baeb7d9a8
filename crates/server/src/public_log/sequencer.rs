//! One pass of the sequencer: the blocks, sales and purchases stored since
//! the last pass become the next records of the log, with the tree's hashes and a
//! checkpoint signed by the operator key, all written in one transaction.
//! Several servers on one database may run passes at once: the store
//! writes only the pass that started from the current size, so one
//! sequencer wins each round and the others find the work done.

use super::stored_hashes::{StoredHashes, WithPending};
use crate::store::public_log::{LogAppend, RecordSource, Unlogged};
use crate::store::{SaleRecord, Store, StoreError};
use eldorado_engine::commit::leaf_hash;
use eldorado_engine::transparency::{sign_checkpoint, tlog, CheckpointError, LeafError, LogEntry};
use eldorado_engine::{Hash, LoggedSale, SigningKey};

#[derive(Debug, thiserror::Error)]
pub enum SequenceError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("a record cannot be logged: {0}")]
    Leaf(#[from] LeafError),
    #[error("the log's tree: {0}")]
    Tree(#[from] tlog::Error),
    #[error("signing the checkpoint: {0}")]
    Checkpoint(#[from] CheckpointError),
}

/// What a pass did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sequenced {
    /// Nothing new was stored.
    Idle,
    /// The log grew to `size` records and its checkpoint is signed;
    /// `more`: the pass was full, more sales may wait.
    Appended { size: u64, more: bool },
    /// Another server's sequencer appended first.
    Raced,
}

/// Logs at most `max_sales` sales (and every new block) and signs the
/// checkpoint of the new size. With fair dealing, `purchase_round` is the
/// round for the purchases logged now (`Dealer::round_for` of this
/// moment): named as a purchase goes on the record, a round is always one
/// the witnesses can cosign it before, even for a purchase a crash kept
/// off the record for a while. `None` keeps the round each was bought with.
pub fn sequence_once(
    store: &dyn Store,
    key: &SigningKey,
    origin: &str,
    max_sales: u32,
    now_ms: u64,
    purchase_round: Option<u64>,
) -> Result<Sequenced, SequenceError> {
    let unlogged = store.log_unlogged(max_sales)?;
    if unlogged.is_empty() {
        return Ok(Sequenced::Idle);
    }
    let (leaves, sources) = leaves(&unlogged, key, purchase_round)?;
    let first_hash = tlog::stored_hash_index(0, unlogged.size);
    let mut hashes = Vec::new();
    for (offset, leaf) in leaves.iter().enumerate() {
        let reader = WithPending {
            stored: StoredHashes(store),
            first: first_hash,
            pending: &hashes,
        };
        let new = tlog::stored_hashes(unlogged.size + offset as u64, leaf, &reader)?;
        hashes.extend(new);
    }
    let size = unlogged.size + leaves.len() as u64;
    let root = tlog::tree_hash(
        size,
        &WithPending {
            stored: StoredHashes(store),
            first: first_hash,
            pending: &hashes,
        },
    )?;
    let note = sign_checkpoint(origin, size, &Hash(root.0), key)?;
    let note = String::from_utf8(note).map_err(|_| CheckpointError::Malformed)?;
    let hashes: Vec<Hash> = hashes.into_iter().map(|h| Hash(h.0)).collect();
    let appended = store.log_append(
        &LogAppend {
            from_size: unlogged.size,
            leaves: &leaves,
            sources: &sources,
            first_hash,
            hashes: &hashes,
            checkpoint: &note,
        },
        now_ms,
    )?;
    Ok(if appended {
        Sequenced::Appended {
            size,
            more: unlogged.sales.len().max(unlogged.purchases.len()) as u64 >= u64::from(max_sales),
        }
    } else {
        Sequenced::Raced
    })
}

/// The leaves of a pass in log order: the page builds, the commitments,
/// the sales, then the purchases (a purchase's own sale is never in the
/// same pass: it is dealt once the purchase is logged).
fn leaves(
    unlogged: &Unlogged,
    key: &SigningKey,
    purchase_round: Option<u64>,
) -> Result<(Vec<Vec<u8>>, Vec<RecordSource>), LeafError> {
    let mut leaves = Vec::with_capacity(
        unlogged.pages.len()
            + unlogged.blocks.len()
            + unlogged.sales.len()
            + unlogged.purchases.len(),
    );
    let mut sources = Vec::with_capacity(leaves.capacity());
    for (id, page) in &unlogged.pages {
        leaves.push(LogEntry::sign_page(page.clone(), key).to_leaf()?);
        sources.push(RecordSource::Page { id: *id });
    }
    for signed in &unlogged.blocks {
        leaves.push(LogEntry::of_commitment(signed).to_leaf()?);
        sources.push(RecordSource::Commitment {
            block: signed.commitment.block,
        });
    }
    for sale in &unlogged.sales {
        leaves.push(LogEntry::sign_sale(logged_sale(sale), key)?.to_leaf()?);
        sources.push(RecordSource::Sale {
            sale_id: sale.sale_id,
        });
    }
    for purchase in &unlogged.purchases {
        let mut message = purchase.message();
        if let Some(round) = purchase_round {
            message.round = round;
        }
        sources.push(RecordSource::Purchase {
            purchase_id: purchase.purchase_id,
            round: message.round,
        });
        leaves.push(LogEntry::sign_purchase(message, key)?.to_leaf()?);
    }
    Ok((leaves, sources))
}

/// The V3 message of a stored sale: the same bytes, and so the same
/// signature, as the sale answered to its buyer.
fn logged_sale(sale: &SaleRecord) -> LoggedSale {
    LoggedSale {
        sale_id: sale.sale_id,
        block: sale.block,
        tickets: sale.block_tickets,
        position: sale.ticket.position,
        ticket_leaf: leaf_hash(sale.block, &sale.ticket),
        player: sale.player_id.clone(),
        sold_at_ms: sale.sold_at_ms,
        client_nonce: sale.client_nonce,
        balance_before_cents: sale.balance_before_cents,
        balance_after_cents: sale.balance_after_cents,
    }
}
