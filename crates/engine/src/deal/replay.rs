//! The deals of a log replayed, record by record, as an auditor does: each
//! block's unsold tree starts full at its commitment. Once a block has a
//! purchase, each of its sales is the deal of its oldest purchase not
//! dealt yet (same buyer, nonce and balance before), at the position the
//! rule picks from that purchase's round among the positions still
//! unsold. Before a block's first purchase, sales (dealt in order, before
//! fair dealing) simply take their positions. Which round deals each
//! purchase is the caller's to say ([`dealing_round`](super::dealing_round),
//! from when the witnesses cosigned it): none while they have not.

use super::purchase::Purchase;
use super::rank::deal_rank;
use super::unsold_tree::{TakeError, UnsoldTree};
use crate::commit::LoggedSale;
use crate::fixed_bytes::Hash;
use std::collections::{HashMap, VecDeque};

/// How a replayed sale was dealt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dealt {
    /// A sale with no purchase: the position its block's order gave it.
    InOrder,
    /// Dealt by the rule from this round.
    ByRule { round: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("block {block} is not committed before it")]
    Uncommitted { block: u64 },
    #[error("names a block of {claimed} tickets, the commitment says {committed}")]
    WrongSize { claimed: u32, committed: u32 },
    #[error("purchase {purchase_id} is logged twice")]
    BoughtTwice { purchase_id: u64 },
    #[error("the purchase pays no stake (balance {before} → {after})")]
    NoStake { before: u64, after: u64 },
    #[error(transparent)]
    Take(#[from] TakeError),
    #[error("the sale's {field} is not that of purchase {purchase_id}, the block's next to deal")]
    NotItsPurchase {
        purchase_id: u64,
        field: &'static str,
    },
    #[error("round {round} of the beacon is not known")]
    MissingRound { round: u64 },
    #[error("purchase {purchase_id} is dealt, but no quorum of witnesses cosigned it: no round may deal it yet")]
    Unproven { purchase_id: u64 },
    #[error("position {position}, where the rule deals position {expected} (rank {rank} of {unsold} unsold)")]
    NotTheRule {
        position: u32,
        expected: u32,
        rank: u32,
        unsold: u32,
    },
    #[error("a sale that was not bought first, in a block dealt by the rule")]
    NotBought,
}

/// One bought ticket waiting for its deal.
#[derive(Clone, Debug)]
struct Waiting {
    record: Hash,
    purchase: Purchase,
    /// The round that deals it; `None` until the witnesses proved it.
    round: Option<u64>,
}

#[derive(Debug)]
struct BlockDeals {
    tree: UnsoldTree,
    waiting: VecDeque<Waiting>,
    /// A purchase was logged: sales in order may no longer come.
    by_rule: bool,
}

#[derive(Debug, Default)]
pub struct DealReplay {
    blocks: HashMap<u64, BlockDeals>,
}

impl DealReplay {
    /// A block's commitment: its tree starts with every position unsold.
    /// A second commitment of a block keeps the first (the log's own check
    /// reports it).
    pub fn commitment(&mut self, block: u64, tickets: u32) -> Result<(), ReplayError> {
        if let std::collections::hash_map::Entry::Vacant(entry) = self.blocks.entry(block) {
            entry.insert(BlockDeals {
                tree: UnsoldTree::new(tickets)?,
                waiting: VecDeque::new(),
                by_rule: false,
            });
        }
        Ok(())
    }

    /// A purchase, whose log record hash is `record`, dealt by `round`
    /// (`None`: not proven on the record yet, so not to be dealt).
    pub fn purchase(
        &mut self,
        record: Hash,
        purchase: &Purchase,
        round: Option<u64>,
    ) -> Result<(), ReplayError> {
        let deals = self.block(purchase.block, purchase.tickets)?;
        if deals
            .waiting
            .iter()
            .any(|w| w.purchase.purchase_id == purchase.purchase_id)
        {
            return Err(ReplayError::BoughtTwice {
                purchase_id: purchase.purchase_id,
            });
        }
        match purchase.stake_cents() {
            Some(stake) if stake > 0 => {}
            _ => {
                return Err(ReplayError::NoStake {
                    before: purchase.balance_before_cents,
                    after: purchase.balance_after_cents,
                })
            }
        }
        deals.by_rule = true;
        deals.waiting.push_back(Waiting {
            record,
            purchase: purchase.clone(),
            round,
        });
        Ok(())
    }

    /// A sale: dealt by the rule if it was bought, with `randomness`
    /// giving each round's value; else in order.
    pub fn sale(
        &mut self,
        sale: &LoggedSale,
        randomness: impl FnOnce(u64) -> Option<[u8; 32]>,
    ) -> Result<Dealt, ReplayError> {
        let deals = self.block(sale.block, sale.tickets)?;
        if !deals.by_rule {
            deals.tree.take(sale.position)?;
            return Ok(Dealt::InOrder);
        }
        let Some(Waiting {
            record,
            purchase,
            round,
        }) = deals.waiting.front()
        else {
            return Err(ReplayError::NotBought);
        };
        let same = |equal: bool, field| {
            equal.then_some(()).ok_or(ReplayError::NotItsPurchase {
                purchase_id: purchase.purchase_id,
                field,
            })
        };
        same(sale.player == purchase.player, "player")?;
        same(sale.client_nonce == purchase.client_nonce, "nonce")?;
        same(
            sale.balance_before_cents == purchase.balance_before_cents,
            "balance before",
        )?;
        let Some(round) = *round else {
            // Dealt before it was proven: nothing says which round may
            // deal it. Taken as dealt, so the block's later deals are
            // still checked.
            let purchase_id = purchase.purchase_id;
            if deals.tree.take(sale.position).is_ok() {
                deals.waiting.pop_front();
            }
            return Err(ReplayError::Unproven { purchase_id });
        };
        let value = randomness(round).ok_or(ReplayError::MissingRound { round })?;
        let unsold = deals.tree.unsold();
        let rank = deal_rank(&value, record, unsold);
        let expected = deals
            .tree
            .select(rank)
            .expect("a rank below the unsold count selects a position");
        if expected != sale.position {
            // The log's own sale stands: the replay goes on from the block
            // as it now is, its purchase dealt and its position sold, so
            // that one deal off the rule is one finding, not one for every
            // later deal of the block.
            if deals.tree.take(sale.position).is_ok() {
                deals.waiting.pop_front();
            }
            return Err(ReplayError::NotTheRule {
                position: sale.position,
                expected,
                rank,
                unsold,
            });
        }
        deals.tree.take(expected)?;
        deals.waiting.pop_front();
        Ok(Dealt::ByRule { round })
    }

    /// Purchases of the log not dealt yet: `(block, purchase id, the
    /// round that deals it if proven)`.
    pub fn waiting(&self) -> impl Iterator<Item = (u64, u64, Option<u64>)> + '_ {
        self.blocks.iter().flat_map(|(block, deals)| {
            deals
                .waiting
                .iter()
                .map(move |w| (*block, w.purchase.purchase_id, w.round))
        })
    }

    fn block(&mut self, block: u64, tickets: u32) -> Result<&mut BlockDeals, ReplayError> {
        let deals = self
            .blocks
            .get_mut(&block)
            .ok_or(ReplayError::Uncommitted { block })?;
        if deals.tree.leaves() != tickets {
            return Err(ReplayError::WrongSize {
                claimed: tickets,
                committed: deals.tree.leaves(),
            });
        }
        Ok(deals)
    }
}
