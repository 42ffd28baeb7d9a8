//! Between rows and the store's records, for both dialects. The databases
//! hold signed 64-bit integers, so every conversion is checked: a value
//! that does not fit, a text that names no variant or a hash of the wrong
//! length is corruption, never a silent wrap.

use super::{Param, Row, Value};
use crate::store::tx::{
    EndedSession, LaunchRecord, LimitSetting, OpenBlock, OutboxItem, ProtectionRow,
    QueuedOutboxItem, Round, WalletOp, WindowSale, WindowTotals,
};
use crate::store::{corrupt, PlayerKind, PurchaseRecord, SaleRecord, SessionRecord, StoreResult};
use eldorado_api::{AuditActor, AuditEntry, LaunchMode, PendingLimit, ProtectionChange};
use eldorado_engine::{ClientNonce, Grid, Hash, Money, Salt, Ticket};
use std::str::FromStr;

pub fn to_i64(value: u64) -> StoreResult<i64> {
    i64::try_from(value).map_err(|_| corrupt("amount out of range"))
}

/// A stored amount, count or time as a parameter, checked.
pub fn int(value: u64) -> StoreResult<Param<'static>> {
    to_i64(value).map(Param::Int)
}

pub fn opt_int(value: Option<u64>) -> StoreResult<Param<'static>> {
    value.map_or(Ok(Param::Null), int)
}

/// A stored enum's name (the strings of its `strum` derive).
pub fn name<E: Into<&'static str>>(value: E) -> Param<'static> {
    Param::Text(value.into())
}

pub fn grids_text(ticket: &Ticket) -> String {
    ticket
        .grids
        .iter()
        .map(|g| g.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Row {
    fn at(&self, i: usize) -> StoreResult<&Value> {
        self.0
            .get(i)
            .ok_or_else(|| corrupt(format!("a row without column {i}")))
    }

    pub fn opt_i64(&self, i: usize) -> StoreResult<Option<i64>> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Int(v) => Ok(Some(*v)),
            other => Err(corrupt(format!("column {i}: {other:?} is not an integer"))),
        }
    }

    pub fn i64(&self, i: usize) -> StoreResult<i64> {
        self.opt_i64(i)?
            .ok_or_else(|| corrupt(format!("column {i} is null")))
    }

    pub fn opt_u64(&self, i: usize, what: &str) -> StoreResult<Option<u64>> {
        self.opt_i64(i)?
            .map(|v| u64::try_from(v).map_err(|_| corrupt(format!("negative {what}"))))
            .transpose()
    }

    pub fn u64(&self, i: usize, what: &str) -> StoreResult<u64> {
        u64::try_from(self.i64(i)?).map_err(|_| corrupt(format!("negative {what}")))
    }

    pub fn u32(&self, i: usize, what: &str) -> StoreResult<u32> {
        u32::try_from(self.i64(i)?).map_err(|_| corrupt(format!("{what} out of range")))
    }

    pub fn u8(&self, i: usize, what: &str) -> StoreResult<u8> {
        u8::try_from(self.i64(i)?).map_err(|_| corrupt(format!("{what} out of range")))
    }

    pub fn bool(&self, i: usize) -> StoreResult<bool> {
        match self.at(i)? {
            Value::Bool(v) => Ok(*v),
            Value::Int(v) => Ok(*v != 0),
            other => Err(corrupt(format!("column {i}: {other:?} is not a boolean"))),
        }
    }

    pub fn opt_str(&self, i: usize) -> StoreResult<Option<&str>> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Text(v) => Ok(Some(v)),
            other => Err(corrupt(format!("column {i}: {other:?} is not text"))),
        }
    }

    pub fn str(&self, i: usize) -> StoreResult<&str> {
        self.opt_str(i)?
            .ok_or_else(|| corrupt(format!("column {i} is null")))
    }

    pub fn opt_text(&self, i: usize) -> StoreResult<Option<String>> {
        Ok(self.opt_str(i)?.map(str::to_owned))
    }

    pub fn text(&self, i: usize) -> StoreResult<String> {
        self.str(i).map(str::to_owned)
    }

    pub fn bytes(&self, i: usize) -> StoreResult<&[u8]> {
        match self.at(i)? {
            Value::Bytes(v) => Ok(v),
            other => Err(corrupt(format!("column {i}: {other:?} is not bytes"))),
        }
    }

    pub fn opt_bytes(&self, i: usize) -> StoreResult<Option<Vec<u8>>> {
        match self.at(i)? {
            Value::Null => Ok(None),
            _ => self.bytes(i).map(|b| Some(b.to_vec())),
        }
    }

    /// Fixed-length bytes: a hash, a salt, a nonce.
    pub fn array<const N: usize>(&self, i: usize, what: &str) -> StoreResult<[u8; N]> {
        self.bytes(i)?
            .try_into()
            .map_err(|_| corrupt(format!("stored {what} of wrong length")))
    }

    /// A stored enum by its name.
    pub fn parse<E: FromStr>(&self, i: usize, what: &str) -> StoreResult<E> {
        let text = self.str(i)?;
        text.parse()
            .map_err(|_| corrupt(format!("{what} {text:?}")))
    }
}

pub fn money(text: &str) -> StoreResult<Money> {
    match text {
        "real" => Ok(Money::Real),
        "play" => Ok(Money::Play),
        _ => Err(corrupt(format!("block money {text:?}"))),
    }
}

pub fn launch_mode(text: &str) -> StoreResult<LaunchMode> {
    match text {
        "real" => Ok(LaunchMode::Real),
        "demo" => Ok(LaunchMode::Demo),
        _ => Err(corrupt(format!("launch mode {text:?}"))),
    }
}

/// A ticket from its columns starting at `at`: grids, prize, extras, salt.
pub fn ticket(row: &Row, at: usize, position: u32, stake_cents: u64) -> StoreResult<Ticket> {
    let grids = row
        .str(at)?
        .split(' ')
        .map(|g| g.parse::<Grid>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| corrupt(format!("stored grid: {e}")))?;
    Ok(Ticket {
        position,
        stake_cents,
        grids,
        prize_cents: row.u64(at + 1, "prize")?,
        extras: row.u8(at + 2, "extras")?,
        salt: Salt(row.array(at + 3, "salt")?),
    })
}

/// `text::TICKETS`: a ticket and its leaf.
pub fn ticket_and_leaf(row: &Row, stake_cents: u64) -> StoreResult<(Ticket, Hash)> {
    let position = row.u32(0, "position")?;
    Ok((
        ticket(row, 1, position, stake_cents)?,
        Hash(row.array(5, "leaf")?),
    ))
}

/// `text::sale_select!`.
pub fn sale(row: &Row) -> StoreResult<SaleRecord> {
    Ok(SaleRecord {
        sale_id: row.u64(0, "sale id")?,
        player_id: row.text(1)?,
        block: row.u64(2, "block")?,
        block_tickets: row.u32(3, "tickets")?,
        ticket: ticket(row, 6, row.u32(4, "position")?, row.u64(5, "stake")?)?,
        sold_at_ms: row.u64(10, "time")?,
        client_nonce: ClientNonce(row.array(14, "client nonce")?),
        balance_before_cents: row.u64(11, "balance")?,
        balance_after_cents: row.u64(12, "balance")?,
        revealed: row.u8(13, "revealed")?,
        log_index: row.opt_u64(15, "log index")?,
    })
}

pub fn purchase(row: &Row) -> StoreResult<PurchaseRecord> {
    Ok(PurchaseRecord {
        purchase_id: row.u64(0, "purchase id")?,
        player_id: row.text(1)?,
        idempotency_key: row.text(2)?,
        block: row.u64(3, "block")?,
        block_tickets: row.u32(4, "tickets")?,
        stake_cents: row.u64(5, "stake")?,
        bought_at_ms: row.u64(6, "time")?,
        client_nonce: ClientNonce(row.array(7, "client nonce")?),
        round: row.u64(8, "beacon round")?,
        balance_before_cents: row.u64(9, "balance")?,
        balance_after_cents: row.u64(10, "balance")?,
        log_index: row.opt_u64(11, "log index")?,
        sale_id: row.opt_u64(12, "sale id")?,
        deal_proof: row.opt_bytes(13)?,
        round_signature: row.opt_bytes(14)?,
        dealt_round: row.opt_u64(15, "beacon round")?,
    })
}

pub fn kind_and_balance(row: &Row) -> StoreResult<(PlayerKind, u64)> {
    Ok((row.parse(0, "player kind")?, row.u64(1, "balance")?))
}

pub fn session(row: &Row) -> StoreResult<SessionRecord> {
    Ok(SessionRecord {
        player_id: row.text(0)?,
        expires_at_ms: row.u64(1, "expiry")?,
        lobby_url: row.opt_text(2)?,
        created_at_ms: row.u64(3, "session start")?,
    })
}

pub fn ended_session(row: &Row) -> StoreResult<EndedSession> {
    Ok(EndedSession {
        token_hash: row.array(0, "session token hash")?,
        created_at_ms: row.u64(1, "session start")?,
        expires_at_ms: row.u64(2, "expiry")?,
    })
}

pub fn wallet_op(row: &Row) -> StoreResult<WalletOp> {
    Ok(WalletOp {
        kind: row.parse(0, "wallet operation kind")?,
        amount_cents: row.u64(1, "amount")?,
    })
}

pub fn open_block(row: &Row) -> StoreResult<OpenBlock> {
    Ok(OpenBlock {
        block: row.u64(0, "block")?,
        tickets: row.u32(1, "tickets")?,
        sold: row.u32(2, "sold")?,
    })
}

pub fn launch(row: &Row) -> StoreResult<LaunchRecord> {
    Ok(LaunchRecord {
        player_id: row.text(0)?,
        mode: launch_mode(row.str(1)?)?,
        lobby_url: row.opt_text(2)?,
    })
}

/// `text::round_columns!`.
pub fn round(row: &Row) -> StoreResult<Round> {
    Ok(Round {
        round_id: row.text(0)?,
        player_id: row.text(1)?,
        idempotency_key: row.text(2)?,
        stake_cents: row.u64(3, "stake")?,
        block: row.u64(4, "block")?,
        position: row.u32(5, "position")?,
        client_nonce: ClientNonce(row.array(6, "nonce")?),
        reserved_at_ms: row.u64(7, "reservation time")?,
    })
}

pub fn outbox_item(row: &Row) -> StoreResult<QueuedOutboxItem> {
    Ok(QueuedOutboxItem {
        item: OutboxItem {
            transaction_id: row.text(0)?,
            kind: row.parse(1, "outbox kind")?,
            round_id: row.text(2)?,
            player_id: row.text(3)?,
            amount_cents: row.u64(4, "amount")?,
            original_transaction_id: row.opt_text(5)?,
        },
        created_at_ms: row.u64(6, "queue time")?,
        attempts: u32::try_from(row.u64(7, "attempts")?).unwrap_or(u32::MAX),
    })
}

fn setting(row: &Row, at: usize) -> StoreResult<LimitSetting> {
    Ok(LimitSetting {
        current: row.opt_u64(at, "limit")?,
        pending: match row.opt_u64(at + 2, "pending limit time")? {
            None => None,
            Some(effective_at_ms) => Some(PendingLimit {
                limit_cents: row.opt_u64(at + 1, "pending limit")?,
                effective_at_ms,
            }),
        },
    })
}

/// `text::PROTECTION`.
pub fn protection(row: &Row) -> StoreResult<ProtectionRow> {
    Ok(ProtectionRow {
        stake: setting(row, 0)?,
        loss: setting(row, 3)?,
        excluded_until_ms: row.opt_u64(6, "exclusion end")?,
        excluded_indefinitely: row.bool(7)?,
        reality_check_minutes: row
            .opt_u64(8, "reality check minutes")?
            .map(|m| u32::try_from(m).map_err(|_| corrupt("reality check minutes")))
            .transpose()?,
    })
}

/// A limit setting's three columns: limit, pending limit, pending time.
pub fn setting_params(setting: &LimitSetting) -> StoreResult<[Param<'static>; 3]> {
    let (pending, at) = match setting.pending {
        None => (Param::Null, Param::Null),
        Some(p) => (opt_int(p.limit_cents)?, int(p.effective_at_ms)?),
    };
    Ok([opt_int(setting.current)?, pending, at])
}

pub fn window_totals(row: &Row) -> StoreResult<WindowTotals> {
    Ok(WindowTotals {
        stakes_cents: row.u64(0, "stakes")?,
        prizes_cents: row.u64(1, "prizes")?,
    })
}

pub fn window_sale(row: &Row) -> StoreResult<WindowSale> {
    Ok(WindowSale {
        sold_at_ms: row.u64(0, "sale time")?,
        stake_cents: row.u64(1, "stake")?,
        prize_cents: row.u64(2, "prize")?,
    })
}

fn audit_value(text: &str) -> StoreResult<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| corrupt(format!("stored audit value: {e}")))
}

pub fn audit_entry(row: &Row) -> StoreResult<AuditEntry> {
    Ok(AuditEntry {
        at_ms: row.u64(0, "audit time")?,
        actor: AuditActor::parse(row.str(1)?).ok_or_else(|| corrupt("audit actor"))?,
        change: ProtectionChange::parse(row.str(2)?).ok_or_else(|| corrupt("audit change"))?,
        old: audit_value(row.str(3)?)?,
        new: audit_value(row.str(4)?)?,
        effective_at_ms: row.u64(5, "audit effective time")?,
    })
}
