//! The one narrow interface between the server and its storage.
//!
//! Everything that must be atomic (a batch of sales, a wallet transfer, a
//! block switch-over) is a single method of `Store`. The rules of those
//! operations live here, independent of any database (`sale_batch`,
//! `wallet`, `switch_over`); a backend opens a transaction, lends it to the
//! rules through the primitives of `tx`, and commits. So a backend holds
//! only transactions, queries and its schema, and a second backend shares
//! every rule with the first.

pub mod deal;
#[cfg(test)]
pub mod failing;
pub mod launch;
pub mod lease;
pub mod postgres;
pub mod protection;
pub mod public_log;
pub mod sale_batch;
pub mod seamless;
pub mod sql;
pub mod sqlite;
pub mod switch_over;
pub mod tx;
pub mod wallet;

use eldorado_api::{AuditActor, AuditEntry, LimitReached, Protection};
use eldorado_engine::{Block, ClientNonce, Hash, Money, Params, SignedCommitment, Stake, Ticket};
pub use lease::{Holding, Lease, LeaseKind};
use protection::{ProtectionDefaults, ProtectionUpdate, UpdateRefusal};
use seamless::{Release, ReserveOutcome, Settled};
use serde::Serialize;
use strum::{EnumString, IntoStaticStr};
pub use tx::QueuedOutboxItem;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database or its driver failed; `sql_state` is the SQLSTATE code
    /// when the database gave one (PostgreSQL), so callers test the code,
    /// never the text.
    #[error("storage backend: {message}")]
    Backend {
        sql_state: Option<String>,
        message: String,
    },
    #[error("stored data is inconsistent: {0}")]
    Corrupt(String),
    /// A sale failed in a batch run without savepoints (`sql::batch`): the
    /// batch is rolled back and run again with them, which undoes that
    /// sale alone. Never leaves the store.
    #[error("a sale failed in a batch without savepoints")]
    RunWithSavepoints,
    /// Every open block of a line a batch sells from is held by other
    /// batches (`sql::batch`): the batch is rolled back and run again
    /// waiting for them, as every batch did before there could be several
    /// open blocks. Never leaves the store.
    #[error("every open block of a line is held by another batch")]
    RunLockingEveryOpenBlock,
}

impl StoreError {
    /// A failure without an SQL state (a connection, a driver, a value).
    pub fn backend(message: impl Into<String>) -> StoreError {
        StoreError::Backend {
            sql_state: None,
            message: message.into(),
        }
    }

    /// The SQLSTATE code of a database error, if it has one.
    pub fn sql_state(&self) -> Option<&str> {
        match self {
            StoreError::Backend { sql_state, .. } => sql_state.as_deref(),
            StoreError::Corrupt(_)
            | StoreError::RunWithSavepoints
            | StoreError::RunLockingEveryOpenBlock => None,
        }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

pub(crate) fn corrupt(what: impl Into<String>) -> StoreError {
    StoreError::Corrupt(what.into())
}

/// A balance computed with a checked operation, if it fits a signed 64-bit
/// column (what SQL databases offer); else the store refuses it as corrupt.
pub(crate) fn storable(balance: Option<u64>) -> StoreResult<u64> {
    balance
        .filter(|b| i64::try_from(*b).is_ok())
        .ok_or_else(|| corrupt("balance overflow"))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, IntoStaticStr, EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum BlockStatus {
    Open,
    Pending,
    SoldOut,
    Closed,
}

impl BlockStatus {
    /// Finished blocks may be disclosed; open or pending ones never.
    pub fn is_finished(self) -> bool {
        matches!(self, BlockStatus::SoldOut | BlockStatus::Closed)
    }
}

/// How a block's generator was seeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString)]
#[strum(serialize_all = "snake_case")]
pub enum BlockSeeding {
    /// 32 bytes of OS randomness: the only seeding for real money.
    Os,
    /// A fixed `--demo-seed`: every ticket is predictable (tests, demos).
    Demo,
}

#[derive(Clone, Debug)]
pub struct BlockRecord {
    pub signed: SignedCommitment,
    pub params: Params,
    pub status: BlockStatus,
    pub seeding: BlockSeeding,
    pub sold: u32,
    /// Unsold winning tickets by prize in cents, largest prize first.
    pub remaining_by_prize: Vec<(u64, u32)>,
    /// The commitment's record in the public log; `None` for a block that
    /// was sold out or closed before the log existed.
    pub log_index: Option<u64>,
    /// Its purchases still waiting for their deal.
    pub undealt: u32,
}

impl BlockRecord {
    /// Sold out or closed, and every purchase of it dealt: only then may
    /// anything of its unsold tickets (its remaining prizes, its export) be
    /// told.
    pub fn is_disclosable(&self) -> bool {
        self.status.is_finished() && self.undealt == 0
    }
    pub fn id(&self) -> u64 {
        self.signed.commitment.block
    }
    pub fn stake_cents(&self) -> u64 {
        self.signed.commitment.stake_cents
    }
    /// As signed in the commitment.
    pub fn money(&self) -> Money {
        self.signed.commitment.money
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString)]
#[strum(serialize_all = "snake_case")]
pub enum PlayerKind {
    /// Play money, created by the page in demo mode.
    Demo,
    /// An operator's player whose money the operator transfers in and out.
    Operator,
}

impl PlayerKind {
    /// The money this kind of player plays with, and so the blocks it buys from.
    pub fn money(self) -> Money {
        match self {
            PlayerKind::Demo => Money::Play,
            PlayerKind::Operator => Money::Real,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRecord {
    pub id: String,
    pub kind: PlayerKind,
    pub balance_cents: u64,
}

#[derive(Clone, Debug)]
pub struct SessionRecord {
    pub player_id: String,
    pub created_at_ms: u64,
    pub expires_at_ms: u64,
    /// The portal's lobby, for a session opened by a launch link.
    pub lobby_url: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString)]
#[strum(serialize_all = "snake_case")]
pub enum TransferKind {
    Credit,
    Debit,
}

#[derive(Clone, Debug)]
pub struct Transfer {
    pub player_id: String,
    pub kind: TransferKind,
    pub amount_cents: u64,
    /// The operator's reference: a transfer is applied once per reference.
    pub reference: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransferOutcome {
    Applied {
        balance_cents: u64,
    },
    /// The same reference was already applied with the same amount.
    Replayed {
        balance_cents: u64,
    },
    /// The reference was used for another amount or direction.
    ReferenceConflict,
    InsufficientFunds {
        balance_cents: u64,
    },
    UnknownPlayer,
    /// Demo players hold play money only.
    DemoPlayer,
}

#[derive(Clone, Debug)]
pub struct SaleRequest {
    pub player_id: String,
    pub stake: Stake,
    pub idempotency_key: String,
    /// The buyer's nonce, stored and signed into the sale (zeros if none).
    pub client_nonce: ClientNonce,
}

/// A recorded sale with everything needed to sign it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaleRecord {
    pub sale_id: u64,
    pub player_id: String,
    pub block: u64,
    pub block_tickets: u32,
    pub ticket: Ticket,
    pub sold_at_ms: u64,
    /// The nonce the first request for this sale carried.
    pub client_nonce: ClientNonce,
    pub balance_before_cents: u64,
    pub balance_after_cents: u64,
    /// Grids fully revealed so far, 0..=1+extras.
    pub revealed: u8,
    /// The sale's record in the public log; `None` for a sale made before
    /// the log existed.
    pub log_index: Option<u64>,
}

impl SaleRecord {
    pub fn grid_count(&self) -> u8 {
        1 + self.ticket.extras
    }
    pub fn is_complete(&self) -> bool {
        self.revealed >= self.grid_count()
    }
    /// The sale took the last ticket of its block.
    pub fn sold_out_block(&self) -> bool {
        self.ticket.position + 1 == self.block_tickets
    }
}

/// A ticket bought, paid and waiting for (or given) its deal by the beacon
/// (docs/PROTOCOL.md §10): what the purchase record of the log says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PurchaseRecord {
    pub purchase_id: u64,
    pub player_id: String,
    /// The buyer's key: its sale, once dealt, is found under it too.
    pub idempotency_key: String,
    pub block: u64,
    pub block_tickets: u32,
    pub stake_cents: u64,
    pub bought_at_ms: u64,
    pub client_nonce: ClientNonce,
    /// The beacon round that deals it.
    pub round: u64,
    pub balance_before_cents: u64,
    pub balance_after_cents: u64,
    /// Its record in the public log, once logged: only then is it dealt.
    pub log_index: Option<u64>,
    /// Its sale, once dealt.
    pub sale_id: Option<u64>,
    /// Once dealt: the deal's proof (`deal::proof_bytes`) and the round's
    /// signature, for the buyer to verify.
    pub deal_proof: Option<Vec<u8>>,
    pub round_signature: Option<Vec<u8>>,
    /// Once dealt, the round that dealt it (`None` on purchases dealt
    /// before it was kept: their own round).
    pub dealt_round: Option<u64>,
}

impl PurchaseRecord {
    /// The message the operator signs and logs.
    pub fn message(&self) -> eldorado_engine::deal::Purchase {
        eldorado_engine::deal::Purchase {
            purchase_id: self.purchase_id,
            block: self.block,
            tickets: self.block_tickets,
            player: self.player_id.clone(),
            bought_at_ms: self.bought_at_ms,
            client_nonce: self.client_nonce,
            round: self.round,
            balance_before_cents: self.balance_before_cents,
            balance_after_cents: self.balance_after_cents,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaleOutcome {
    Sold(SaleRecord),
    /// Bought (now, or earlier under the same idempotency key) and not
    /// dealt yet: the dealer gives it its ticket once its round is out.
    Bought(PurchaseRecord),
    /// The idempotency key was already used for this very sale.
    Replayed(SaleRecord),
    /// The idempotency key was already used with another stake.
    KeyConflict,
    InsufficientFunds {
        balance_cents: u64,
    },
    SoldOut,
    UnknownPlayer,
    /// The stake would exceed a weekly limit; nothing was written.
    LimitReached(LimitReached),
    /// The player is excluded (`None`: until the operator lifts it).
    SelfExcluded {
        until_ms: Option<u64>,
    },
    /// This sale failed inside the store and was undone alone; the cause is
    /// for the log, never for the client.
    Faulted(String),
}

/// A player to find or create when a session opens.
#[derive(Clone, Debug)]
pub struct NewPlayer<'a> {
    pub id: &'a str,
    pub kind: PlayerKind,
    /// Balance of a player created now.
    pub balance_cents: u64,
    /// Whether an existing player of the same kind may be reused (operator
    /// players) or the id must be new (random demo ids).
    pub reuse: bool,
}

/// A session to record: only the hash of its token.
#[derive(Clone, Debug)]
pub struct NewSession {
    pub token_hash: [u8; 32],
    pub created_at_ms: u64,
    pub expires_at_ms: u64,
    /// Live sessions its player may hold, this one included
    /// (`--max-sessions-per-player`, at least 1): opening it ends the
    /// player's oldest beyond that, in the same transaction.
    pub max_per_player: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionOpened {
    Opened {
        player: PlayerRecord,
        /// The token hashes of the player's sessions it ended (its oldest,
        /// beyond `NewSession::max_per_player`), for the caches to forget.
        ended: Vec<[u8; 32]>,
    },
    /// The id belongs to a player of another kind; nothing was written.
    OtherKind(PlayerKind),
    /// The id had to be new and is taken; nothing was written.
    Taken,
}

/// One row of `Store::daily_sales`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DaySales {
    /// Days since 1970-01-01 (UTC).
    pub day: i64,
    pub stake_cents: u64,
    pub money: Money,
    pub tickets: u64,
    pub stakes_cents: u64,
    pub prizes_cents: u64,
}

/// One bucket of `Store::sales_buckets`: the sales of
/// `[start_ms, start_ms + bucket_ms)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SalesBucket {
    pub start_ms: u64,
    pub tickets: u64,
    pub stakes_cents: u64,
    pub prizes_cents: u64,
}

/// Wallet calls not acknowledged that failed for the same reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxFailure {
    pub error: String,
    pub items: u64,
    pub oldest_queued_at_ms: u64,
}

/// Money totals for audits and tests: what went in and out of the wallets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub balances_cents: u64,
    pub stakes_cents: u64,
    pub prizes_cents: u64,
    pub sales: u64,
}

pub trait Store: Send + Sync + 'static {
    /// Every block, by id.
    fn blocks(&self) -> StoreResult<Vec<BlockRecord>>;
    fn block(&self, id: u64) -> StoreResult<Option<BlockRecord>>;
    /// One more than the highest block id ever committed.
    fn next_block_id(&self) -> StoreResult<u64>;
    /// Records a generated, committed block with how it was seeded: it opens
    /// at once when its stake has fewer than `open_per_line` open blocks of
    /// the same money (the commitment's `money`), else it waits as pending.
    /// Must not hold up sales for the whole insert.
    fn insert_block(
        &self,
        block: &Block,
        signed: &SignedCommitment,
        seeding: BlockSeeding,
        open_per_line: u32,
    ) -> StoreResult<BlockStatus>;
    /// Leaf hashes in position order, to rebuild the Merkle tree.
    fn block_leaves(&self, id: u64) -> StoreResult<Vec<Hash>>;
    /// Every ticket of a block in order; `f` returns false to stop.
    fn for_each_ticket(&self, id: u64, f: &mut dyn FnMut(Ticket, Hash) -> bool) -> StoreResult<()>;
    /// Closes an open or pending block (the next pending block of the stake
    /// opens if the open one closes). `None` if there is no such block.
    fn close_block(&self, id: u64) -> StoreResult<Option<BlockRecord>>;

    /// Creates a player unless it exists; true if created.
    fn create_player(&self, id: &str, kind: PlayerKind, balance_cents: u64) -> StoreResult<bool>;
    fn player(&self, id: &str) -> StoreResult<Option<PlayerRecord>>;
    /// Whether any player of this kind exists.
    fn has_players(&self, kind: PlayerKind) -> StoreResult<bool>;
    fn transfer(&self, transfer: &Transfer, now_ms: u64) -> StoreResult<TransferOutcome>;

    fn create_session(
        &self,
        token_hash: &[u8; 32],
        player_id: &str,
        now_ms: u64,
        expires_at_ms: u64,
    ) -> StoreResult<()>;
    fn session(&self, token_hash: &[u8; 32]) -> StoreResult<Option<SessionRecord>>;
    /// Creates the player if needed and records the session in ONE
    /// transaction, so no crash leaves a player without its session.
    fn open_session(
        &self,
        player: &NewPlayer<'_>,
        session: &NewSession,
    ) -> StoreResult<SessionOpened>;
    /// Ends one session; true if it existed.
    fn delete_session(&self, token_hash: &[u8; 32]) -> StoreResult<bool>;
    /// Ends every session of a player; how many there were.
    fn delete_player_sessions(&self, player_id: &str) -> StoreResult<u64>;
    /// Deletes sessions expired at `now_ms`; how many. The records of
    /// sessions ended for newer ones go too once they would have expired.
    fn delete_expired_sessions(&self, now_ms: u64) -> StoreResult<u64>;
    /// When a session that was ended because its player opened
    /// `max_per_player` newer ones would have expired; `None` if the token
    /// names no such session (or one no longer remembered).
    fn evicted_session(&self, token_hash: &[u8; 32]) -> StoreResult<Option<u64>>;
    /// Records a launch code (only its hash).
    fn insert_launch(&self, launch: &launch::NewLaunch) -> StoreResult<()>;
    /// Trades a launch code for a session in ONE transaction (see
    /// [`launch::redeem`]): of any number of concurrent calls with one
    /// code, at most one opens a session.
    fn redeem_launch(
        &self,
        code_hash: &[u8; 32],
        session: &NewSession,
        demo_player: Option<&NewPlayer<'_>>,
    ) -> StoreResult<launch::LaunchRedeemed>;
    /// Deletes launch codes expired at `now_ms`, used or not; how many.
    fn delete_expired_launches(&self, now_ms: u64) -> StoreResult<u64>;
    /// Answers a trivial query, for `GET /api/health`.
    fn ping(&self) -> StoreResult<()> {
        self.player("").map(|_| ())
    }

    /// Runs the sales in order in ONE durable transaction (group commit):
    /// each is checked, debited, given the next ticket of the open block of
    /// its stake and of its player's money, credited and recorded, or
    /// refused without any write.
    fn sell_batch(&self, requests: &[SaleRequest], now_ms: u64) -> StoreResult<Vec<SaleOutcome>>;
    /// [`Store::sell_batch`] with fair dealing: each sale admitted is a
    /// purchase (`SaleOutcome::Bought`) that beacon `round` will deal.
    fn buy_batch(
        &self,
        requests: &[SaleRequest],
        now_ms: u64,
        round: u64,
    ) -> StoreResult<Vec<SaleOutcome>>;
    fn purchase(&self, purchase_id: u64) -> StoreResult<Option<PurchaseRecord>>;
    /// The purchase a sale was dealt from, if it was.
    fn purchase_of_sale(&self, sale_id: u64) -> StoreResult<Option<PurchaseRecord>>;
    /// Purchases not dealt yet, logged or not.
    fn undealt_purchases(&self) -> StoreResult<u64>;
    /// Logged purchases not dealt yet, oldest record first, at most `limit`.
    fn undealt_logged(&self, limit: u32) -> StoreResult<Vec<deal::Undealt>>;
    /// Deals, in one transaction, the logged purchases waiting (at most
    /// `limit`) whose round (`rounds`, by purchase id) has its value in
    /// `randomness` (`store::deal`).
    fn deal(
        &self,
        rounds: &deal::Rounds,
        randomness: &deal::Randomness,
        trees: &mut deal::Trees,
        limit: u32,
        now_ms: u64,
    ) -> StoreResult<Vec<deal::Dealt>>;
    fn sale(&self, player_id: &str, sale_id: u64) -> StoreResult<Option<SaleRecord>>;
    /// Newest first, sale ids below `before`.
    fn history(
        &self,
        player_id: &str,
        before: Option<u64>,
        limit: u32,
    ) -> StoreResult<Vec<SaleRecord>>;
    /// The player's oldest sale not fully revealed.
    fn unrevealed(&self, player_id: &str) -> StoreResult<Option<SaleRecord>>;
    /// Raises the reveal progress (never lowers it); the stored value, or
    /// `None` if the player has no such sale.
    fn set_revealed(&self, player_id: &str, sale_id: u64, revealed: u8) -> StoreResult<Option<u8>>;
    fn totals(&self) -> StoreResult<Totals>;

    /// Seamless wallet, step 1 (`seamless::reserve`): checks the sale and
    /// reserves its ticket under `round_id`, in one transaction.
    fn reserve_round(
        &self,
        request: &SaleRequest,
        round_id: &str,
        now_ms: u64,
    ) -> StoreResult<ReserveOutcome>;
    /// The operator applied the round's debit (`seamless::settle`).
    fn settle_round(
        &self,
        round_id: &str,
        balance_after_debit_cents: u64,
        now_ms: u64,
        dealing: sale_batch::Dealing,
    ) -> StoreResult<Settled>;
    /// The round ends without a sale (`seamless::release`).
    fn release_round(&self, round_id: &str, why: Release, now_ms: u64) -> StoreResult<bool>;
    /// Releases rounds reserved before `before_ms` as unanswered; how many.
    fn release_stale_rounds(&self, before_ms: u64, now_ms: u64) -> StoreResult<u64>;
    /// Outbox calls not yet acknowledged, oldest first.
    fn outbox_due(&self, limit: u32) -> StoreResult<Vec<QueuedOutboxItem>>;
    /// The operator acknowledged the call with this balance.
    fn outbox_acknowledged(
        &self,
        transaction_id: &str,
        balance_cents: u64,
        now_ms: u64,
    ) -> StoreResult<()>;
    /// One more attempt failed (kept for the operator's investigations).
    fn outbox_attempt_failed(&self, transaction_id: &str, error: &str) -> StoreResult<()>;
    /// The operator's wallet refused the call for good (a transaction id
    /// it holds with another body): it is never sent again and waits for a
    /// person (docs/OPERATOR.md, "Reconciliation").
    fn outbox_given_up(&self, transaction_id: &str, error: &str, now_ms: u64) -> StoreResult<()>;
    /// Calls given up on and not acknowledged since.
    fn outbox_given_up_count(&self) -> StoreResult<u64>;

    /// What applies to players without protection settings of their own
    /// (the flags of `eldorado serve`); none until set.
    /// Sales per UTC day, stake and money, sold in `from_ms..to_ms`.
    fn daily_sales(&self, from_ms: u64, to_ms: u64) -> StoreResult<Vec<DaySales>>;
    /// The sales of `[from_ms, to_ms)` in buckets of `bucket_ms`, aligned on
    /// multiples of it; buckets without a sale are left out.
    fn sales_buckets(
        &self,
        from_ms: u64,
        to_ms: u64,
        bucket_ms: u64,
    ) -> StoreResult<Vec<SalesBucket>>;
    /// Sessions not expired at `now_ms`: a player's, or everybody's.
    fn live_sessions(&self, player_id: Option<&str>, now_ms: u64) -> StoreResult<u64>;
    /// Players whose id starts with `prefix`, in id order, at most `limit`.
    fn players_with_prefix(&self, prefix: &str, limit: u32) -> StoreResult<Vec<PlayerRecord>>;
    /// Open or pending blocks that have purchases (dealt by the beacon).
    fn dealt_blocks_on_sale(&self) -> StoreResult<Vec<u64>>;
    /// When the first and the last sold ticket of a block were sold.
    fn block_sale_span(&self, id: u64) -> StoreResult<Option<(u64, u64)>>;
    /// Wallet calls not acknowledged that failed, by their last error, the
    /// most frequent first.
    fn outbox_failures(&self) -> StoreResult<Vec<OutboxFailure>>;
    /// The finished blocks whose last sale fell in `from_ms..to_ms`.
    fn blocks_finished_between(&self, from_ms: u64, to_ms: u64) -> StoreResult<Vec<u64>>;

    /// Connections of a shared database's pool: (in use, idle); `None` for
    /// a backend without a pool.
    fn pool_state(&self) -> Option<(u32, u32)> {
        None
    }

    // The public record (`store::public_log`).
    /// Blocks and at most `max_sales` sales not logged yet, in one snapshot.
    fn log_unlogged(&self, max_sales: u32) -> StoreResult<public_log::Unlogged>;
    /// One sequencer pass, in one transaction; `false` when another
    /// sequencer appended first (nothing written).
    fn log_append(&self, append: &public_log::LogAppend<'_>, now_ms: u64) -> StoreResult<bool>;
    /// Stores the build of the page this server serves (its fingerprint
    /// and number of files) for the sequencer to log, unless it is the
    /// newest build stored; `true` when stored.
    fn log_record_page(&self, fingerprint: &Hash, files: u32, now_ms: u64) -> StoreResult<bool>;
    /// The tree's stored hashes at `indexes` (all written: an error if not).
    fn log_hashes(&self, indexes: &[u64]) -> StoreResult<Vec<Hash>>;
    fn log_leaves(&self, start: u64, end: u64) -> StoreResult<Vec<Vec<u8>>>;
    /// The newest checkpoint with at least `min_cosignatures`, served with them.
    fn log_checkpoint(
        &self,
        min_cosignatures: u32,
    ) -> StoreResult<Option<public_log::ServedCheckpoint>>;
    /// The log's note of the checkpoint of `size`, as signed.
    fn log_checkpoint_at(&self, size: u64) -> StoreResult<Option<String>>;
    /// The first checkpoint holding record `index` (size above it) with at
    /// least `min_cosignatures`, served with them.
    fn log_checkpoint_covering(
        &self,
        index: u64,
        min_cosignatures: u32,
    ) -> StoreResult<Option<public_log::ServedCheckpoint>>;
    /// Keeps a witness's verified cosignature line of checkpoint `size`
    /// (the first one per witness and size).
    fn log_add_cosignature(
        &self,
        size: u64,
        witness: &str,
        line: &str,
        now_ms: u64,
    ) -> StoreResult<()>;

    fn set_protection_defaults(&self, defaults: ProtectionDefaults);
    /// The player's protection at `now_ms`; `None` for an unknown player.
    fn protection(&self, player_id: &str, now_ms: u64) -> StoreResult<Option<Protection>>;
    /// Applies a change in one transaction with its audit entries, and
    /// answers the protection after it; a refusal writes nothing.
    fn update_protection(
        &self,
        player_id: &str,
        update: &ProtectionUpdate,
        actor: AuditActor,
        now_ms: u64,
    ) -> StoreResult<Result<Protection, UpdateRefusal>>;
    /// Every recorded change of the player's protection, newest first.
    fn protection_audit(&self, player_id: &str) -> StoreResult<Vec<AuditEntry>>;

    /// A right held by one process of a deployment at a time; `None` while
    /// another process holds it. A backend used by one process only always
    /// grants it (the book serialises its own threads).
    fn try_lease(&self, _kind: LeaseKind) -> StoreResult<Option<Lease>> {
        Ok(Some(Lease::local()))
    }
    /// A 32-byte secret shared by every process of the deployment: the
    /// stored one, or `fresh`, stored now if there was none (so it is
    /// generated once). `None` if the backend keeps no secrets: they then
    /// live in files of the data directory.
    fn shared_secret(&self, _name: &str, _fresh: [u8; 32]) -> StoreResult<Option<[u8; 32]>> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The strings the database holds and the API shows must never move.
    #[test]
    fn store_enums_keep_their_stored_strings() {
        fn round_trip<E>(value: E, text: &str)
        where
            E: Copy + std::fmt::Debug + PartialEq + Into<&'static str> + std::str::FromStr,
        {
            assert_eq!(value.into(), text);
            assert_eq!(text.parse::<E>().ok(), Some(value));
        }
        round_trip(BlockStatus::Open, "open");
        round_trip(BlockStatus::Pending, "pending");
        round_trip(BlockStatus::SoldOut, "sold_out");
        round_trip(BlockStatus::Closed, "closed");
        round_trip(BlockSeeding::Os, "os");
        round_trip(BlockSeeding::Demo, "demo");
        round_trip(PlayerKind::Demo, "demo");
        round_trip(PlayerKind::Operator, "operator");
        round_trip(TransferKind::Credit, "credit");
        round_trip(TransferKind::Debit, "debit");
        round_trip(tx::OutboxKind::Credit, "credit");
        round_trip(tx::OutboxKind::Rollback, "rollback");
        assert!("generating".parse::<BlockStatus>().is_err());
        assert_eq!(
            serde_json::to_string(&BlockStatus::SoldOut).unwrap(),
            "\"sold_out\""
        );
    }
}
