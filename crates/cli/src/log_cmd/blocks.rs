//! What the server says of each block, against what its log says: the
//! commitment, where it was logged, how many tickets a finished block sold,
//! and, once a block is disclosed, that every logged sale is the ticket
//! its export shows at that position (the export itself audited as
//! `eldorado block audit` does, with the engine's `Audit`).

use super::ledger::{list, BlockLedger, LISTED};
use eldorado_api::{BlockInfo, BlockStatus};
use eldorado_engine::commit::leaf_hash;
use eldorado_engine::export::{Audit, ExportHeader, ExportRow};
use eldorado_engine::PublicKeyBytes;
use std::io::BufRead;

pub fn is_finished(status: BlockStatus) -> bool {
    matches!(status, BlockStatus::SoldOut | BlockStatus::Closed)
}

/// A finished block whose log shows fewer sales than the server counts may
/// have its last sales after the checkpoint the audit started from.
pub fn may_be_ahead_of_the_log(ledger: &BlockLedger, info: &BlockInfo) -> bool {
    let sold = match info.status {
        BlockStatus::SoldOut => Some(info.commitment.commitment.tickets),
        BlockStatus::Closed => info.sold,
        _ => None,
    };
    sold.is_some_and(|sold| (ledger.sold.len() as u64) < u64::from(sold))
}

pub fn check_block_info(id: u64, ledger: &BlockLedger, info: &BlockInfo) -> Vec<String> {
    let mut findings = Vec::new();
    let at = format!("block {id} ({})", info.status.as_str());
    match &ledger.commitment {
        None => findings.push(format!(
            "{at}: sold in the log, but its commitment is not logged"
        )),
        Some((record, logged)) => {
            if info.commitment.commitment != *logged {
                findings.push(format!(
                    "{at}: the server shows another commitment than record {record}"
                ));
            }
            if let Some(index) = info.log_index.filter(|index| index != record) {
                findings.push(format!(
                    "{at}: the server says its commitment is record {index}, the log has it at record {record}"
                ));
            }
        }
    }
    if !is_finished(info.status) {
        return findings;
    }
    let logged = ledger.sold.len();
    if let Some(sold) = info.sold.filter(|sold| *sold as usize != logged) {
        findings.push(format!(
            "{at}: the server counts {sold} tickets sold, the log holds {logged} sales"
        ));
    }
    if info.status == BlockStatus::SoldOut {
        let tickets = info.commitment.commitment.tickets;
        if logged < tickets as usize {
            findings.push(format!(
                "{at}: {} of its {tickets} positions have no logged sale (first: {})",
                tickets as usize - logged,
                list(&ledger.unsold_positions(tickets, LISTED))
            ));
        }
    }
    findings
}

/// Reads a finished block's export and checks it against the log. An
/// error is a failure to read; what the export says wrong is a finding.
pub fn check_export(
    id: u64,
    ledger: &BlockLedger,
    operator: &PublicKeyBytes,
    export: impl BufRead,
) -> Result<Vec<String>, String> {
    let at = format!("block {id} export");
    let read_error = |e: std::io::Error| format!("reading the export of block {id}: {e}");
    let mut findings = Vec::new();
    let mut lines = export.lines();
    let Some(first) = lines.next().transpose().map_err(read_error)? else {
        return Ok(vec![format!("{at}: empty")]);
    };
    let header: ExportHeader = match serde_json::from_str(&first) {
        Ok(header) => header,
        Err(e) => return Ok(vec![format!("{at}: line 1 is not an export header: {e}")]),
    };
    if header.block != id {
        findings.push(format!("{at}: the header is of block {}", header.block));
    }
    if ledger.commitment.as_ref().map(|(_, c)| c) != Some(&header.commitment()) {
        findings.push(format!(
            "{at}: the header's commitment is not the logged one"
        ));
    }
    if header.public_key.as_ref() != Some(operator) {
        findings.push(format!("{at}: not signed by the operator key"));
    }
    let mut audit = Audit::new(header.clone());
    let mut matched = 0usize;
    for (index, line) in lines.enumerate() {
        let line = line.map_err(read_error)?;
        let row: ExportRow = match serde_json::from_str(&line) {
            Ok(row) => row,
            Err(e) => {
                findings.push(format!("{at}: line {} is not a ticket: {e}", index + 2));
                continue;
            }
        };
        audit.push(&row);
        let position = row.ticket.position;
        if let Some(sold) = ledger.sold.get(&position) {
            matched += 1;
            let shown = leaf_hash(header.block, &row.ticket);
            if sold.ticket_leaf != shown {
                findings.push(format!(
                    "{at}: position {position} is ticket {shown}, the sale at record {} sold ticket {}",
                    sold.record, sold.ticket_leaf
                ));
            }
        }
    }
    if matched < ledger.sold.len() {
        findings.push(format!(
            "{at}: {} logged sales have no ticket in the export",
            ledger.sold.len() - matched
        ));
    }
    let report = audit.finish();
    if !report.passed() {
        findings.push(format!("{at}: {}", report.verdict()));
    }
    Ok(findings)
}
