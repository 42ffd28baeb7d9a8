//! Which round deals each logged purchase (docs/PROTOCOL.md §10): none
//! until a quorum of the log's witnesses has cosigned a checkpoint holding
//! it; then the round it names if they did so before that round, else the
//! first round published after their cosignature's second (engine
//! `dealing_round`). A log without witnesses proves nothing of time: its
//! purchases are dealt by the rounds they name.

use crate::public_log::LogIdentity;
use crate::store::deal::{Rounds, Undealt};
use crate::store::{corrupt, Store, StoreResult};
use eldorado_engine::deal::{dealing_round, BeaconClock};
use eldorado_engine::transparency::open_checkpoint;

/// The round of each of `undealt` (in log order) that is proven; the
/// first one that is not stops the walk, since no checkpoint holds a
/// later record without holding it.
pub fn dealing_rounds(
    store: &dyn Store,
    log: &LogIdentity,
    schedule: &BeaconClock,
    undealt: &[Undealt],
) -> StoreResult<Rounds> {
    let quorum = log.quorum();
    if quorum == 0 {
        return Ok(undealt.iter().map(|u| (u.purchase_id, u.round)).collect());
    }
    let mut rounds = Rounds::new();
    // The first checkpoint the quorum cosigned holding the record walked
    // last: its size, and the second by which the quorum had cosigned it.
    let mut covering: Option<(u64, u64)> = None;
    for purchase in undealt {
        let (size, cosigned_s) = match covering {
            Some(cover @ (size, _)) if purchase.log_index < size => cover,
            _ => match first_covering(store, log, purchase.log_index)? {
                Some(cover) => cover,
                None => break,
            },
        };
        covering = Some((size, cosigned_s));
        rounds.insert(
            purchase.purchase_id,
            dealing_round(purchase.round, cosigned_s, schedule),
        );
    }
    Ok(rounds)
}

/// The first checkpoint that the quorum cosigned holding record `index`:
/// `(size, second by which the quorum had cosigned it)`.
fn first_covering(
    store: &dyn Store,
    log: &LogIdentity,
    index: u64,
) -> StoreResult<Option<(u64, u64)>> {
    let quorum = log.quorum();
    let Some(served) = store.log_checkpoint_covering(index, quorum)? else {
        return Ok(None);
    };
    let checked = open_checkpoint(
        served.note.as_bytes(),
        log.key(),
        log.witnesses(),
        quorum as usize,
    )
    .map_err(|e| corrupt(format!("the checkpoint covering record {index}: {e}")))?;
    let cosigned_s = checked
        .quorum_cosigned_at(quorum as usize)
        .ok_or_else(|| corrupt("a checkpoint served as cosigned has no quorum"))?;
    Ok(Some((checked.size, cosigned_s)))
}
