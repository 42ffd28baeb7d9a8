//! The seam between the rules and the database: the few reads and writes
//! that the atomic operations need, all inside ONE open transaction, and
//! the plain rows they carry. No rules here: the rules modules
//! (`switch_over`, `protection`, `wallet`, `launch`, then `sale_batch`,
//! then `seamless`) import this module, never the other way round.
//!
//! `store::sql::access` implements every trait once, over any SQL
//! connection; the store opens the transaction, hands it to the rules, and
//! commits only if they return `Ok`; an `Err` rolls everything back.
//! The rules never see SQL, and the SQL never decides who may buy what.
//!
//! Reads marked "for update" must keep the row from changing under the
//! transaction until it ends (`SELECT ... FOR UPDATE` in PostgreSQL; free in
//! SQLite, whose writer holds the whole database).

use super::{BlockStatus, PlayerKind, PurchaseRecord, SaleRecord, StoreResult, TransferKind};
use eldorado_api::{AuditEntry, LaunchMode, PendingLimit};
use eldorado_engine::{ClientNonce, Hash, Money, Ticket};
use strum::{EnumString, IntoStaticStr};

/// The open block of a stake and money as a sale sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenBlock {
    pub block: u64,
    pub tickets: u32,
    pub sold: u32,
}

/// A wallet operation already applied under an operator's reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalletOp {
    pub kind: TransferKind,
    pub amount_cents: u64,
}

/// A sale row as the rules decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewSale<'a> {
    pub player_id: &'a str,
    pub idempotency_key: &'a str,
    pub stake_cents: u64,
    pub block: u64,
    pub position: u32,
    pub prize_cents: u64,
    pub grid_count: u8,
    pub sold_at_ms: u64,
    pub client_nonce: ClientNonce,
    pub balance_before_cents: u64,
    pub balance_after_cents: u64,
}

/// A session ended because its player opened newer ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndedSession {
    pub token_hash: [u8; 32],
    pub created_at_ms: u64,
    pub expires_at_ms: u64,
}

/// Players and their money.
pub trait WalletTx {
    /// Kind and balance, locked for the rest of the transaction.
    fn player_for_update(&mut self, player_id: &str) -> StoreResult<Option<(PlayerKind, u64)>>;
    fn insert_player(
        &mut self,
        player_id: &str,
        kind: PlayerKind,
        balance_cents: u64,
        now_ms: u64,
    ) -> StoreResult<()>;
    fn set_balance(&mut self, player_id: &str, balance_cents: u64) -> StoreResult<()>;
    /// Records a session (only the token's hash) of an existing player.
    fn insert_session(
        &mut self,
        token_hash: &[u8; 32],
        player_id: &str,
        now_ms: u64,
        expires_at_ms: u64,
    ) -> StoreResult<()>;
    /// Ends the player's live sessions (unexpired at `now_ms`) beyond the
    /// `max` newest, `keep` always counted among those kept, and returns
    /// them. Oldest means first by `created_at_ms`, then by token hash, so
    /// that every backend ends the same ones.
    fn end_oldest_sessions(
        &mut self,
        player_id: &str,
        keep: &[u8; 32],
        now_ms: u64,
        max: u32,
    ) -> StoreResult<Vec<EndedSession>>;
    /// Remembers a session ended for newer ones, until it would have expired.
    fn insert_evicted_session(
        &mut self,
        player_id: &str,
        ended: &EndedSession,
        now_ms: u64,
    ) -> StoreResult<()>;
    /// Forgets the player's remembered ended sessions beyond the `max` most
    /// recently ended.
    fn trim_evicted_sessions(&mut self, player_id: &str, max: u32) -> StoreResult<()>;
    fn wallet_op(&mut self, player_id: &str, reference: &str) -> StoreResult<Option<WalletOp>>;
    fn insert_wallet_op(
        &mut self,
        player_id: &str,
        reference: &str,
        op: WalletOp,
        balance_after_cents: u64,
        now_ms: u64,
    ) -> StoreResult<()>;
}

/// Block statuses, for the switch-over from an open block to the next.
/// Each (stake, money) pair is a line of its own: play-money and
/// real-money blocks of one stake open, wait and switch over independently.
pub trait BlockTx {
    /// Status, stake and money of a committed block (not one still being stored).
    fn block_status_for_update(
        &mut self,
        block: u64,
    ) -> StoreResult<Option<(BlockStatus, u64, Money)>>;
    fn set_block_status(&mut self, block: u64, status: BlockStatus) -> StoreResult<()>;
    /// The oldest pending block of a stake and money.
    fn oldest_pending_block(&mut self, stake_cents: u64, money: Money) -> StoreResult<Option<u64>>;
    /// How many blocks of a stake and money are open, each locked for the
    /// rest of the transaction.
    fn open_blocks_for_update(&mut self, stake_cents: u64, money: Money) -> StoreResult<u32>;
    /// The first open block of a stake and money, locked for the rest of
    /// the transaction (in a sale batch: the one the batch sells from).
    fn open_block_for_update(
        &mut self,
        stake_cents: u64,
        money: Money,
    ) -> StoreResult<Option<OpenBlock>>;
}

/// Everything a sale touches; the pool of released tickets too, since any
/// sale takes those first.
pub trait SaleTx: WalletTx + BlockTx + ProtectionTx + TicketPoolTx {
    /// The sale id and stake already recorded under an idempotency key.
    fn sale_by_key(&mut self, player_id: &str, key: &str) -> StoreResult<Option<(u64, u64)>>;
    fn sale_by_id(&mut self, sale_id: u64) -> StoreResult<Option<SaleRecord>>;
    /// The ticket at `position` of a block whose stake is `stake_cents`.
    fn ticket(
        &mut self,
        block: u64,
        position: u32,
        stake_cents: u64,
    ) -> StoreResult<Option<Ticket>>;
    /// Records the sale; returns its new id (increasing, never reused).
    fn insert_sale(&mut self, sale: &NewSale<'_>) -> StoreResult<u64>;
    /// Moves a block's count of sold tickets, and its status with it.
    fn set_block_sold(&mut self, block: u64, sold: u32, status: BlockStatus) -> StoreResult<()>;
    /// One fewer unsold winning ticket of `prize_cents` in the block.
    fn take_prize(&mut self, block: u64, prize_cents: u64) -> StoreResult<()>;
    /// Marks where one sale of the batch starts (`SAVEPOINT`), so that a
    /// failing sale can be undone alone.
    fn savepoint(&mut self) -> StoreResult<()>;
    /// Keeps the sale's writes and forgets the mark (`RELEASE`).
    fn release_savepoint(&mut self) -> StoreResult<()>;
    /// Undoes every write since the mark and forgets it (`ROLLBACK TO` then
    /// `RELEASE`); the rest of the transaction stays as it was.
    fn rollback_to_savepoint(&mut self) -> StoreResult<()>;
}

/// A purchase row as the rules decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewPurchase<'a> {
    pub player_id: &'a str,
    pub idempotency_key: &'a str,
    pub stake_cents: u64,
    pub block: u64,
    pub bought_at_ms: u64,
    pub client_nonce: ClientNonce,
    pub round: u64,
    pub balance_before_cents: u64,
    pub balance_after_cents: u64,
}

/// What buying a ticket to be dealt by the beacon, and dealing it, need
/// beyond a sale.
pub trait PurchaseTx: SaleTx {
    fn purchase_by_key(
        &mut self,
        player_id: &str,
        key: &str,
    ) -> StoreResult<Option<PurchaseRecord>>;
    /// Records the purchase; returns its new id.
    fn insert_purchase(&mut self, purchase: &NewPurchase<'_>) -> StoreResult<u64>;
    /// Logged purchases not dealt yet, oldest record first, at most
    /// `limit`, locked: a second dealer waits, then finds them dealt.
    fn undealt_for_update(&mut self, limit: u32) -> StoreResult<Vec<PurchaseRecord>>;
    /// The log's hash of record `index` (`SHA-256(0x00 ‖ leaf)`).
    fn record_hash(&mut self, index: u64) -> StoreResult<Hash>;
    /// Positions of the block that have a sale.
    fn sold_positions(&mut self, block: u64) -> StoreResult<Vec<u32>>;
    /// How many positions of the block have a sale.
    fn sold_count(&mut self, block: u64) -> StoreResult<u32>;
    /// Marks the purchase dealt into `sale_id`, with the deal's proof
    /// (`deal::proof_bytes`), the round that dealt it and its signature.
    fn set_purchase_dealt(
        &mut self,
        purchase_id: u64,
        sale_id: u64,
        proof: &[u8],
        round: u64,
        round_signature: &[u8],
    ) -> StoreResult<()>;
}

/// One protection limit as stored: in force, and a change waiting for its
/// time (the rules are in `protection`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LimitSetting {
    pub current: Option<u64>,
    pub pending: Option<PendingLimit>,
}

/// A player's stored protection settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProtectionRow {
    pub stake: LimitSetting,
    pub loss: LimitSetting,
    pub excluded_until_ms: Option<u64>,
    pub excluded_indefinitely: bool,
    /// `None`: the server's default.
    pub reality_check_minutes: Option<u32>,
}

/// Stakes and prizes of a player's sales in a window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowTotals {
    pub stakes_cents: u64,
    pub prizes_cents: u64,
}

/// One sale of a window, for when room frees up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowSale {
    pub sold_at_ms: u64,
    pub stake_cents: u64,
    pub prize_cents: u64,
}

/// The primitives of the protection rules, inside the caller's transaction.
/// The window reads count EVERY sale row of the player sold after
/// `after_ms` (exclusive): any row that debits a stake must be counted.
pub trait ProtectionTx {
    fn protection_row(&mut self, player_id: &str) -> StoreResult<Option<ProtectionRow>>;
    fn put_protection_row(&mut self, player_id: &str, row: &ProtectionRow) -> StoreResult<()>;
    /// Sums over the player's sales with `sold_at_ms > after_ms`, and its
    /// seamless-wallet rounds reserved and purchases bought since (a stake
    /// paid, no prize yet), so that no limit is overshot while the operator
    /// is asked or the beacon awaited.
    fn window_totals(&mut self, player_id: &str, after_ms: i64) -> StoreResult<WindowTotals>;
    /// The same sales and rounds, oldest first.
    fn window_sales(&mut self, player_id: &str, after_ms: i64) -> StoreResult<Vec<WindowSale>>;
    fn insert_audit(&mut self, player_id: &str, entry: &AuditEntry) -> StoreResult<()>;
    /// Newest first.
    fn audit(&mut self, player_id: &str) -> StoreResult<Vec<AuditEntry>>;
}

/// A launch code just marked used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchRecord {
    pub player_id: String,
    pub mode: LaunchMode,
    pub lobby_url: Option<String>,
}

/// What a launch needs of an open transaction.
pub trait LaunchTx: WalletTx {
    /// Marks the code used if it exists, is unused and expires after
    /// `now_ms`, in one statement that concurrent transactions cannot both
    /// pass (`UPDATE ... WHERE NOT used ... RETURNING`); its launch if so.
    fn take_launch(
        &mut self,
        code_hash: &[u8; 32],
        now_ms: u64,
    ) -> StoreResult<Option<LaunchRecord>>;
    fn set_session_lobby(&mut self, token_hash: &[u8; 32], lobby_url: &str) -> StoreResult<()>;
}

/// A ticket held for a seamless-wallet player while the operator is asked
/// for the stake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    /// Names the operator's transactions of this round; unique across
    /// deployments (the caller draws it at random).
    pub round_id: String,
    pub player_id: String,
    pub idempotency_key: String,
    pub stake_cents: u64,
    pub block: u64,
    pub position: u32,
    pub client_nonce: ClientNonce,
    pub reserved_at_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString)]
#[strum(serialize_all = "snake_case")]
pub enum OutboxKind {
    Credit,
    Rollback,
}

/// A call the operator's wallet must acknowledge, retried with the same
/// transaction id until it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxItem {
    pub transaction_id: String,
    pub kind: OutboxKind,
    pub round_id: String,
    pub player_id: String,
    pub amount_cents: u64,
    /// For a rollback: the debit it undoes.
    pub original_transaction_id: Option<String>,
}

/// A queued call as the outbox worker schedules it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueuedOutboxItem {
    pub item: OutboxItem,
    pub created_at_ms: u64,
    /// Attempts that failed so far, across restarts.
    pub attempts: u32,
}

/// Released tickets, which any sale of a block takes first. Part of every
/// sale (internal or seamless), so a released ticket is always sold later.
pub trait TicketPoolTx {
    /// Removes and returns the lowest released ticket of the block.
    fn take_free_ticket(&mut self, block: u64) -> StoreResult<Option<u32>>;
    /// Tickets of the block held by reserved rounds.
    fn reserved_tickets(&mut self, block: u64) -> StoreResult<u32>;
}

/// What the seamless wallet's rounds need beyond a sale.
/// How a reserved round ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundEnd {
    /// Paid, and its ticket sold: the sale.
    Sold(u64),
    /// Paid, and a purchase the beacon will deal (state `sold`, no sale yet).
    Bought,
    /// Not paid (refused, or rolled back).
    Released,
}

pub trait RoundTx: PurchaseTx {
    /// The reserved round of this idempotency key, if any.
    fn reserved_round_by_key(&mut self, player_id: &str, key: &str) -> StoreResult<Option<Round>>;
    fn insert_round(&mut self, round: &Round) -> StoreResult<()>;
    /// The round if it is still reserved, locked for the transaction.
    fn reserved_round_for_update(&mut self, round_id: &str) -> StoreResult<Option<Round>>;
    /// Ends a reserved round.
    fn end_round(&mut self, round_id: &str, end: RoundEnd, now_ms: u64) -> StoreResult<()>;
    /// The paid round of this idempotency key, if any: its id.
    fn paid_round_by_key(&mut self, player_id: &str, key: &str) -> StoreResult<Option<String>>;
    fn free_ticket(&mut self, block: u64, position: u32) -> StoreResult<()>;
    /// Status, sold count and ticket count of a block, locked.
    fn block_counts_for_update(
        &mut self,
        block: u64,
    ) -> StoreResult<Option<(BlockStatus, u32, u32)>>;
    fn insert_outbox(&mut self, item: &OutboxItem, now_ms: u64) -> StoreResult<()>;
    /// Ids of rounds reserved before `before_ms`.
    fn rounds_reserved_before(&mut self, before_ms: u64) -> StoreResult<Vec<String>>;
}
