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
    Ok(SessionOpened::Opened(PlayerRecord {
        id: player.id.to_owned(),
        kind: player.kind,
        balance_cents,
    }))
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
