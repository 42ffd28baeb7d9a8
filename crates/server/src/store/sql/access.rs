//! The primitives of `store::tx`, implemented once over any [`Conn`], and
//! the reads and single-statement writes of the `Store` methods.

use super::batch;
use super::decode::{self, int, name};
use super::text as q;
use super::{query, query_one, query_opt, Conn, Param};
use crate::store::tx::{
    BlockTx, EndedSession, LaunchRecord, LaunchTx, NewPurchase, NewSale, OpenBlock, OutboxItem,
    ProtectionRow, ProtectionTx, PurchaseTx, QueuedOutboxItem, Round, RoundEnd, RoundTx, SaleTx,
    TicketPoolTx, WalletOp, WalletTx, WindowSale, WindowTotals,
};
use crate::store::{
    corrupt, BlockRecord, BlockStatus, PlayerKind, PlayerRecord, PurchaseRecord, SaleRecord,
    SessionRecord, StoreResult, Totals,
};
use eldorado_api::AuditEntry;
use eldorado_engine::{Hash, Money, SignedCommitment, Ticket};

/// A committed block with its remaining prizes; `None` while it is still
/// being stored.
pub fn block_record<C: Conn + ?Sized>(conn: &mut C, id: u64) -> StoreResult<Option<BlockRecord>> {
    let Some(row) = query_opt(conn, &q::BLOCK, &[int(id)?], |r| Ok(r.clone()))? else {
        return Ok(None);
    };
    let signed: SignedCommitment = serde_json::from_str(row.str(2)?)
        .map_err(|e| corrupt(format!("stored commitment: {e}")))?;
    let money = row.str(4)?;
    // Sales pick blocks by the column, buyers check the signed kind: they
    // must agree, or a play-money sale could come from a real-money block.
    if decode::money(money)? != signed.commitment.money {
        return Err(corrupt(format!(
            "block {id} is stored as {money} money but committed as {}",
            signed.commitment.money.as_str()
        )));
    }
    let remaining_by_prize = query(conn, &q::BLOCK_PRIZES, &[int(id)?], |r| {
        Ok((r.u64(0, "prize")?, r.u32(1, "remaining prizes")?))
    })?;
    Ok(Some(BlockRecord {
        signed,
        params: serde_json::from_str(row.str(3)?)
            .map_err(|e| corrupt(format!("stored params: {e}")))?,
        status: row.parse(0, "block status")?,
        seeding: row.parse(5, "block seeding")?,
        sold: row.u32(1, "sold count")?,
        remaining_by_prize,
        log_index: row.opt_u64(6, "log index")?,
        undealt: row.u32(7, "purchases to deal")?,
    }))
}

pub fn blocks<C: Conn + ?Sized>(conn: &mut C) -> StoreResult<Vec<BlockRecord>> {
    let ids = query(conn, &q::BLOCK_IDS, &[], |r| r.u64(0, "block id"))?;
    ids.into_iter()
        .filter_map(|id| block_record(conn, id).transpose())
        .collect()
}

pub fn next_block_id<C: Conn + ?Sized>(conn: &mut C) -> StoreResult<u64> {
    let max = query_one(conn, &q::MAX_BLOCK_ID, &[], |r| r.opt_u64(0, "block id"))?;
    Ok(max.unwrap_or(0) + 1)
}

pub fn leaves<C: Conn + ?Sized>(conn: &mut C, id: u64) -> StoreResult<Vec<Hash>> {
    query(conn, &q::LEAVES, &[int(id)?], |r| {
        Ok(Hash(r.array(0, "leaf")?))
    })
}

/// Every ticket of a block in order, streamed; `f` returns false to stop.
pub fn for_each_ticket<C: Conn + ?Sized>(
    conn: &mut C,
    id: u64,
    f: &mut dyn FnMut(Ticket, Hash) -> bool,
) -> StoreResult<()> {
    let stake = query_opt(conn, &q::BLOCK_STAKE, &[int(id)?], |r| r.u64(0, "stake"))?
        .ok_or_else(|| corrupt(format!("no block {id}")))?;
    conn.query_each(&q::TICKETS, &[int(id)?], &mut |row| {
        let (ticket, leaf) = decode::ticket_and_leaf(row, stake)?;
        Ok(f(ticket, leaf))
    })
}

/// The generated block's row, as `generating`: invisible to sales and
/// reads until [`finish_block`].
pub fn insert_block_row<C: Conn + ?Sized>(
    conn: &mut C,
    block: &eldorado_engine::Block,
    signed: &SignedCommitment,
    seeding: crate::store::BlockSeeding,
    now_ms: u64,
) -> StoreResult<()> {
    let commitment = serde_json::to_string(signed)
        .map_err(|e| corrupt(format!("serializing a commitment: {e}")))?;
    let params = serde_json::to_string(&block.params)
        .map_err(|e| corrupt(format!("serializing params: {e}")))?;
    conn.execute(
        &q::INSERT_BLOCK,
        &[
            int(block.id)?,
            int(block.stake.cents())?,
            int(block.tickets.len() as u64)?,
            Param::Text(&commitment),
            Param::Text(&params),
            int(now_ms)?,
            Param::Text(signed.commitment.money.as_str()),
            name(seeding),
        ],
    )?;
    Ok(())
}

/// Stores the block's prize counts and puts it on sale or in line
/// (`switch_over::admit_new_block`): its tickets are all stored.
pub fn finish_block<C: Conn + ?Sized>(
    conn: &mut C,
    block: &eldorado_engine::Block,
    money: Money,
    open_per_line: u32,
) -> StoreResult<BlockStatus> {
    let mut prizes = std::collections::BTreeMap::<u64, u32>::new();
    for ticket in block.tickets.iter().filter(|t| t.prize_cents > 0) {
        *prizes.entry(ticket.prize_cents).or_default() += 1;
    }
    for (prize, count) in prizes {
        conn.execute(
            &q::INSERT_BLOCK_PRIZE,
            &[int(block.id)?, int(prize)?, count.into()],
        )?;
    }
    let stake = block.stake.cents();
    crate::store::switch_over::admit_new_block(conn, block.id, stake, money, open_per_line)
}

pub fn player<C: Conn + ?Sized>(conn: &mut C, id: &str) -> StoreResult<Option<PlayerRecord>> {
    Ok(
        query_opt(conn, &q::PLAYER, &[id.into()], decode::kind_and_balance)?.map(
            |(kind, balance_cents)| PlayerRecord {
                id: id.to_owned(),
                kind,
                balance_cents,
            },
        ),
    )
}

pub fn create_player<C: Conn + ?Sized>(
    conn: &mut C,
    id: &str,
    kind: PlayerKind,
    balance_cents: u64,
    now_ms: u64,
) -> StoreResult<bool> {
    let inserted = conn.execute(
        &q::CREATE_PLAYER,
        &[id.into(), name(kind), int(balance_cents)?, int(now_ms)?],
    )?;
    Ok(inserted == 1)
}

pub fn has_players<C: Conn + ?Sized>(conn: &mut C, kind: PlayerKind) -> StoreResult<bool> {
    query_one(conn, &q::HAS_PLAYERS, &[name(kind)], |r| r.bool(0))
}

pub fn session<C: Conn + ?Sized>(
    conn: &mut C,
    token_hash: &[u8; 32],
) -> StoreResult<Option<SessionRecord>> {
    query_opt(conn, &q::SESSION, &[token_hash[..].into()], decode::session)
}

pub fn evicted_session<C: Conn + ?Sized>(
    conn: &mut C,
    token_hash: &[u8; 32],
) -> StoreResult<Option<u64>> {
    query_opt(conn, &q::EVICTED_SESSION, &[token_hash[..].into()], |r| {
        r.u64(0, "expiry")
    })
}

pub fn sale<C: Conn + ?Sized>(
    conn: &mut C,
    player_id: &str,
    sale_id: u64,
) -> StoreResult<Option<SaleRecord>> {
    let Ok(sale_id) = i64::try_from(sale_id) else {
        return Ok(None);
    };
    query_opt(
        conn,
        &q::PLAYER_SALE,
        &[sale_id.into(), player_id.into()],
        decode::sale,
    )
}

pub fn history<C: Conn + ?Sized>(
    conn: &mut C,
    player_id: &str,
    before: Option<u64>,
    limit: u32,
) -> StoreResult<Vec<SaleRecord>> {
    let before = before.map_or(i64::MAX, |b| i64::try_from(b).unwrap_or(i64::MAX));
    query(
        conn,
        &q::HISTORY,
        &[player_id.into(), before.into(), limit.into()],
        decode::sale,
    )
}

pub fn unrevealed<C: Conn + ?Sized>(
    conn: &mut C,
    player_id: &str,
) -> StoreResult<Option<SaleRecord>> {
    query_opt(conn, &q::UNREVEALED, &[player_id.into()], decode::sale)
}

pub fn set_revealed<C: Conn + ?Sized>(
    conn: &mut C,
    player_id: &str,
    sale_id: u64,
    revealed: u8,
) -> StoreResult<Option<u8>> {
    let Ok(sale_id) = i64::try_from(sale_id) else {
        return Ok(None);
    };
    query_opt(
        conn,
        &q::SET_REVEALED,
        &[revealed.into(), sale_id.into(), player_id.into()],
        |r| r.u8(0, "revealed"),
    )
}

pub fn totals<C: Conn + ?Sized>(conn: &mut C) -> StoreResult<Totals> {
    let balances_cents = query_one(conn, &q::BALANCES, &[], |r| r.u64(0, "balances"))?;
    query_one(conn, &q::SALE_TOTALS, &[], |r| {
        Ok(Totals {
            balances_cents,
            stakes_cents: r.u64(0, "stakes")?,
            prizes_cents: r.u64(1, "prizes")?,
            sales: r.u64(2, "sales")?,
        })
    })
}

pub fn outbox_due<C: Conn + ?Sized>(
    conn: &mut C,
    limit: u32,
) -> StoreResult<Vec<QueuedOutboxItem>> {
    query(conn, &q::OUTBOX_DUE, &[limit.into()], decode::outbox_item)
}

impl<C: Conn + ?Sized> WalletTx for C {
    fn player_for_update(&mut self, player_id: &str) -> StoreResult<Option<(PlayerKind, u64)>> {
        // Read ahead under the same lock (`batch`).
        if let Some(player) = self.batch_cache().and_then(|c| c.player(player_id)) {
            return Ok(player);
        }
        query_opt(
            self,
            &q::PLAYER_FOR_UPDATE,
            &[player_id.into()],
            decode::kind_and_balance,
        )
    }

    fn insert_player(
        &mut self,
        player_id: &str,
        kind: PlayerKind,
        balance_cents: u64,
        now_ms: u64,
    ) -> StoreResult<()> {
        self.execute(
            &q::INSERT_PLAYER,
            &[
                player_id.into(),
                name(kind),
                int(balance_cents)?,
                int(now_ms)?,
            ],
        )?;
        Ok(())
    }

    fn set_balance(&mut self, player_id: &str, balance_cents: u64) -> StoreResult<()> {
        // In a batch, written once at its end (`batch`).
        if let Some(cache) = self.batch_cache() {
            cache.hold_balance(player_id, balance_cents);
            return Ok(());
        }
        self.execute(&q::SET_BALANCE, &[int(balance_cents)?, player_id.into()])?;
        Ok(())
    }

    fn insert_session(
        &mut self,
        token_hash: &[u8; 32],
        player_id: &str,
        now_ms: u64,
        expires_at_ms: u64,
    ) -> StoreResult<()> {
        self.execute(
            &q::INSERT_SESSION,
            &[
                token_hash[..].into(),
                player_id.into(),
                int(now_ms)?,
                int(expires_at_ms)?,
            ],
        )?;
        Ok(())
    }

    fn end_oldest_sessions(
        &mut self,
        player_id: &str,
        keep: &[u8; 32],
        now_ms: u64,
        max: u32,
    ) -> StoreResult<Vec<EndedSession>> {
        query(
            self,
            &q::END_OLDEST_SESSIONS,
            &[player_id.into(), int(now_ms)?, keep[..].into(), max.into()],
            decode::ended_session,
        )
    }

    fn insert_evicted_session(
        &mut self,
        player_id: &str,
        ended: &EndedSession,
        now_ms: u64,
    ) -> StoreResult<()> {
        self.execute(
            &q::INSERT_EVICTED_SESSION,
            &[
                ended.token_hash[..].into(),
                player_id.into(),
                int(ended.created_at_ms)?,
                int(now_ms)?,
                int(ended.expires_at_ms)?,
            ],
        )?;
        Ok(())
    }

    fn trim_evicted_sessions(&mut self, player_id: &str, max: u32) -> StoreResult<()> {
        self.execute(&q::TRIM_EVICTED_SESSIONS, &[player_id.into(), max.into()])?;
        Ok(())
    }

    fn wallet_op(&mut self, player_id: &str, reference: &str) -> StoreResult<Option<WalletOp>> {
        query_opt(
            self,
            &q::WALLET_OP,
            &[player_id.into(), reference.into()],
            decode::wallet_op,
        )
    }

    fn insert_wallet_op(
        &mut self,
        player_id: &str,
        reference: &str,
        op: WalletOp,
        balance_after_cents: u64,
        now_ms: u64,
    ) -> StoreResult<()> {
        self.execute(
            &q::INSERT_WALLET_OP,
            &[
                player_id.into(),
                reference.into(),
                name(op.kind),
                int(op.amount_cents)?,
                int(balance_after_cents)?,
                int(now_ms)?,
            ],
        )?;
        Ok(())
    }
}

impl<C: Conn + ?Sized> BlockTx for C {
    fn block_status_for_update(
        &mut self,
        block: u64,
    ) -> StoreResult<Option<(BlockStatus, u64, Money)>> {
        query_opt(self, &q::BLOCK_STATUS_FOR_UPDATE, &[int(block)?], |r| {
            Ok((
                r.parse(0, "block status")?,
                r.u64(1, "stake")?,
                decode::money(r.str(2)?)?,
            ))
        })
    }

    fn set_block_status(&mut self, block: u64, status: BlockStatus) -> StoreResult<()> {
        self.execute(&q::SET_BLOCK_STATUS, &[name(status), int(block)?])?;
        Ok(())
    }

    fn oldest_pending_block(&mut self, stake_cents: u64, money: Money) -> StoreResult<Option<u64>> {
        query_opt(
            self,
            &q::OLDEST_PENDING_BLOCK,
            &[int(stake_cents)?, money.as_str().into()],
            |r| r.u64(0, "block id"),
        )
    }

    fn open_blocks_for_update(&mut self, stake_cents: u64, money: Money) -> StoreResult<u32> {
        let params = [int(stake_cents)?, money.as_str().into()];
        let mut count = query(self, &q::OPEN_BLOCKS_FOR_UPDATE, &params, |_| Ok(()))?.len();
        if self.dialect() == super::Dialect::Postgres {
            // A block we waited for may have sold out meanwhile, and its
            // successor opened in the same commit: this statement's
            // snapshot predates it, a new statement sees it.
            count = query(self, &q::OPEN_BLOCKS_FOR_UPDATE, &params, |_| Ok(()))?.len();
        }
        u32::try_from(count).map_err(|_| corrupt("open block count overflow"))
    }

    fn open_block_for_update(
        &mut self,
        stake_cents: u64,
        money: Money,
    ) -> StoreResult<Option<OpenBlock>> {
        let params = [int(stake_cents)?, money.as_str().into()];
        if let Some(cache) = self.batch_cache() {
            if let Some(block) = cache.take_locked_block(stake_cents, money) {
                return Ok(Some(block));
            }
            if !cache.every_open_block_locked() {
                return free_open_block(self, &params);
            }
        }
        let open = query_opt(self, &q::OPEN_BLOCK_FOR_UPDATE, &params, decode::open_block)?;
        if open.is_some() || self.dialect() == super::Dialect::Sqlite {
            return Ok(open);
        }
        // The open block we waited for may have sold out meanwhile, and its
        // successor opened in the same commit: this statement's snapshot
        // predates it, a new statement sees it.
        query_opt(self, &q::OPEN_BLOCK_FOR_UPDATE, &params, decode::open_block)
    }
}

/// In a batch that sells from free blocks (`batch`), after the one it
/// locked for the line sold out: the line's first open block that no other
/// batch holds. Waiting for one held by another batch, with this batch's
/// players locked, could deadlock: the batch runs again instead, waiting
/// for every open block of its stakes before anything else.
fn free_open_block<C: Conn + ?Sized>(
    conn: &mut C,
    line: &[Param<'_>; 2],
) -> StoreResult<Option<OpenBlock>> {
    if let Some(block) = query_opt(conn, &q::BATCH_FREE_OPEN_BLOCK, line, decode::open_block)? {
        return Ok(Some(block));
    }
    let open = query_one(conn, &q::OPEN_BLOCK_COUNT, line, |r| r.u64(0, "count"))?;
    if open > 0 {
        return Err(crate::store::StoreError::RunLockingEveryOpenBlock);
    }
    Ok(None)
}

impl<C: Conn + ?Sized> SaleTx for C {
    fn sale_by_key(&mut self, player_id: &str, key: &str) -> StoreResult<Option<(u64, u64)>> {
        if let Some(sale) = self
            .batch_cache()
            .and_then(|c| c.sale_by_key(player_id, key))
        {
            return Ok(sale);
        }
        query_opt(
            self,
            &q::SALE_BY_KEY,
            &[player_id.into(), key.into()],
            |r| Ok((r.u64(0, "sale id")?, r.u64(1, "stake")?)),
        )
    }

    fn sale_by_id(&mut self, sale_id: u64) -> StoreResult<Option<SaleRecord>> {
        query_opt(self, &q::SALE_BY_ID, &[int(sale_id)?], decode::sale)
    }

    fn ticket(
        &mut self,
        block: u64,
        position: u32,
        stake_cents: u64,
    ) -> StoreResult<Option<Ticket>> {
        // In a batch, the tickets its next sales take, in one read.
        if let Some(span) = self.batch_cache().map(|c| c.ticket_span()) {
            if let Some(ticket) = self.batch_cache().and_then(|c| c.ticket(block, position)) {
                return Ok(Some(ticket));
            }
            let end = position.saturating_add(span);
            let tickets = query(
                self,
                &q::TICKET_SPAN,
                &[int(block)?, position.into(), end.into()],
                |r| decode::ticket(r, 1, r.u32(0, "position")?, stake_cents),
            )?;
            let found = tickets.iter().find(|t| t.position == position).cloned();
            if let Some(cache) = self.batch_cache() {
                cache.hold_tickets(block, tickets);
            }
            return Ok(found);
        }
        query_opt(self, &q::TICKET, &[int(block)?, position.into()], |r| {
            decode::ticket(r, 0, position, stake_cents)
        })
    }

    fn insert_sale(&mut self, sale: &NewSale<'_>) -> StoreResult<u64> {
        if let Some(cache) = self.batch_cache() {
            cache.forget_key(sale.player_id, sale.idempotency_key);
        }
        query_one(
            self,
            &q::INSERT_SALE,
            &[
                sale.player_id.into(),
                sale.idempotency_key.into(),
                int(sale.stake_cents)?,
                int(sale.block)?,
                sale.position.into(),
                int(sale.prize_cents)?,
                sale.grid_count.into(),
                int(sale.sold_at_ms)?,
                int(sale.balance_before_cents)?,
                int(sale.balance_after_cents)?,
                sale.client_nonce.0[..].into(),
            ],
            |r| r.u64(0, "sale id"),
        )
    }

    fn set_block_sold(&mut self, block: u64, sold: u32, status: BlockStatus) -> StoreResult<()> {
        // In a batch, a count is written once at its end; a change of
        // status at once, since the next open block is chosen by it.
        if let Some(cache) = self.batch_cache() {
            if status == BlockStatus::Open {
                cache.hold_sold(block, sold);
                return Ok(());
            }
            cache.drop_sold(block);
        }
        self.execute(
            &q::SET_BLOCK_SOLD,
            &[sold.into(), name(status), int(block)?],
        )?;
        Ok(())
    }

    fn take_prize(&mut self, block: u64, prize_cents: u64) -> StoreResult<()> {
        if let Some(cache) = self.batch_cache() {
            cache.hold_prize(block, prize_cents);
            return Ok(());
        }
        self.execute(&q::TAKE_PRIZE, &[int(block)?, int(prize_cents)?])?;
        Ok(())
    }

    fn savepoint(&mut self) -> StoreResult<()> {
        if let Some(cache) = self.batch_cache() {
            cache.start_sale();
            // A batch's first run sends none (`batch`): one round trip a
            // sale fewer while no sale fails, which is nearly always.
            if !cache.savepoints() {
                return Ok(());
            }
        }
        self.batch(q::SAVEPOINT.text(self.dialect()))
    }

    fn release_savepoint(&mut self) -> StoreResult<()> {
        if self.batch_cache().is_some_and(|c| !c.savepoints()) {
            return Ok(());
        }
        self.batch(q::RELEASE_SAVEPOINT.text(self.dialect()))
    }

    fn rollback_to_savepoint(&mut self) -> StoreResult<()> {
        if self.batch_cache().is_some_and(|c| !c.savepoints()) {
            return Err(crate::store::StoreError::RunWithSavepoints);
        }
        self.batch(q::ROLLBACK_TO_SAVEPOINT.text(self.dialect()))?;
        // The sales before this one keep their held-back writes: sent now,
        // so that the rest of the batch reads them from the database.
        if let Some(cache) = self.batch_cache() {
            cache.undo_sale();
        }
        batch::send_writes(self)?;
        if let Some(cache) = self.batch_cache() {
            cache.forget_reads();
        }
        Ok(())
    }
}

impl<C: Conn + ?Sized> ProtectionTx for C {
    fn protection_row(&mut self, player_id: &str) -> StoreResult<Option<ProtectionRow>> {
        if let Some(row) = self.batch_cache().and_then(|c| c.protection(player_id)) {
            return Ok(row);
        }
        query_opt(
            self,
            &q::PROTECTION,
            &[player_id.into()],
            decode::protection,
        )
    }

    fn put_protection_row(&mut self, player_id: &str, row: &ProtectionRow) -> StoreResult<()> {
        let [sl, sp, sa] = decode::setting_params(&row.stake)?;
        let [ll, lp, la] = decode::setting_params(&row.loss)?;
        self.execute(
            &q::PUT_PROTECTION,
            &[
                player_id.into(),
                sl,
                sp,
                sa,
                ll,
                lp,
                la,
                decode::opt_int(row.excluded_until_ms)?,
                row.excluded_indefinitely.into(),
                row.reality_check_minutes.into(),
            ],
        )?;
        if let Some(cache) = self.batch_cache() {
            cache.put_protection(player_id, row);
        }
        Ok(())
    }

    fn window_totals(&mut self, player_id: &str, after_ms: i64) -> StoreResult<WindowTotals> {
        query_one(
            self,
            &q::WINDOW_TOTALS,
            &[player_id.into(), after_ms.into()],
            decode::window_totals,
        )
    }

    fn window_sales(&mut self, player_id: &str, after_ms: i64) -> StoreResult<Vec<WindowSale>> {
        query(
            self,
            &q::WINDOW_SALES,
            &[player_id.into(), after_ms.into()],
            decode::window_sale,
        )
    }

    fn insert_audit(&mut self, player_id: &str, entry: &AuditEntry) -> StoreResult<()> {
        self.execute(
            &q::INSERT_AUDIT,
            &[
                player_id.into(),
                int(entry.at_ms)?,
                entry.actor.as_str().into(),
                entry.change.as_str().into(),
                Param::Text(&entry.old.to_string()),
                Param::Text(&entry.new.to_string()),
                int(entry.effective_at_ms)?,
            ],
        )?;
        Ok(())
    }

    fn audit(&mut self, player_id: &str) -> StoreResult<Vec<AuditEntry>> {
        query(self, &q::AUDIT, &[player_id.into()], decode::audit_entry)
    }
}

impl<C: Conn + ?Sized> LaunchTx for C {
    fn take_launch(
        &mut self,
        code_hash: &[u8; 32],
        now_ms: u64,
    ) -> StoreResult<Option<LaunchRecord>> {
        query_opt(
            self,
            &q::TAKE_LAUNCH,
            &[code_hash[..].into(), int(now_ms)?],
            decode::launch,
        )
    }

    fn set_session_lobby(&mut self, token_hash: &[u8; 32], lobby_url: &str) -> StoreResult<()> {
        self.execute(
            &q::SET_SESSION_LOBBY,
            &[lobby_url.into(), token_hash[..].into()],
        )?;
        Ok(())
    }
}

impl<C: Conn + ?Sized> PurchaseTx for C {
    fn purchase_by_key(
        &mut self,
        player_id: &str,
        key: &str,
    ) -> StoreResult<Option<PurchaseRecord>> {
        if let Some(purchase) = self
            .batch_cache()
            .and_then(|c| c.purchase_by_key(player_id, key))
        {
            return Ok(purchase);
        }
        query_opt(
            self,
            &q::PURCHASE_BY_KEY,
            &[player_id.into(), key.into()],
            decode::purchase,
        )
    }

    fn insert_purchase(&mut self, purchase: &NewPurchase<'_>) -> StoreResult<u64> {
        if let Some(cache) = self.batch_cache() {
            cache.forget_key(purchase.player_id, purchase.idempotency_key);
        }
        query_one(
            self,
            &q::INSERT_PURCHASE,
            &[
                purchase.player_id.into(),
                purchase.idempotency_key.into(),
                int(purchase.stake_cents)?,
                int(purchase.block)?,
                int(purchase.bought_at_ms)?,
                purchase.client_nonce.0[..].into(),
                int(purchase.round)?,
                int(purchase.balance_before_cents)?,
                int(purchase.balance_after_cents)?,
            ],
            |r| r.u64(0, "purchase id"),
        )
    }

    fn undealt_for_update(&mut self, limit: u32) -> StoreResult<Vec<PurchaseRecord>> {
        query(
            self,
            &q::UNDEALT_FOR_UPDATE,
            &[limit.into()],
            decode::purchase,
        )
    }

    fn record_hash(&mut self, index: u64) -> StoreResult<Hash> {
        let stored = eldorado_engine::transparency::tlog::stored_hash_index(0, index);
        query_opt(self, &q::LOG_HASH, &[int(stored)?], |r| {
            Ok(Hash(r.array(0, "log hash")?))
        })?
        .ok_or_else(|| corrupt(format!("the log has no hash of record {index}")))
    }

    fn sold_positions(&mut self, block: u64) -> StoreResult<Vec<u32>> {
        query(self, &q::SOLD_POSITIONS, &[int(block)?], |r| {
            r.u32(0, "position")
        })
    }

    fn sold_count(&mut self, block: u64) -> StoreResult<u32> {
        query_one(self, &q::SOLD_COUNT, &[int(block)?], |r| r.u32(0, "sales"))
    }

    fn set_purchase_dealt(
        &mut self,
        purchase_id: u64,
        sale_id: u64,
        proof: &[u8],
        round: u64,
        round_signature: &[u8],
    ) -> StoreResult<()> {
        let params = [
            int(sale_id)?,
            proof.into(),
            round_signature.into(),
            int(round)?,
            int(purchase_id)?,
        ];
        if self.execute(&q::SET_PURCHASE_DEALT, &params)? != 1 {
            return Err(corrupt(format!("purchase {purchase_id} is already dealt")));
        }
        Ok(())
    }
}

impl<C: Conn + ?Sized> TicketPoolTx for C {
    fn take_free_ticket(&mut self, block: u64) -> StoreResult<Option<u32>> {
        // Only a seamless round given back releases a ticket, under the
        // block's lock that this batch holds: once none, none till the end.
        if self
            .batch_cache()
            .is_some_and(|c| c.has_no_free_ticket(block))
        {
            return Ok(None);
        }
        if let Some(cache) = self.batch_cache() {
            if cache.reserved(block).is_none() {
                return first_free_ticket_of_batch(self, block);
            }
        }
        let position = query_opt(self, &q::TAKE_FREE_TICKET, &[int(block)?], |r| {
            r.u32(0, "position")
        })?;
        if let (None, Some(cache)) = (position, self.batch_cache()) {
            cache.found_no_free_ticket(block);
        }
        Ok(position)
    }

    fn reserved_tickets(&mut self, block: u64) -> StoreResult<u32> {
        if let Some(count) = self.batch_cache().and_then(|c| c.reserved(block)) {
            return Ok(count);
        }
        let count = query_one(self, &q::RESERVED_TICKETS, &[int(block)?], |r| {
            r.u32(0, "reserved tickets")
        })?;
        if let Some(cache) = self.batch_cache() {
            cache.set_reserved(block, count);
        }
        Ok(count)
    }
}

/// A batch's first look at a block's ticket pool: its released and reserved
/// tickets counted in one statement, and a released one taken only if
/// there is one (rare: a seamless round given back).
fn first_free_ticket_of_batch<C: Conn + ?Sized>(
    conn: &mut C,
    block: u64,
) -> StoreResult<Option<u32>> {
    let (free, reserved) = query_one(conn, &q::BATCH_TICKET_POOL, &[int(block)?], |r| {
        Ok((r.u64(0, "released tickets")?, r.u32(1, "reserved tickets")?))
    })?;
    let position = if free == 0 {
        None
    } else {
        query_opt(conn, &q::TAKE_FREE_TICKET, &[int(block)?], |r| {
            r.u32(0, "position")
        })?
    };
    if let Some(cache) = conn.batch_cache() {
        cache.set_reserved(block, reserved);
        if position.is_none() {
            cache.found_no_free_ticket(block);
        }
    }
    Ok(position)
}

impl<C: Conn + ?Sized> RoundTx for C {
    fn reserved_round_by_key(&mut self, player_id: &str, key: &str) -> StoreResult<Option<Round>> {
        query_opt(
            self,
            &q::RESERVED_ROUND_BY_KEY,
            &[player_id.into(), key.into()],
            decode::round,
        )
    }

    fn insert_round(&mut self, round: &Round) -> StoreResult<()> {
        // The block's reserved count changes.
        if let Some(cache) = self.batch_cache() {
            cache.forget_ticket_pool();
        }
        self.execute(
            &q::INSERT_ROUND,
            &[
                (&round.round_id).into(),
                (&round.player_id).into(),
                (&round.idempotency_key).into(),
                int(round.stake_cents)?,
                int(round.block)?,
                round.position.into(),
                round.client_nonce.0[..].into(),
                int(round.reserved_at_ms)?,
            ],
        )?;
        Ok(())
    }

    fn reserved_round_for_update(&mut self, round_id: &str) -> StoreResult<Option<Round>> {
        query_opt(
            self,
            &q::RESERVED_ROUND_FOR_UPDATE,
            &[round_id.into()],
            decode::round,
        )
    }

    fn end_round(&mut self, round_id: &str, end: RoundEnd, now_ms: u64) -> StoreResult<()> {
        let (state, sale_id) = match end {
            RoundEnd::Sold(sale_id) => ("sold", Some(sale_id)),
            RoundEnd::Bought => ("sold", None),
            RoundEnd::Released => ("released", None),
        };
        self.execute(
            &q::END_ROUND,
            &[
                state.into(),
                decode::opt_int(sale_id)?,
                int(now_ms)?,
                round_id.into(),
            ],
        )?;
        Ok(())
    }

    fn paid_round_by_key(&mut self, player_id: &str, key: &str) -> StoreResult<Option<String>> {
        query_opt(
            self,
            &q::PAID_ROUND_BY_KEY,
            &[player_id.into(), key.into()],
            |r| r.text(0),
        )
    }

    fn free_ticket(&mut self, block: u64, position: u32) -> StoreResult<()> {
        if let Some(cache) = self.batch_cache() {
            cache.forget_ticket_pool();
        }
        self.execute(&q::FREE_TICKET, &[int(block)?, position.into()])?;
        Ok(())
    }

    fn block_counts_for_update(
        &mut self,
        block: u64,
    ) -> StoreResult<Option<(BlockStatus, u32, u32)>> {
        query_opt(self, &q::BLOCK_COUNTS_FOR_UPDATE, &[int(block)?], |r| {
            Ok((
                r.parse(0, "block status")?,
                r.u32(1, "sold")?,
                r.u32(2, "tickets")?,
            ))
        })
    }

    fn insert_outbox(&mut self, item: &OutboxItem, now_ms: u64) -> StoreResult<()> {
        self.execute(
            &q::INSERT_OUTBOX,
            &[
                (&item.transaction_id).into(),
                name(item.kind),
                (&item.round_id).into(),
                (&item.player_id).into(),
                int(item.amount_cents)?,
                item.original_transaction_id.as_ref().into(),
                int(now_ms)?,
            ],
        )?;
        Ok(())
    }

    fn rounds_reserved_before(&mut self, before_ms: u64) -> StoreResult<Vec<String>> {
        query(self, &q::ROUNDS_RESERVED_BEFORE, &[int(before_ms)?], |r| {
            r.text(0)
        })
    }
}
