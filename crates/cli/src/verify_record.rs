//! The public-record part of a receipt that carries it (`LoggedReceipt`:
//! the sale, its inclusion proof and the cosigned checkpoint the proof
//! leads to): the checkpoint is the operator's log's, cosigned by the
//! witnesses given; the sale's record is in it; and, with `--log`, the
//! checkpoint is a prefix of the live log (docs/PROTOCOL.md §9).

use crate::log_cmd::client::LogClient;
use eldorado_api::{ConsistencyProof, DealEvidence, LoggedReceipt, PurchaseOnRecord};
use eldorado_engine::commit::verifying_key;
use eldorado_engine::deal::{dealing_round, BeaconClock};
use eldorado_engine::transparency::{
    open_checkpoint, verify_consistency, verify_inclusion, LogEntry, LogKey, WitnessKey,
};
use eldorado_engine::PublicKeyBytes;

/// What a record check establishes, for a reader of the output.
pub const CHECKPOINT: (&str, &str) = (
    "record_checkpoint",
    "the checkpoint is signed by the operator's log and cosigned by the witnesses",
);
pub const INCLUSION: (&str, &str) = (
    "record_inclusion",
    "the sale is a record of that checkpoint",
);
pub const DEAL_TIMING: (&str, &str) = (
    "record_deal_timing",
    "the purchase was cosigned on the record, and dealt by the round that gives: its own if in time, else the first after",
);
pub const LIVE: (&str, &str) = (
    "record_live_log",
    "the checkpoint is a prefix of the live log (no fork, no rollback)",
);

pub type Outcome = ((&'static str, &'static str), Result<(), String>);

/// The witnesses' keys, parsed (a bad one is the caller's mistake).
pub fn witness_keys(vkeys: &[String]) -> Result<Vec<WitnessKey>, String> {
    vkeys
        .iter()
        .map(|v| WitnessKey::parse(v).map_err(|e| format!("--witness {v:?}: {e}")))
        .collect()
}

/// The checks of the receipt's record; `schedule` is the beacon's, for a
/// receipt dealt by it.
pub fn check(
    receipt: &LoggedReceipt,
    operator: &PublicKeyBytes,
    witnesses: &[WitnessKey],
    quorum: usize,
    log: Option<&LogClient>,
    schedule: Option<&BeaconClock>,
) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    let note = receipt.checkpoint.as_bytes();
    // The origin is the checkpoint's first line; the key must be the
    // operator's under it.
    let log_key = receipt
        .checkpoint
        .lines()
        .next()
        .ok_or_else(|| "the checkpoint is empty".to_owned())
        .and_then(|origin| {
            let key = verifying_key(operator).map_err(|e| e.to_string())?;
            LogKey::new(origin, key).map_err(|e| e.to_string())
        });
    let opened = log_key
        .clone()
        .and_then(|key| open_checkpoint(note, &key, witnesses, quorum).map_err(|e| e.to_string()));
    outcomes.push((CHECKPOINT, opened.clone().map(|_| ())));
    let Ok(checkpoint) = opened else {
        return outcomes;
    };
    let included = LogEntry::of_sale(&receipt.sale.sale)
        .and_then(|entry| entry.to_leaf())
        .map_err(|e| e.to_string())
        .and_then(|leaf| {
            if receipt.inclusion.size != checkpoint.size {
                return Err(format!(
                    "the proof is for a tree of {} records, the checkpoint has {}",
                    receipt.inclusion.size, checkpoint.size
                ));
            }
            verify_inclusion(
                &leaf,
                receipt.inclusion.index,
                checkpoint.size,
                &checkpoint.root,
                &receipt.inclusion.hashes,
            )
            .map_err(|e| e.to_string())
        });
    outcomes.push((INCLUSION, included));
    if let (Some(deal), Ok(key)) = (&receipt.sale.deal, &log_key) {
        let timing = schedule
            .ok_or_else(|| "no beacon schedule to tell its rounds' times".to_owned())
            .and_then(|schedule| {
                deal_timing(
                    deal,
                    receipt.purchase.as_ref(),
                    key,
                    witnesses,
                    quorum,
                    schedule,
                )
            });
        outcomes.push((DEAL_TIMING, timing));
    }
    if let (Some(log), Ok(key)) = (log, log_key) {
        outcomes.push((LIVE, live(log, &key, checkpoint.size, &checkpoint.root)));
    }
    outcomes
}

/// The round that dealt the purchase is the one the first checkpoint
/// its quorum cosigned gives (docs/PROTOCOL.md §10): the purchase's leaf,
/// as the deal shows it, is in that checkpoint, which the witnesses
/// cosigned; their quorum's second settles the round.
fn deal_timing(
    deal: &DealEvidence,
    on_record: Option<&PurchaseOnRecord>,
    log_key: &LogKey,
    witnesses: &[WitnessKey],
    quorum: usize,
    schedule: &BeaconClock,
) -> Result<(), String> {
    let on_record =
        on_record.ok_or("the receipt carries no proof of when its purchase was cosigned")?;
    let leaf = hex::decode(&deal.purchase).map_err(|_| "the deal's purchase is not hex")?;
    let Ok(LogEntry::Purchase { purchase, .. }) = LogEntry::parse(&leaf) else {
        return Err("the deal's purchase is not a purchase record".to_owned());
    };
    let covering = open_checkpoint(on_record.checkpoint.as_bytes(), log_key, witnesses, quorum)
        .map_err(|e| format!("the purchase's checkpoint: {e}"))?;
    let proof = &on_record.inclusion;
    if (proof.index, proof.size) != (deal.purchase_log_index, covering.size) {
        return Err(format!(
            "the purchase's proof is of record {} in {} records, not record {} in the checkpoint's {}",
            proof.index, proof.size, deal.purchase_log_index, covering.size
        ));
    }
    verify_inclusion(
        &leaf,
        proof.index,
        covering.size,
        &covering.root,
        &proof.hashes,
    )
    .map_err(|e| format!("the purchase is not in its checkpoint: {e}"))?;
    let second = covering
        .quorum_cosigned_at(quorum)
        .ok_or("no quorum of witnesses cosigned the purchase's checkpoint")?;
    let expected = dealing_round(purchase.round, second, schedule);
    let dealt = deal.round.unwrap_or(purchase.round);
    if dealt != expected {
        return Err(format!(
            "dealt by round {dealt}; cosigned by second {second}, the purchase naming round {}, it is round {expected}",
            purchase.round
        ));
    }
    Ok(())
}

fn live(
    log: &LogClient,
    key: &LogKey,
    size: u64,
    root: &eldorado_engine::Hash,
) -> Result<(), String> {
    let note = log.get_text("/api/log/checkpoint/latest")?;
    let latest = open_checkpoint(note.as_bytes(), key, &[], 0).map_err(|e| e.to_string())?;
    if latest.size < size {
        return Err(format!(
            "the live log has {} records, fewer than the receipt's {size}: rolled back",
            latest.size
        ));
    }
    let proof: ConsistencyProof = log.get_json(&format!(
        "/api/log/proof/consistency?from={size}&size={}",
        latest.size
    ))?;
    verify_consistency(size, root, latest.size, &latest.root, &proof.hashes)
        .map_err(|e| format!("the live log is not an extension of the receipt's checkpoint: {e}"))
}
