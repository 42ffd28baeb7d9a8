//! What the store keeps of the public record (docs/PROTOCOL.md §9): the
//! leaves, the tree's stored hashes and the signed checkpoints with their
//! witnesses' cosignatures. Sales and blocks are stored as before, with no
//! log index; the sequencer (`crate::public_log`) reads those not yet
//! logged, gives them the next indices and writes them here in one
//! transaction, so the sale path pays nothing for the log.

use crate::store::{PurchaseRecord, SaleRecord};
use eldorado_engine::transparency::PageBuild;
use eldorado_engine::{Hash, SignedCommitment};

/// What the sequencer has to log next, read in one snapshot: every block
/// stored since the last pass (blocks first: a sale is only visible once
/// its block is, so each commitment precedes its sales) and the oldest
/// sales not logged yet.
#[derive(Debug)]
pub struct Unlogged {
    /// Records in the log so far.
    pub size: u64,
    pub blocks: Vec<SignedCommitment>,
    pub sales: Vec<SaleRecord>,
    /// The oldest purchases not logged yet (fair dealing): each is dealt
    /// only once logged, so its sale always comes after it.
    pub purchases: Vec<PurchaseRecord>,
    /// Builds of the page servers started with, by their row id.
    pub pages: Vec<(u64, PageBuild)>,
}

impl Unlogged {
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
            && self.sales.is_empty()
            && self.purchases.is_empty()
            && self.pages.is_empty()
    }
}

/// One pass of the sequencer, written in one transaction.
pub struct LogAppend<'a> {
    /// The size the pass started from: if another sequencer moved it
    /// meanwhile, nothing is written.
    pub from_size: u64,
    /// Records `from_size..`, in order.
    pub leaves: &'a [Vec<u8>],
    /// Which block's commitment or which sale each record is, in order.
    pub sources: &'a [RecordSource],
    /// The tree's stored hashes from `first_hash` on.
    pub first_hash: u64,
    pub hashes: &'a [Hash],
    /// The signed note of the checkpoint of the new size.
    pub checkpoint: &'a str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordSource {
    Commitment {
        block: u64,
    },
    Sale {
        sale_id: u64,
    },
    /// With the round that deals it, named as it is logged.
    Purchase {
        purchase_id: u64,
        round: u64,
    },
    /// A build of the page, by its row id.
    Page {
        id: u64,
    },
}

/// A checkpoint as served: the log's signed note followed by the
/// cosignature lines collected for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedCheckpoint {
    pub size: u64,
    pub note: String,
}
