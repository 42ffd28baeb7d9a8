//! The transfer rules, for every backend: an operator moves money in and
//! out of its players' wallets, once per reference.

use super::tx::{WalletOp, WalletTx};
use super::{
    corrupt, storable, NewPlayer, NewSession, PlayerKind, PlayerRecord, SessionOpened, StoreResult,
    Transfer, TransferKind, TransferOutcome,
};

/// Finds or creates the player, then records the session: the whole entry
/// point in the caller's one transaction. Refusals write nothing.
pub fn open_session<T: WalletTx + ?Sized>(
    tx: &mut T,
    player: &NewPlayer<'_>,
    session: &NewSession,
) -> StoreResult<SessionOpened> {
    let balance_cents = match tx.player_for_update(player.id)? {
        Some((kind, _)) if kind != player.kind => return Ok(SessionOpened::OtherKind(kind)),
        Some(_) if !player.reuse => return Ok(SessionOpened::Taken),
        Some((_, balance)) => balance,
        None => {
            tx.insert_player(
                player.id,
                player.kind,
                player.balance_cents,
                session.created_at_ms,
            )?;
            player.balance_cents
        }
    };
    tx.insert_session(
        &session.token_hash,
        player.id,
        session.created_at_ms,
        session.expires_at_ms,
    )?;
    let ended = end_oldest_sessions(tx, player.id, session)?;
    Ok(SessionOpened::Opened {
        player: PlayerRecord {
            id: player.id.to_owned(),
            kind: player.kind,
            balance_cents,
        },
        ended,
    })
}

/// Keeps the player's live sessions within `session.max_per_player`, the
/// new one among them: the oldest beyond go, and each is remembered until
/// it would have expired, so that its page learns why it was ended. Only
/// the `max_per_player` most recently ended are remembered per player, so
/// a player opening sessions in a loop holds at most twice the cap in rows.
/// Runs in the opening transaction, after the player's row is locked, so
/// that concurrent openings for one player cannot both stay within the cap
/// by not seeing each other.
fn end_oldest_sessions<T: WalletTx + ?Sized>(
    tx: &mut T,
    player_id: &str,
    session: &NewSession,
) -> StoreResult<Vec<[u8; 32]>> {
    let max = session.max_per_player.max(1);
    let mut ended =
        tx.end_oldest_sessions(player_id, &session.token_hash, session.created_at_ms, max)?;
    if ended.is_empty() {
        return Ok(Vec::new());
    }
    // Newest first: those are the ones still worth remembering.
    ended.sort_by_key(|e| std::cmp::Reverse((e.created_at_ms, e.token_hash)));
    for one in ended.iter().take(max as usize) {
        tx.insert_evicted_session(player_id, one, session.created_at_ms)?;
    }
    tx.trim_evicted_sessions(player_id, max)?;
    Ok(ended.into_iter().map(|e| e.token_hash).collect())
}

/// Applies, replays or refuses `transfer` inside `tx`. Refusals write nothing.
pub fn transfer<T: WalletTx + ?Sized>(
    tx: &mut T,
    transfer: &Transfer,
    now_ms: u64,
) -> StoreResult<TransferOutcome> {
    let op = WalletOp {
        kind: transfer.kind,
        amount_cents: transfer.amount_cents,
    };
    if let Some(previous) = tx.wallet_op(&transfer.player_id, &transfer.reference)? {
        if previous != op {
            return Ok(TransferOutcome::ReferenceConflict);
        }
        let (_, balance) = tx
            .player_for_update(&transfer.player_id)?
            .ok_or_else(|| corrupt("a wallet operation of an unknown player"))?;
        return Ok(TransferOutcome::Replayed {
            balance_cents: balance,
        });
    }
    let balance = match (tx.player_for_update(&transfer.player_id)?, transfer.kind) {
        (Some((PlayerKind::Demo, _)), _) => return Ok(TransferOutcome::DemoPlayer),
        (Some((PlayerKind::Operator, balance)), _) => balance,
        // Credit before the first session: the operator's player exists
        // from its first transfer in.
        (None, TransferKind::Credit) => {
            tx.insert_player(&transfer.player_id, PlayerKind::Operator, 0, now_ms)?;
            0
        }
        (None, TransferKind::Debit) => return Ok(TransferOutcome::UnknownPlayer),
    };
    let after = match transfer.kind {
        TransferKind::Credit => storable(balance.checked_add(transfer.amount_cents))?,
        TransferKind::Debit => match balance.checked_sub(transfer.amount_cents) {
            Some(after) => after,
            None => {
                return Ok(TransferOutcome::InsufficientFunds {
                    balance_cents: balance,
                })
            }
        },
    };
    tx.set_balance(&transfer.player_id, after)?;
    tx.insert_wallet_op(&transfer.player_id, &transfer.reference, op, after, now_ms)?;
    Ok(TransferOutcome::Applied {
        balance_cents: after,
    })
}
