//! The disclosure export of a block (JSON Lines) and its audit.
//!
//! Only the types and the checking live here; reading and writing files is
//! the caller's job, so that the same audit runs in the CLI, the server and
//! the browser.

use crate::commit::{leaf_hash, Commitment, Money, SignedCommitment};
use crate::fixed_bytes::{Hash, PublicKeyBytes, SignatureBytes};
use crate::generate::{apportion, Block, Params};
use crate::merkle::MerkleTree;
use crate::prize_table::{prize_table_digest, BLOCK_TICKETS, RANKS};
use crate::ticket::{validate_ticket, Ticket, MAX_EXTRAS};
use serde::{Deserialize, Serialize};

pub const FORMAT: &str = "eldorado-block-export/2";

/// First line of an export.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportHeader {
    pub format: String,
    pub block: u64,
    pub stake_cents: u64,
    pub tickets: u32,
    pub money: Money,
    pub root: Hash,
    pub prize_table: Hash,
    pub params: Params,
    /// The operator key and its signature of the commitment, when signed.
    pub public_key: Option<PublicKeyBytes>,
    pub signature: Option<SignatureBytes>,
}

impl ExportHeader {
    pub fn new(block: &Block, money: Money, signed: Option<&SignedCommitment>) -> ExportHeader {
        let commitment = block.commitment(money);
        ExportHeader {
            format: FORMAT.to_owned(),
            block: commitment.block,
            stake_cents: commitment.stake_cents,
            tickets: commitment.tickets,
            money: commitment.money,
            root: commitment.root,
            prize_table: commitment.prize_table,
            params: block.params.clone(),
            public_key: signed.map(|s| s.public_key),
            signature: signed.map(|s| s.signature),
        }
    }

    pub fn commitment(&self) -> Commitment {
        Commitment {
            block: self.block,
            stake_cents: self.stake_cents,
            tickets: self.tickets,
            money: self.money,
            prize_table: self.prize_table,
            root: self.root,
        }
    }
}

/// One ticket line of an export.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportRow {
    #[serde(flatten)]
    pub ticket: Ticket,
    pub leaf: Hash,
}

/// Per-block counts recomputed from the tickets themselves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub direct: [u32; RANKS.len()],
    pub via_extras: [u32; RANKS.len()],
    /// Losing tickets that got Extras.
    pub teasers: u32,
    /// Tickets by number of Extras, 0..=3.
    pub by_extras: [u32; MAX_EXTRAS as usize + 1],
    pub prizes_cents: u64,
}

/// Checks an export row by row, then as a whole. Keeps at most
/// [`Audit::MAX_VIOLATIONS`] violations, in the order found.
pub struct Audit {
    header: ExportHeader,
    leaves: Vec<Hash>,
    tally: Tally,
    violations: Vec<String>,
    violation_count: usize,
}

/// The outcome of an audit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditReport {
    pub header: ExportHeader,
    pub tally: Tally,
    pub tickets_read: u32,
    pub computed_root: Option<Hash>,
    pub violations: Vec<String>,
    pub violation_count: usize,
}

impl AuditReport {
    pub fn passed(&self) -> bool {
        self.violation_count == 0
    }

    /// The one-line verdict printed by `eldorado block audit`.
    pub fn verdict(&self) -> String {
        let h = &self.header;
        if self.passed() {
            format!(
                "OK: block {} at {} cents, {} tickets, {} winners, {} cents of prizes, exact prize table, root {}",
                h.block,
                h.stake_cents,
                self.tickets_read,
                self.tally.direct.iter().chain(&self.tally.via_extras).sum::<u32>(),
                self.tally.prizes_cents,
                h.root
            )
        } else {
            format!(
                "FAILED: block {}: {} violation(s); first: {}",
                h.block,
                self.violation_count,
                self.violations.join("; ")
            )
        }
    }
}

impl Audit {
    pub const MAX_VIOLATIONS: usize = 10;

    pub fn new(header: ExportHeader) -> Audit {
        let mut audit = Audit {
            leaves: Vec::with_capacity(header.tickets.min(BLOCK_TICKETS) as usize),
            header,
            tally: Tally::default(),
            violations: Vec::new(),
            violation_count: 0,
        };
        audit.check_header();
        audit
    }

    fn violation(&mut self, text: String) {
        self.violation_count += 1;
        if self.violations.len() < Self::MAX_VIOLATIONS {
            self.violations.push(text);
        }
    }

    fn check_header(&mut self) {
        let h = self.header.clone();
        if h.format != FORMAT {
            self.violation(format!("unknown export format {:?}", h.format));
        }
        if h.tickets != BLOCK_TICKETS {
            self.violation(format!(
                "header says {} tickets, a block has {BLOCK_TICKETS}",
                h.tickets
            ));
        }
        if h.prize_table.0 != prize_table_digest() {
            self.violation("header commits to another prize table".to_owned());
        }
        if let Err(e) = h.params.check() {
            self.violation(format!("header parameters: {e}"));
        }
        match (h.public_key, h.signature) {
            (Some(public_key), Some(signature)) => {
                let signed = SignedCommitment {
                    commitment: h.commitment(),
                    public_key,
                    signature,
                };
                if let Err(e) = signed.verify(&public_key) {
                    self.violation(format!("commitment signature: {e}"));
                }
            }
            (None, None) => {}
            _ => self.violation("header has a public key or a signature but not both".to_owned()),
        }
    }

    /// Checks one ticket line, given in file order.
    pub fn push(&mut self, row: &ExportRow) {
        let ticket = &row.ticket;
        let expected_position = self.leaves.len() as u32;
        if ticket.position != expected_position {
            self.violation(format!(
                "line {}: position {} where {expected_position} was expected",
                expected_position + 2,
                ticket.position
            ));
        }
        if ticket.stake_cents != self.header.stake_cents {
            self.violation(format!(
                "position {}: stake {} cents in a block of {} cents",
                ticket.position, ticket.stake_cents, self.header.stake_cents
            ));
        }
        let leaf = leaf_hash(self.header.block, ticket);
        if leaf != row.leaf {
            self.violation(format!(
                "position {}: leaf does not match the ticket",
                ticket.position
            ));
        }
        self.leaves.push(leaf);
        match validate_ticket(ticket) {
            Ok(evaluation) => {
                let extras = usize::from(evaluation.extras);
                self.tally.by_extras[extras] += 1;
                self.tally.prizes_cents += evaluation.prize_cents();
                match evaluation.rank {
                    Some(rank) if extras > 0 => {
                        self.tally.via_extras[usize::from(rank.rank - 1)] += 1
                    }
                    Some(rank) => self.tally.direct[usize::from(rank.rank - 1)] += 1,
                    None if extras > 0 => self.tally.teasers += 1,
                    None => {}
                }
            }
            Err(e) => self.violation(format!("position {}: {e}", ticket.position)),
        }
    }

    /// Checks the block as a whole: count, exact prize table, teasers and
    /// Extras split as the header's parameters say, and the root.
    pub fn finish(mut self) -> AuditReport {
        let read = self.leaves.len() as u32;
        if read != self.header.tickets {
            self.violation(format!(
                "{read} tickets read, header says {}",
                self.header.tickets
            ));
        }
        for (i, rank) in RANKS.iter().enumerate() {
            let (direct, via) = (self.tally.direct[i], self.tally.via_extras[i]);
            if (direct, via) != (rank.direct, rank.via_extras) {
                self.violation(format!(
                    "rank {}: {direct} direct and {via} via Extras, the table says {} and {}",
                    rank.rank, rank.direct, rank.via_extras
                ));
            }
        }
        if self.tally.teasers != self.header.params.teasers {
            self.violation(format!(
                "{} teasers, parameters say {}",
                self.tally.teasers, self.header.params.teasers
            ));
        }
        if self.header.params.check().is_ok() {
            let expected = self.expected_extras_split();
            if self.tally.by_extras[1..] != expected[..] {
                self.violation(format!(
                    "Extras split {:?}, parameters give {expected:?}",
                    &self.tally.by_extras[1..]
                ));
            }
        }
        let computed_root = (!self.leaves.is_empty())
            .then(|| MerkleTree::build(std::mem::take(&mut self.leaves)).root());
        if computed_root != Some(self.header.root) {
            self.violation("the tickets do not hash to the committed root".to_owned());
        }
        AuditReport {
            header: self.header,
            tally: self.tally,
            tickets_read: read,
            computed_root,
            violations: self.violations,
            violation_count: self.violation_count,
        }
    }

    /// Tickets with 1, 2 and 3 Extras that the generator makes: each group
    /// (via-Extras winners of a rank, teasers) split exactly.
    fn expected_extras_split(&self) -> [u32; 3] {
        let split = &self.header.params.extras_split;
        let groups = RANKS
            .iter()
            .map(|r| r.via_extras)
            .chain([self.header.params.teasers]);
        let mut total = [0u32; 3];
        for group in groups {
            for (slot, n) in total.iter_mut().zip(apportion(group, split)) {
                *slot += n;
            }
        }
        total
    }
}
