//! The seam between the rules and a backend: the few reads and writes that
//! the atomic operations need, all inside ONE open transaction.
//!
//! A backend opens the transaction, hands it to the backend-independent
//! rules (`sale_batch`, `wallet`, `switch_over`) as one of these traits,
//! and commits only if they return `Ok`; an `Err` must roll everything back.
//! The rules never see SQL, and a backend never decides who may buy what.
//!
//! Reads marked "for update" must keep the row from changing under the
//! transaction until it ends (`SELECT ... FOR UPDATE` in PostgreSQL; free in
//! SQLite, whose writer holds the whole database).

use super::protection::ProtectionTx;
use super::seamless::TicketPoolTx;
use super::{BlockStatus, PlayerKind, SaleRecord, StoreResult, TransferKind};
use eldorado_engine::{ClientNonce, Money, Ticket};

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
    /// The open block of a stake and money, locked for the rest of the
    /// transaction.
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
