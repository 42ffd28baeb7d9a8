//! The rules the order of the records must follow, checked in one pass:
//! a block is committed once, before any of its sales; each sale names the
//! committed block size and a position inside it, never one already sold;
//! positions go up, except when a sale fills a position skipped earlier
//! (the seamless wallet releases the tickets of refused rounds), counted as
//! refilled.

use super::records::Record;
use eldorado_engine::transparency::{LogEntry, PageBuild};
use eldorado_engine::{Commitment, Hash, LoggedSale};
use std::collections::{BTreeMap, HashMap};

/// A logged sale of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sold {
    pub record: u64,
    pub ticket_leaf: Hash,
}

/// What the log says of one block.
#[derive(Clone, Debug, Default)]
pub struct BlockLedger {
    /// The commitment's record, and the commitment.
    pub commitment: Option<(u64, Commitment)>,
    /// Sold positions (the first sale of each).
    pub sold: HashMap<u32, Sold>,
    /// One past the highest position sold.
    next_position: u64,
    /// Sales of a position below `next_position`: a skipped ticket sold later.
    pub refilled: u64,
    /// Sales of a position inside the block, a position sold twice included.
    pub sales_in_range: u64,
    /// The block has purchases: its sales are dealt by the beacon, in no
    /// order of positions (`deals` checks them).
    pub dealt_by_beacon: bool,
}

impl BlockLedger {
    /// The block's size: the commitment's, else the first sale's claim.
    pub fn tickets(&self) -> Option<u32> {
        self.commitment.as_ref().map(|(_, c)| c.tickets)
    }

    /// Up to `limit` positions below `tickets` that no sale covers.
    pub fn unsold_positions(&self, tickets: u32, limit: usize) -> Vec<u32> {
        (0..tickets)
            .filter(|p| !self.sold.contains_key(p))
            .take(limit)
            .collect()
    }
}

#[derive(Clone, Debug, Default)]
pub struct Ledger {
    pub blocks: BTreeMap<u64, BlockLedger>,
    pub records: u64,
    pub commitments: u64,
    pub sales: u64,
    /// Tickets bought to be dealt by the beacon (docs/PROTOCOL.md §10).
    pub purchases: u64,
    /// Builds of the page logged, and the newest one's record.
    pub pages: u64,
    pub newest_page: Option<(u64, PageBuild)>,
    pub refilled: u64,
}

/// How many positions a finding lists before it says "…".
pub const LISTED: usize = 5;

pub fn check_records(records: &[Record]) -> (Ledger, Vec<String>) {
    let mut ledger = Ledger::default();
    let mut findings = Vec::new();
    let mut sale_ids = HashMap::<u64, u64>::new();
    for (index, record) in records.iter().enumerate() {
        let index = index as u64;
        ledger.records += 1;
        match record {
            Err(why) => findings.push(format!("record {index}: {why}")),
            Ok(LogEntry::Commitment { commitment, .. }) => {
                ledger.commitments += 1;
                let block = ledger.blocks.entry(commitment.block).or_default();
                match &block.commitment {
                    Some((first, _)) => findings.push(format!(
                        "record {index}: block {} committed again (first at record {first})",
                        commitment.block
                    )),
                    None => block.commitment = Some((index, commitment.clone())),
                }
            }
            Ok(LogEntry::Purchase { purchase, .. }) => {
                ledger.purchases += 1;
                let block = ledger.blocks.entry(purchase.block).or_default();
                block.dealt_by_beacon = true;
                if block.commitment.is_none() {
                    findings.push(format!(
                        "record {index}: purchase {} logged before block {}'s commitment",
                        purchase.purchase_id, purchase.block
                    ));
                }
            }
            Ok(LogEntry::Page { page, .. }) => {
                ledger.pages += 1;
                ledger.newest_page = Some((index, page.clone()));
            }
            Ok(LogEntry::Sale { sale, .. }) => {
                ledger.sales += 1;
                if let Some(first) = sale_ids.insert(sale.sale_id, index) {
                    findings.push(format!(
                        "record {index}: sale id {} already logged at record {first}",
                        sale.sale_id
                    ));
                }
                let block = ledger.blocks.entry(sale.block).or_default();
                if let Some(finding) = record_sale(block, index, sale) {
                    findings.push(finding);
                }
            }
        }
    }
    ledger.refilled = ledger.blocks.values().map(|b| b.refilled).sum();
    for (id, block) in &ledger.blocks {
        findings.extend(check_coverage(*id, block));
    }
    (ledger, findings)
}

fn record_sale(block: &mut BlockLedger, index: u64, sale: &LoggedSale) -> Option<String> {
    let at = format!(
        "record {index}: sale {} of block {} position {}",
        sale.sale_id, sale.block, sale.position
    );
    let tickets = match &block.commitment {
        None => return Some(format!("{at}: logged before the block's commitment")),
        Some((_, c)) if c.tickets != sale.tickets => {
            return Some(format!(
                "{at}: claims a block of {} tickets, the commitment says {}",
                sale.tickets, c.tickets
            ))
        }
        Some((_, c)) => c.tickets,
    };
    if sale.position >= tickets {
        return Some(format!("{at}: outside a block of {tickets} tickets"));
    }
    block.sales_in_range += 1;
    if let Some(first) = block.sold.get(&sale.position) {
        return Some(format!(
            "{at}: position sold twice (first at record {})",
            first.record
        ));
    }
    block.sold.insert(
        sale.position,
        Sold {
            record: index,
            ticket_leaf: sale.ticket_leaf,
        },
    );
    let position = u64::from(sale.position);
    if block.dealt_by_beacon {
        return None;
    }
    if position < block.next_position {
        block.refilled += 1;
    } else {
        block.next_position = position + 1;
    }
    None
}

/// As many sales as tickets must be every position once. (A block still
/// on sale may have a skipped position not yet sold: a round waiting for
/// the wallet; a sold-out one may not, which `blocks` checks.)
fn check_coverage(id: u64, block: &BlockLedger) -> Option<String> {
    let tickets = block.tickets()?;
    if block.sales_in_range < u64::from(tickets) || block.sold.len() == tickets as usize {
        return None;
    }
    let unsold = block.unsold_positions(tickets, LISTED);
    Some(format!(
        "block {id}: {} sales of its {tickets} tickets, but {} positions were never sold (first: {})",
        block.sales_in_range,
        tickets as usize - block.sold.len(),
        list(&unsold)
    ))
}

pub fn list(positions: &[u32]) -> String {
    positions
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
