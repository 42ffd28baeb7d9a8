//! The public record, fetched: the cosigned checkpoint (kept in
//! `localStorage` through [`CheckpointKeeper`], so a rollback or a fork is
//! refused across reloads), the proof of each block commitment before the
//! page buys from its block, and the proof of each sale before anything of
//! it is shown.
//! What to accept is decided in `crate::record`; this only fetches and waits.

use super::Inner;
use crate::api::{BlockInfo, BlockList, BlockStatus, SaleResponse};
use crate::console::LogFailure;
use crate::dom::{load_pref, save_pref};
use crate::js_value;
use crate::net::Backend;
use crate::record::{
    extends, included, CheckpointKeeper, Fork, RecordProblem, RecordTrust, RECORD_DEADLINE_MS,
    RECORD_POLL_MS,
};
use crate::verification::Rejection;
use eldorado_engine::deal::{dealing_round, BeaconClock};
use eldorado_engine::transparency::{open_checkpoint, CheckedCheckpoint, LogEntry, LogKey};
use eldorado_engine::Money;
use std::rc::Weak;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Scoped by the log's key: a checkpoint is one log's.
fn storage_key(log: &LogKey) -> String {
    format!("eldorado.checkpoint.{}", log.vkey())
}

/// The checkpoint keeper saved for `log` (an unreadable one is empty).
pub fn load_keeper(log: &LogKey) -> CheckpointKeeper {
    load_pref(&storage_key(log))
        .and_then(|text| js_sys::JSON::parse(&text).ok())
        .and_then(|js| js_value::read(&js).ok())
        .unwrap_or_default()
}

pub fn save_keeper(log: &LogKey, keeper: &CheckpointKeeper) {
    if let Ok(text) = js_value::to_json(keeper) {
        save_pref(&storage_key(log), Some(&text));
    }
}

/// The newest cosigned checkpoint, accepted only if it extends the one this
/// browser kept (a consistency proof fetched when it is larger); it is then
/// the one kept.
pub async fn cosigned_checkpoint(
    backend: &dyn Backend,
    trust: &RecordTrust,
) -> Result<CheckedCheckpoint, RecordProblem> {
    let mut keeper = load_keeper(&trust.log);
    if keeper.forked {
        return Err(RecordProblem::Fork(Fork::SeenBefore));
    }
    let note = backend
        .checkpoint()
        .await
        .map_err(|_| RecordProblem::Missing)?;
    let checked = open_checkpoint(note.as_bytes(), &trust.log, &trust.witnesses, trust.quorum)
        .map_err(|_| RecordProblem::BadCheckpoint)?;
    let proof = match keeper.proof_needed(&checked) {
        Some((from, size)) => match backend.consistency_proof(from, size).await {
            Ok(proof) if proof.from == from && proof.size == size => proof.hashes,
            Ok(_) => Vec::new(),
            // No answer is no proof yet, not a fork.
            Err(_) => return Err(RecordProblem::Missing),
        },
        None => Vec::new(),
    };
    // Another request of this page, or another tab, may have kept a newer
    // checkpoint meanwhile: this one, fetched before it, is then looked at
    // again rather than taken for a rollback.
    if load_keeper(&trust.log) != keeper {
        return Err(RecordProblem::Missing);
    }
    let accepted = keeper.accept(&checked, &proof);
    save_keeper(&trust.log, &keeper);
    accepted.map_err(RecordProblem::Fork)?;
    Ok(checked)
}

/// Waits `ms` milliseconds.
pub(super) async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            window
                .set_timeout_with_callback_and_timeout_and_arguments_0(resolve.unchecked_ref(), ms)
                .log_failure("waiting for the public record");
        }
    });
    JsFuture::from(promise)
        .await
        .log_failure("waiting for the public record");
}

fn now() -> f64 {
    js_sys::Date::now()
}

/// Whether a problem ends the wait at once: a fork, or a proof that does
/// not lead to the checkpoint, will not mend by waiting.
fn is_final(problem: RecordProblem) -> bool {
    matches!(problem, RecordProblem::Fork(_) | RecordProblem::BadProof)
}

/// Proves the record `leaf` at `index` on a cosigned checkpoint, once: Ok
/// when proved, `Err(Missing)` while the checkpoint does not cover it yet.
async fn prove_once(
    backend: &dyn Backend,
    trust: &RecordTrust,
    leaf: &[u8],
    index: u64,
) -> Result<(), RecordProblem> {
    let checkpoint = cosigned_checkpoint(backend, trust).await?;
    if index >= checkpoint.size {
        return Err(RecordProblem::Missing);
    }
    let proof = backend
        .inclusion_proof(index, checkpoint.size)
        .await
        .map_err(|_| RecordProblem::Missing)?;
    if included(leaf, index, &checkpoint, &proof) {
        Ok(())
    } else {
        Err(RecordProblem::BadProof)
    }
}

/// The blocks a purchase of `stake` in `money` may be sold from: open and
/// pending ones.
fn for_sale(list: &BlockList, stake: u64, money: Money) -> Vec<BlockInfo> {
    list.blocks
        .iter()
        .filter(|b| {
            let c = &b.commitment.commitment;
            matches!(b.status, BlockStatus::Open | BlockStatus::Pending)
                && c.stake_cents == stake
                && c.money == money
        })
        .cloned()
        .collect()
}

impl Inner {
    /// Before a purchase of `stake`: every block it may be sold from has its
    /// commitment proved on a cosigned checkpoint, waiting (and saying so)
    /// up to [`RECORD_DEADLINE_MS`]; one never proved, or proved wrong,
    /// refuses the purchase.
    pub(super) async fn prove_blocks(
        weak: &Weak<Inner>,
        backend: &dyn Backend,
        listed: &BlockList,
        stake: u64,
    ) -> Result<(), Rejection> {
        let refuse = |problem| Rejection::off_record(false, problem);
        let (trust, money) = {
            let inner = weak
                .upgrade()
                .ok_or_else(|| refuse(RecordProblem::Missing))?;
            let trust = inner.record_trust.borrow().clone();
            let money = inner.player.borrow().as_ref().map(|p| p.money);
            match (trust, money) {
                (Some(trust), Some(money)) => (trust, money),
                _ => return Err(refuse(RecordProblem::Missing)),
            }
        };
        let deadline = now() + RECORD_DEADLINE_MS;
        let mut wanted = for_sale(listed, stake, money);
        let mut said = false;
        loop {
            if let Some(inner) = weak.upgrade() {
                let proved = inner.proved.borrow();
                wanted.retain(|b| !proved.contains(&b.commitment));
            }
            let mut last = RecordProblem::Missing;
            let mut still = Vec::new();
            for block in wanted {
                let leaf = LogEntry::of_commitment(&block.commitment).to_leaf();
                let result = match (leaf, block.log_index) {
                    (Ok(leaf), Some(index)) => prove_once(backend, &trust, &leaf, index).await,
                    _ => Err(RecordProblem::Missing),
                };
                match result {
                    Ok(()) => {
                        if let Some(inner) = weak.upgrade() {
                            inner.proved.borrow_mut().push(block.commitment.clone());
                        }
                    }
                    Err(problem) if is_final(problem) => return Err(refuse(problem)),
                    Err(problem) => {
                        last = problem;
                        still.push(block);
                    }
                }
            }
            wanted = still;
            if wanted.is_empty() {
                return Ok(());
            }
            if now() > deadline {
                return Err(refuse(last));
            }
            if !said {
                said = true;
                if let Some(inner) = weak.upgrade() {
                    if inner.game.borrow_mut().awaiting_record() {
                        inner.render();
                    }
                }
            }
            sleep(RECORD_POLL_MS).await;
            // A commitment not logged yet has no index: list the blocks again.
            if wanted.iter().any(|b| b.log_index.is_none()) {
                if let Ok(list) = backend.blocks().await {
                    for block in &mut wanted {
                        let listed = list
                            .blocks
                            .iter()
                            .find(|b| b.commitment == block.commitment);
                        if let Some(listed) = listed {
                            block.log_index = listed.log_index;
                        }
                    }
                }
            }
        }
    }

    /// Before anything of a sale is shown: the sale is proved on a
    /// checkpoint cosigned by the page's witnesses (its index read from
    /// `GET /api/sales/{id}` until the sequencer logged it) and, for a sale
    /// dealt by the beacon, its purchase was cosigned before the round
    /// that dealt it; each waited for up to [`RECORD_DEADLINE_MS`]. Without
    /// witnesses to trust (`record_trust` unset) there is nothing to prove.
    pub(super) async fn prove_sold(
        weak: &Weak<Inner>,
        backend: &dyn Backend,
        token: &str,
        response: &SaleResponse,
    ) -> Result<(), RecordProblem> {
        let (trust, schedule) = {
            let Some(inner) = weak.upgrade() else {
                return Err(RecordProblem::Missing);
            };
            let trust = inner.record_trust.borrow().clone();
            (trust, inner.beacon.get().map(|b| b.clock))
        };
        let Some(trust) = trust else {
            return Ok(());
        };
        prove_sale(backend, &trust, token, response).await?;
        let Some(schedule) = schedule else {
            return Ok(());
        };
        let deadline = now() + RECORD_DEADLINE_MS;
        loop {
            match prove_bought_in_time(backend, &trust, &schedule, response).await {
                Err(RecordProblem::Missing) if now() <= deadline => sleep(RECORD_POLL_MS).await,
                result => return result,
            }
        }
    }
}

async fn prove_sale(
    backend: &dyn Backend,
    trust: &RecordTrust,
    token: &str,
    response: &SaleResponse,
) -> Result<(), RecordProblem> {
    // The sale as verified and shown, not as answered later.
    let leaf = LogEntry::of_sale(&response.sale)
        .and_then(|entry| entry.to_leaf())
        .map_err(|_| RecordProblem::Missing)?;
    let deadline = now() + RECORD_DEADLINE_MS;
    let mut index = response.log_index;
    loop {
        if index.is_none() {
            index = backend
                .sale(token, response.sale_id())
                .await
                .ok()
                .and_then(|r| r.log_index);
        }
        let result = match index {
            Some(index) => prove_once(backend, trust, &leaf, index).await,
            None => Err(RecordProblem::Missing),
        };
        match result {
            Ok(()) => return Ok(()),
            Err(problem) if is_final(problem) || now() > deadline => return Err(problem),
            Err(_) => sleep(RECORD_POLL_MS).await,
        }
    }
}

/// A sale dealt by the beacon: its purchase is in the first checkpoint
/// that the witnesses cosigned holding it, that checkpoint is a prefix of
/// the one kept, and the round that dealt it is the one the rule gives
/// from when the quorum cosigned it (docs/PROTOCOL.md §10): the round it
/// names if they cosigned it before that round was published. Run once the sale itself is
/// proved on the record, so the kept checkpoint holds the purchase.
async fn prove_bought_in_time(
    backend: &dyn Backend,
    trust: &RecordTrust,
    schedule: &BeaconClock,
    response: &SaleResponse,
) -> Result<(), RecordProblem> {
    let Some(deal) = &response.deal else {
        // The deal's check refused this sale before it was shown.
        return Err(RecordProblem::DealtEarly);
    };
    let leaf = hex::decode(&deal.purchase).map_err(|_| RecordProblem::BadProof)?;
    let Ok(LogEntry::Purchase { purchase, .. }) = LogEntry::parse(&leaf) else {
        return Err(RecordProblem::BadProof);
    };
    let index = deal.purchase_log_index;
    let note = backend
        .covering_checkpoint(index)
        .await
        .map_err(|_| RecordProblem::Missing)?;
    let covering = open_checkpoint(note.as_bytes(), &trust.log, &trust.witnesses, trust.quorum)
        .map_err(|_| RecordProblem::BadCheckpoint)?;
    if covering.size <= index {
        return Err(RecordProblem::BadCheckpoint);
    }
    let proof = backend
        .inclusion_proof(index, covering.size)
        .await
        .map_err(|_| RecordProblem::Missing)?;
    if !included(&leaf, index, &covering, &proof) {
        return Err(RecordProblem::BadProof);
    }
    // The covering checkpoint is older than the one kept: the log may not
    // show it an older tree that the kept one does not extend.
    let kept = cosigned_checkpoint(backend, trust).await?;
    if covering.size > kept.size {
        return Err(RecordProblem::Missing);
    }
    let consistency = backend
        .consistency_proof(covering.size, kept.size)
        .await
        .map_err(|_| RecordProblem::Missing)?;
    if !extends(&kept, &covering, &consistency) {
        return Err(RecordProblem::Fork(Fork::BadProof));
    }
    // The round that dealt it must be the one the rule gives from when
    // the quorum first cosigned it: the one it names if in time, else the
    // first after their cosignatures' second.
    let proven = covering
        .quorum_cosigned_at(trust.quorum)
        .map(|second| dealing_round(purchase.round, second, schedule));
    if proven == Some(deal.round.unwrap_or(purchase.round)) {
        Ok(())
    } else {
        Err(RecordProblem::DealtEarly)
    }
}
