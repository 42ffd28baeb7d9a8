//! The downloaded log as data, and every check that needs nothing but it
//! and what the server says of its blocks: the tree's root against the
//! checkpoints, the keys, each record, their order, and each block's
//! status. `log_cmd` only fetches; the exports are read by `blocks`.

use super::blocks::check_block_info;
use super::ledger::{check_records, Ledger};
use super::records::{read_records, Record};
use ed25519_dalek::VerifyingKey;
use eldorado_api::BlockInfo;
use eldorado_engine::transparency::MemoryTree as Tree;
use eldorado_engine::transparency::{CheckedCheckpoint, LogKey};
use std::collections::BTreeMap;

pub struct LogAudit {
    operator: VerifyingKey,
    tree: Tree,
    records: Vec<Record>,
}

impl LogAudit {
    pub fn new(operator: VerifyingKey) -> LogAudit {
        LogAudit {
            operator,
            tree: Tree::default(),
            records: Vec::new(),
        }
    }

    /// The next records of the log, in order.
    pub fn append(&mut self, leaves: &[Vec<u8>]) -> Result<(), String> {
        for leaf in leaves {
            let at = self.tree.size();
            self.tree
                .append(leaf)
                .map_err(|e| format!("rebuilding the tree at record {at}: {e}"))?;
        }
        self.records.extend(read_records(leaves, &self.operator));
        Ok(())
    }

    pub fn size(&self) -> u64 {
        self.tree.size()
    }

    /// Every record read, in log order.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    pub fn ledger(&self) -> (Ledger, Vec<String>) {
        check_records(&self.records)
    }

    /// The records held must be the tree `checkpoint` signs (or extend it).
    pub fn check_checkpoint(&self, what: &str, checkpoint: &CheckedCheckpoint) -> Option<String> {
        match self.tree.root(checkpoint.size) {
            None => Some(format!(
                "{what} is of {} records, the log served {}",
                checkpoint.size,
                self.size()
            )),
            Some(root) if root != checkpoint.root => Some(format!(
                "{what} (size {}) has root {}, the served records hash to {root}",
                checkpoint.size, checkpoint.root
            )),
            Some(_) => None,
        }
    }
}

/// The log signs its checkpoints with the operator key (under the log's
/// origin): a log key that is another key is a log no player can check
/// against the tickets.
pub fn check_log_key(operator: &VerifyingKey, log_key: &LogKey) -> Option<String> {
    (log_key.key() != operator).then(|| {
        format!(
            "the log key {} is not the operator key {}",
            log_key.vkey(),
            hex::encode(operator.as_bytes())
        )
    })
}

/// Everything checked without the exports: what a finished block sold is
/// then checked by `blocks::check_export`.
pub fn check_log(
    audit: &LogAudit,
    log_key: &LogKey,
    checkpoint: &CheckedCheckpoint,
    blocks: &BTreeMap<u64, BlockInfo>,
) -> (Ledger, Vec<String>) {
    let mut findings = Vec::new();
    findings.extend(check_log_key(&audit.operator, log_key));
    findings.extend(audit.check_checkpoint("the latest checkpoint", checkpoint));
    let (ledger, record_findings) = audit.ledger();
    findings.extend(record_findings);
    for (id, block) in &ledger.blocks {
        match blocks.get(id) {
            Some(info) => findings.extend(check_block_info(*id, block, info)),
            None => findings.push(format!(
                "block {id}: in the log, but the server does not show it"
            )),
        }
    }
    (ledger, findings)
}
