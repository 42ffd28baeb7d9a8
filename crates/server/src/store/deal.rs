//! The deal rules, for every backend (docs/PROTOCOL.md §10): the logged
//! purchases not dealt yet are dealt in the order of their log records,
//! each from its own round's randomness, by the engine's rule
//! (`deal_one`): its rank among its block's unsold positions comes from
//! the round's value and the purchase's record hash. The deal credits the
//! prize, records the sale (its balances are the sale's own effect: before
//! the stake, after stake and prize) and marks the purchase dealt, all in
//! the caller's one transaction.
//!
//! Which round deals each purchase is the dealer's to say (the one it
//! names, or a later one if its witnesses cosigned it late: engine
//! `dealing_round`). A purchase whose round is not known or not out yet
//! holds back every later purchase of its block: a block's deals never
//! change order.
//!
//! A purchase paid at the operator's seamless wallet (its idempotency key
//! names a paid round) has its prize queued as that round's credit
//! (`seamless::queue_credit`) instead of added to a balance kept here.

use super::seamless::queue_credit;
use super::tx::{NewSale, RoundTx};
use super::{corrupt, storable, PurchaseRecord, StoreResult};
use eldorado_engine::deal::{deal_one, DealProof, Node, UnsoldTree, BEACON_SIGNATURE_LEN};
use eldorado_engine::Hash;
use std::collections::{HashMap, HashSet};

/// A beacon round, verified against the pinned key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeaconValue {
    pub randomness: [u8; 32],
    /// Kept with each deal, for its buyer to verify.
    pub signature: [u8; BEACON_SIGNATURE_LEN],
}

/// Each round's value.
pub type Randomness = HashMap<u64, BeaconValue>;

/// The round that deals each purchase proven on the record, by purchase id.
pub type Rounds = HashMap<u64, u64>;

/// A logged purchase not dealt yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undealt {
    pub purchase_id: u64,
    pub log_index: u64,
    /// The round it names.
    pub round: u64,
}

/// The dealer's unsold tree of each block it dealt from, kept between
/// passes; checked against the store's count of sales before each use.
pub type Trees = HashMap<u64, UnsoldTree>;

/// One purchase dealt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dealt {
    pub purchase_id: u64,
    pub sale_id: u64,
    pub position: u32,
    pub prize_cents: u64,
}

/// Deals what it can of the first `limit` logged purchases waiting. On an
/// error the caller rolls back, and must forget `trees` (they moved).
pub fn deal_waiting<T: RoundTx + ?Sized>(
    tx: &mut T,
    trees: &mut Trees,
    rounds: &Rounds,
    randomness: &Randomness,
    limit: u32,
    now_ms: u64,
) -> StoreResult<Vec<Dealt>> {
    let mut held = HashSet::new();
    let mut checked = HashSet::new();
    let mut dealt = Vec::new();
    for purchase in tx.undealt_for_update(limit)? {
        if held.contains(&purchase.block) {
            continue;
        }
        let round = rounds.get(&purchase.purchase_id);
        let Some((&round, value)) = round.and_then(|r| Some((r, randomness.get(r)?))) else {
            held.insert(purchase.block);
            continue;
        };
        if checked.insert(purchase.block) {
            current_tree(tx, trees, purchase.block, purchase.block_tickets)?;
        }
        dealt.push(deal(tx, trees, &purchase, round, value, now_ms)?);
    }
    Ok(dealt)
}

fn deal<T: RoundTx + ?Sized>(
    tx: &mut T,
    trees: &mut Trees,
    purchase: &PurchaseRecord,
    round: u64,
    value: &BeaconValue,
    now_ms: u64,
) -> StoreResult<Dealt> {
    let index = purchase
        .log_index
        .ok_or_else(|| corrupt("a purchase dealt before it is logged"))?;
    let record = tx.record_hash(index)?;
    let tree = trees
        .get_mut(&purchase.block)
        .ok_or_else(|| corrupt("a block dealt without its tree"))?;
    let (proof, _) = deal_one(tree, &value.randomness, &record)
        .map_err(|e| corrupt(format!("dealing purchase {}: {e}", purchase.purchase_id)))?;
    let position = proof.position;
    let ticket = tx
        .ticket(purchase.block, position, purchase.stake_cents)?
        .ok_or_else(|| corrupt(format!("block {} has no ticket {position}", purchase.block)))?;
    let prize = ticket.prize_cents;
    match tx.paid_round_by_key(&purchase.player_id, &purchase.idempotency_key)? {
        Some(round_id) if prize > 0 => {
            queue_credit(tx, &round_id, &purchase.player_id, prize, now_ms)?
        }
        Some(_) => {}
        None => {
            let (_, balance) = tx
                .player_for_update(&purchase.player_id)?
                .ok_or_else(|| corrupt("a purchase of a missing player"))?;
            tx.set_balance(&purchase.player_id, storable(balance.checked_add(prize))?)?;
        }
    }
    if prize > 0 {
        tx.take_prize(purchase.block, prize)?;
    }
    let sale_id = tx.insert_sale(&NewSale {
        player_id: &purchase.player_id,
        idempotency_key: &purchase.idempotency_key,
        stake_cents: purchase.stake_cents,
        block: purchase.block,
        position,
        prize_cents: prize,
        grid_count: 1 + ticket.extras,
        sold_at_ms: purchase.bought_at_ms,
        client_nonce: purchase.client_nonce,
        balance_before_cents: purchase.balance_before_cents,
        balance_after_cents: storable(purchase.balance_after_cents.checked_add(prize))?,
    })?;
    tx.set_purchase_dealt(
        purchase.purchase_id,
        sale_id,
        &proof_bytes(&proof),
        round,
        &value.signature,
    )?;
    Ok(Dealt {
        purchase_id: purchase.purchase_id,
        sale_id,
        position,
        prize_cents: prize,
    })
}

/// A deal's proof as stored: the root before it, then each sibling's
/// hash and count (u32, big-endian), leaf level first.
pub fn proof_bytes(proof: &DealProof) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(32 + 36 * proof.siblings.len());
    bytes.extend_from_slice(&proof.before.0);
    for sibling in &proof.siblings {
        bytes.extend_from_slice(&sibling.hash.0);
        bytes.extend_from_slice(&sibling.count.to_be_bytes());
    }
    bytes
}

/// [`proof_bytes`] read back for the position dealt in a block of
/// `leaves` tickets; `None` if they are not such bytes.
pub fn read_proof(bytes: &[u8], leaves: u32, position: u32) -> Option<DealProof> {
    let (before, rest) = bytes.split_first_chunk::<32>()?;
    if rest.len() % 36 != 0 {
        return None;
    }
    let siblings = rest
        .chunks_exact(36)
        .map(|chunk| {
            let (hash, count) = chunk.split_first_chunk::<32>()?;
            Some(Node {
                hash: Hash(*hash),
                count: u32::from_be_bytes(count.try_into().ok()?),
            })
        })
        .collect::<Option<Vec<Node>>>()?;
    Some(DealProof {
        leaves,
        before: Hash(*before),
        position,
        siblings,
    })
}

/// The kept tree of `block` if it has as many sales as the store, else
/// one rebuilt from the store's sold positions (a restart, another
/// server's deals, or a pass rolled back).
fn current_tree<T: RoundTx + ?Sized>(
    tx: &mut T,
    trees: &mut Trees,
    block: u64,
    tickets: u32,
) -> StoreResult<()> {
    let sold = tx.sold_count(block)?;
    let current = trees
        .get(&block)
        .is_some_and(|tree| tree.leaves() == tickets && tree.leaves() - tree.unsold() == sold);
    if !current {
        let positions = tx.sold_positions(block)?;
        let tree = UnsoldTree::with_sold(tickets, positions)
            .map_err(|e| corrupt(format!("block {block}'s sold positions: {e}")))?;
        trees.insert(block, tree);
    }
    Ok(())
}
