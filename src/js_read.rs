//! Reads a JavaScript value (a parsed JSON answer, a posted message, a
//! stored commitment book) into the API types the page reads, by hand:
//! the same values accepted and refused, read as the same Rust values, as
//! serde-wasm-bindgen's `from_value` (0.6) with the types' serde derives
//! (tests/js_values.rs compares the two on every shape).
//!
//! Why by hand: serde's visitors for every type, monomorphised over a
//! `Deserializer` and inlined into each request, were the largest part of
//! the page's code (issue 13). Here the accessors are not generic: one copy
//! reads every field of every type. Each reader builds its struct with a
//! literal naming every field, so a field added to an API type is a compile
//! error here rather than a silent difference; the engine's own
//! constructors (`from_hex`, the grid's parser) decide what they accept.
//! The literals read the fields without heap data first: a refusal then
//! has less already read to drop (`Refused` does not say which field).

use crate::api::{
    BlockInfo, BlockList, BlockStatus, Config, ErrorBody, ErrorDetail, HistoryItem, HistoryPage,
    LimitKind, LimitReached, Odds, ParentMessage, PendingLimit, PrizeRow, Protection,
    RankRemaining, RevealAck, SaleResponse, SaleStatus, Session, StakeAmounts,
};
use eldorado_engine::{
    ClientNonce, Commitment, Grid, Hash, Money, PublicKeyBytes, Sale, Salt, SignatureBytes,
    SignedCommitment, SignedSale, Ticket,
};
use js_sys::{Array, ArrayBuffer, Map, Number, Object, Reflect, Symbol, Uint8Array};
use std::fmt;
use wasm_bindgen::{JsCast, JsValue};

/// The value does not have the expected shape (which part: not kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused;

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not the expected shape")
    }
}

impl std::error::Error for Refused {}

type Result<T> = std::result::Result<T, Refused>;

/// A type the page reads from a JavaScript value.
pub trait FromJs: Sized {
    fn from_js(value: &JsValue) -> Result<Self>;
}

/// `null` and `undefined`: what serde-wasm-bindgen reads as `None` and `()`.
fn is_nullish(value: &JsValue) -> bool {
    value.loose_eq(&JsValue::NULL)
}

/// A number that is a safe integer, `0..=max`. A `BigInt` is refused:
/// serde-wasm-bindgen takes one for a `u64` only.
#[inline(never)]
fn unsigned(value: &JsValue, max: u64) -> Result<u64> {
    if !Number::is_safe_integer(value) {
        return Err(Refused);
    }
    let v = value.unchecked_into_f64() as i64;
    u64::try_from(v).ok().filter(|v| *v <= max).ok_or(Refused)
}

impl FromJs for u64 {
    fn from_js(value: &JsValue) -> Result<u64> {
        if value.is_bigint() {
            u64::try_from(value.clone()).map_err(|_| Refused)
        } else {
            unsigned(value, u64::MAX)
        }
    }
}

impl FromJs for u32 {
    fn from_js(value: &JsValue) -> Result<u32> {
        unsigned(value, u32::MAX.into()).map(|v| v as u32)
    }
}

impl FromJs for u8 {
    fn from_js(value: &JsValue) -> Result<u8> {
        unsigned(value, u8::MAX.into()).map(|v| v as u8)
    }
}

impl FromJs for bool {
    fn from_js(value: &JsValue) -> Result<bool> {
        value.as_bool().ok_or(Refused)
    }
}

impl FromJs for String {
    fn from_js(value: &JsValue) -> Result<String> {
        value.as_string().ok_or(Refused)
    }
}

/// `null` or `undefined` is `None`.
impl<T: FromJs> FromJs for Option<T> {
    fn from_js(value: &JsValue) -> Result<Option<T>> {
        if is_nullish(value) {
            Ok(None)
        } else {
            T::from_js(value).map(Some)
        }
    }
}

/// An array's elements, or any other iterable's values (a `Set`).
#[inline(never)]
fn items(value: &JsValue) -> Result<Vec<JsValue>> {
    if let Some(array) = value.dyn_ref::<Array>() {
        return Ok(array.to_vec());
    }
    drain(iterator(value)?.ok_or(Refused)?)
}

/// An iterator's values; one that throws is refused.
fn drain(iter: js_sys::IntoIter) -> Result<Vec<JsValue>> {
    let mut out = Vec::new();
    for item in iter {
        out.push(item.map_err(|_| Refused)?);
    }
    Ok(out)
}

impl<T: FromJs> FromJs for Vec<T> {
    fn from_js(value: &JsValue) -> Result<Vec<T>> {
        let mut out = Vec::new();
        each(value, &mut |item| {
            out.push(T::from_js(item)?);
            Ok(())
        })?;
        Ok(out)
    }
}

/// `read` on each of the items, in order, up to the first refusal: the
/// walk is not generic, so each element type adds only its `read`.
#[inline(never)]
fn each(value: &JsValue, read: &mut dyn FnMut(&JsValue) -> Result<()>) -> Result<()> {
    items(value)?.iter().try_for_each(read)
}

/// The value's iterator, if it has one; a primitive (where even looking
/// for one throws) is refused.
fn iterator(value: &JsValue) -> Result<Option<js_sys::IntoIter>> {
    js_sys::try_iter(value).map_err(|_| Refused)
}

/// `[key, value]` of an iterable's item (a `Map` entry) or an
/// `Object.entries` pair. An item that is not an object is refused; so is
/// `null` or `undefined`, where serde-wasm-bindgen lets the browser's
/// `TypeError` escape instead.
fn split(pair: &JsValue) -> Result<(JsValue, JsValue)> {
    let at = |i: u32| Reflect::get(pair, &JsValue::from(i)).map_err(|_| Refused);
    Ok((at(0)?, at(1)?))
}

/// A map's entries: the pairs an iterable yields (a `Map`, an array of
/// pairs), else a plain object's own properties.
#[inline(never)]
fn pairs(value: &JsValue) -> Result<Vec<(JsValue, JsValue)>> {
    let items = match iterator(value)? {
        Some(iter) => drain(iter)?,
        None if value.is_object() => Object::entries(value.unchecked_ref()).to_vec(),
        None => return Err(Refused),
    };
    let mut out = Vec::with_capacity(items.len());
    for pair in &items {
        out.push(split(pair)?);
    }
    Ok(out)
}

/// A later duplicate key wins, as in serde's map visitor.
impl FromJs for StakeAmounts {
    fn from_js(value: &JsValue) -> Result<StakeAmounts> {
        let mut amounts = StakeAmounts::default();
        for (key, value) in pairs(value)? {
            amounts.insert(String::from_js(&key)?, u64::from_js(&value)?);
        }
        Ok(amounts)
    }
}

/// A struct's fields, looked up by name in an object (an array too, whose
/// named fields are then all missing).
pub struct Fields<'a>(&'a JsValue);

impl<'a> Fields<'a> {
    pub fn of(value: &'a JsValue) -> Result<Fields<'a>> {
        if value.is_object() {
            Ok(Fields(value))
        } else {
            Err(Refused)
        }
    }

    /// The field's value; `None` when the object has no such property
    /// (one that is present but `undefined` is given as `undefined`).
    #[inline(never)]
    fn present(&self, name: &str) -> Result<Option<JsValue>> {
        let key = JsValue::from_str(name);
        let value = Reflect::get(self.0, &key).map_err(|_| Refused)?;
        if value.is_undefined() && !Reflect::has(self.0, &key).map_err(|_| Refused)? {
            return Ok(None);
        }
        Ok(Some(value))
    }

    /// A field that must be there.
    pub fn get<T: FromJs>(&self, name: &str) -> Result<T> {
        T::from_js(&self.present(name)?.ok_or(Refused)?)
    }

    /// A field of type `Option`: missing, `null` or `undefined` is `None`.
    pub fn optional<T: FromJs>(&self, name: &str) -> Result<Option<T>> {
        match self.present(name)? {
            Some(value) => Option::<T>::from_js(&value),
            None => Ok(None),
        }
    }

    /// A field with `#[serde(default)]`.
    pub fn or_default<T: FromJs + Default>(&self, name: &str) -> Result<T> {
        match self.present(name)? {
            Some(value) => T::from_js(&value),
            None => Ok(T::default()),
        }
    }
}

/// The variant name of an enum without data: `"name"`, or `{"name": null}`
/// (an object with exactly one property, its value `null` or `undefined`).
#[inline(never)]
fn unit_variant(value: &JsValue) -> Result<String> {
    let (tag, payload) = if value.is_string() {
        (value.clone(), JsValue::UNDEFINED)
    } else if value.is_object() {
        let entries = Object::entries(value.unchecked_ref());
        if entries.length() != 1 {
            return Err(Refused);
        }
        split(&entries.get(0))?
    } else {
        return Err(Refused);
    };
    let name = tag.as_string().ok_or(Refused)?;
    if is_nullish(&payload) {
        Ok(name)
    } else {
        Err(Refused)
    }
}

/// The variant whose wire name (as serde's `rename_all` writes it, in the
/// order of `variants`) is the name read.
fn one_of<T: Copy>(name: Result<String>, wire: &[&str], variants: &[T]) -> Result<T> {
    variants.get(position(name, wire)?).copied().ok_or(Refused)
}

/// Not generic: the comparing (and the name's drop) is in one copy.
#[inline(never)]
fn position(name: Result<String>, wire: &[&str]) -> Result<usize> {
    let name = name?;
    wire.iter().position(|w| *w == name).ok_or(Refused)
}

/// Whether serde-wasm-bindgen's `deserialize_any` reads the value: what an
/// internally tagged enum (`ParentMessage`) requires of every property other
/// than its tag, nested ones included.
fn readable_as_any(value: &JsValue) -> Result<()> {
    if is_nullish(value) || value.as_bool().is_some() {
        return Ok(());
    }
    if value.is_bigint() {
        return match i64::try_from(value.clone()) {
            Ok(_) => Ok(()),
            Err(v) => u64::try_from(v).map(drop).map_err(|_| Refused),
        };
    }
    if value.as_f64().is_some() || value.is_string() {
        return Ok(());
    }
    if Array::is_array(value) {
        return items(value)?.iter().try_for_each(readable_as_any);
    }
    if is_bytes(value) {
        return Ok(());
    }
    if map_like(value)? {
        return pairs(value)?.iter().try_for_each(|(key, value)| {
            readable_as_any(key)?;
            readable_as_any(value)
        });
    }
    Err(Refused)
}

fn is_bytes(value: &JsValue) -> bool {
    value.is_instance_of::<Uint8Array>() || value.is_instance_of::<ArrayBuffer>()
}

fn bytes(value: &JsValue) -> Option<Vec<u8>> {
    if let Some(v) = value.dyn_ref::<Uint8Array>() {
        Some(v.to_vec())
    } else {
        value
            .dyn_ref::<ArrayBuffer>()
            .map(|v| Uint8Array::new(v).to_vec())
    }
}

/// An object that `deserialize_any` reads as a map: a plain object (no
/// iterator), or a `Map`.
fn map_like(value: &JsValue) -> Result<bool> {
    Ok(value.is_object()
        && (!Reflect::has(value, &Symbol::iterator()).map_err(|_| Refused)?
            || value.is_instance_of::<Map>()))
}

/// Whether a map key is the tag (`tag`, as text or as bytes); any other
/// key must be readable.
fn is_tag(key: &JsValue, tag: &str) -> Result<bool> {
    if let Some(text) = key.as_string() {
        return Ok(text == tag);
    }
    if !Array::is_array(key) {
        if let Some(bytes) = bytes(key) {
            return Ok(bytes == tag.as_bytes());
        }
    }
    readable_as_any(key).map(|()| false)
}

/// The variant name of an internally tagged enum whose variants carry no
/// data (`#[serde(tag = "type")]`): `{"type": "name", ...}` with any other
/// readable properties, a `Map` likewise, or the one-element array
/// `["name"]`.
#[inline(never)]
fn internally_tagged_unit(value: &JsValue, tag: &str) -> Result<String> {
    if is_nullish(value)
        || value.as_bool().is_some()
        || value.is_bigint()
        || value.as_f64().is_some()
        || value.is_string()
    {
        return Err(Refused);
    }
    if Array::is_array(value) {
        let items = items(value)?;
        let (first, rest) = items.split_first().ok_or(Refused)?;
        let name = String::from_js(first)?;
        rest.iter().try_for_each(readable_as_any)?;
        // A unit variant takes no further elements.
        return if rest.is_empty() {
            Ok(name)
        } else {
            Err(Refused)
        };
    }
    if is_bytes(value) || !map_like(value)? {
        return Err(Refused);
    }
    let mut name = None;
    for (key, value) in pairs(value)? {
        if is_tag(&key, tag)? {
            if name.is_some() {
                return Err(Refused);
            }
            name = Some(String::from_js(&value)?);
        } else {
            readable_as_any(&value)?;
        }
    }
    name.ok_or(Refused)
}

/// Hex text filling `out` exactly: what the types' `from_hex` accepts
/// (the same decoder), in one copy for every length.
#[inline(never)]
fn hex_into(value: &JsValue, out: &mut [u8]) -> Result<()> {
    let text = String::from_js(value)?;
    if eldorado_engine::fixed_bytes::decode_hex(&text, out) {
        Ok(())
    } else {
        Err(Refused)
    }
}

macro_rules! from_hex {
    ($($name:ident),*) => {$(
        impl FromJs for $name {
            fn from_js(value: &JsValue) -> Result<$name> {
                let mut bytes = [0; $name::LEN];
                hex_into(value, &mut bytes)?;
                Ok($name(bytes))
            }
        }
    )*};
}

from_hex!(Salt, ClientNonce, Hash, PublicKeyBytes, SignatureBytes);

impl FromJs for Grid {
    fn from_js(value: &JsValue) -> Result<Grid> {
        String::from_js(value)?.parse().map_err(|_| Refused)
    }
}

impl FromJs for Money {
    fn from_js(value: &JsValue) -> Result<Money> {
        one_of(
            unit_variant(value),
            &["real", "play"],
            &[Money::Real, Money::Play],
        )
    }
}

impl FromJs for SaleStatus {
    fn from_js(value: &JsValue) -> Result<SaleStatus> {
        one_of(
            unit_variant(value),
            &["revealed", "unrevealed"],
            &[SaleStatus::Revealed, SaleStatus::Unrevealed],
        )
    }
}

impl FromJs for BlockStatus {
    fn from_js(value: &JsValue) -> Result<BlockStatus> {
        one_of(
            unit_variant(value),
            &["open", "pending", "sold_out", "closed"],
            &[
                BlockStatus::Open,
                BlockStatus::Pending,
                BlockStatus::SoldOut,
                BlockStatus::Closed,
            ],
        )
    }
}

impl FromJs for LimitKind {
    fn from_js(value: &JsValue) -> Result<LimitKind> {
        one_of(
            unit_variant(value),
            &["weekly_stake", "weekly_loss"],
            &[LimitKind::WeeklyStake, LimitKind::WeeklyLoss],
        )
    }
}

impl FromJs for ParentMessage {
    fn from_js(value: &JsValue) -> Result<ParentMessage> {
        one_of(
            internally_tagged_unit(value, "type"),
            &["mute", "unmute", "refresh_balance", "close"],
            &[
                ParentMessage::Mute,
                ParentMessage::Unmute,
                ParentMessage::RefreshBalance,
                ParentMessage::Close,
            ],
        )
    }
}

impl FromJs for Ticket {
    fn from_js(value: &JsValue) -> Result<Ticket> {
        let f = Fields::of(value)?;
        Ok(Ticket {
            position: f.get("position")?,
            stake_cents: f.get("stake_cents")?,
            prize_cents: f.get("prize_cents")?,
            extras: f.get("extras")?,
            salt: f.get("salt")?,
            grids: f.get("grids")?,
        })
    }
}

/// The flat JSON object: the sale's fields beside its signature.
impl FromJs for SignedSale {
    fn from_js(value: &JsValue) -> Result<SignedSale> {
        let f = Fields::of(value)?;
        let signature = f.get("signature")?;
        Ok(SignedSale {
            sale: Sale {
                sale_id: f.get("sale_id")?,
                block: f.get("block")?,
                tickets: f.get("tickets")?,
                sold_at_ms: f.get("sold_at_ms")?,
                client_nonce: f.get("client_nonce")?,
                ticket: f.get("ticket")?,
                proof: f.get("proof")?,
                player: f.get("player")?,
            },
            signature,
        })
    }
}

/// The flat JSON object: the commitment's fields beside its key and signature.
impl FromJs for SignedCommitment {
    fn from_js(value: &JsValue) -> Result<SignedCommitment> {
        let f = Fields::of(value)?;
        Ok(SignedCommitment {
            commitment: Commitment {
                block: f.get("block")?,
                stake_cents: f.get("stake_cents")?,
                tickets: f.get("tickets")?,
                money: f.get("money")?,
                prize_table: f.get("prize_table")?,
                root: f.get("root")?,
            },
            public_key: f.get("public_key")?,
            signature: f.get("signature")?,
        })
    }
}

impl FromJs for SaleResponse {
    fn from_js(value: &JsValue) -> Result<SaleResponse> {
        let f = Fields::of(value)?;
        Ok(SaleResponse {
            balance_before_cents: f.get("balance_before_cents")?,
            balance_after_cents: f.get("balance_after_cents")?,
            revealed: f.get("revealed")?,
            complete: f.get("complete")?,
            commitment: f.get("commitment")?,
            sale: f.get("sale")?,
        })
    }
}

impl FromJs for Odds {
    fn from_js(value: &JsValue) -> Result<Odds> {
        let f = Fields::of(value)?;
        Ok(Odds {
            tickets: f.get("tickets")?,
            winners: f.get("winners")?,
        })
    }
}

impl FromJs for PrizeRow {
    fn from_js(value: &JsValue) -> Result<PrizeRow> {
        let f = Fields::of(value)?;
        Ok(PrizeRow {
            rank: f.get("rank")?,
            multiple: f.get("multiple")?,
            count: f.get("count")?,
            direct: f.get("direct")?,
            via_extras: f.get("via_extras")?,
            decompositions: f.get("decompositions")?,
        })
    }
}

impl FromJs for Config {
    fn from_js(value: &JsValue) -> Result<Config> {
        let f = Fields::of(value)?;
        Ok(Config {
            rtp_basis_points: f.get("rtp_basis_points")?,
            demo: f.get("demo")?,
            starting_balance_cents: f.get("starting_balance_cents")?,
            odds: f.get("odds")?,
            public_key: f.get("public_key")?,
            stakes_cents: f.get("stakes_cents")?,
            max_win_cents: f.get("max_win_cents")?,
            prize_table: f.get("prize_table")?,
            portal_origins: f.or_default("portal_origins")?,
        })
    }
}

impl FromJs for PendingLimit {
    fn from_js(value: &JsValue) -> Result<PendingLimit> {
        let f = Fields::of(value)?;
        Ok(PendingLimit {
            limit_cents: f.optional("limit_cents")?,
            effective_at_ms: f.get("effective_at_ms")?,
        })
    }
}

impl FromJs for Protection {
    fn from_js(value: &JsValue) -> Result<Protection> {
        let f = Fields::of(value)?;
        Ok(Protection {
            weekly_stake_limit_cents: f.optional("weekly_stake_limit_cents")?,
            weekly_loss_limit_cents: f.optional("weekly_loss_limit_cents")?,
            pending_weekly_stake_limit: f.optional("pending_weekly_stake_limit")?,
            pending_weekly_loss_limit: f.optional("pending_weekly_loss_limit")?,
            stake_used_cents: f.get("stake_used_cents")?,
            loss_used_cents: f.get("loss_used_cents")?,
            excluded_until_ms: f.optional("excluded_until_ms")?,
            excluded_indefinitely: f.get("excluded_indefinitely")?,
            reality_check_minutes: f.get("reality_check_minutes")?,
        })
    }
}

impl FromJs for Session {
    fn from_js(value: &JsValue) -> Result<Session> {
        let f = Fields::of(value)?;
        Ok(Session {
            balance_cents: f.get("balance_cents")?,
            expires_at_ms: f.get("expires_at_ms")?,
            money: f.get("money")?,
            protection: f.get("protection")?,
            token: f.get("token")?,
            player_id: f.get("player_id")?,
            lobby_url: f.optional("lobby_url")?,
            unrevealed: f.optional("unrevealed")?,
        })
    }
}

impl FromJs for RevealAck {
    fn from_js(value: &JsValue) -> Result<RevealAck> {
        let f = Fields::of(value)?;
        Ok(RevealAck {
            sale_id: f.get("sale_id")?,
            revealed: f.get("revealed")?,
            complete: f.get("complete")?,
        })
    }
}

impl FromJs for HistoryItem {
    fn from_js(value: &JsValue) -> Result<HistoryItem> {
        let f = Fields::of(value)?;
        Ok(HistoryItem {
            sale_id: f.get("sale_id")?,
            block: f.get("block")?,
            position: f.get("position")?,
            sold_at_ms: f.get("sold_at_ms")?,
            stake_cents: f.get("stake_cents")?,
            prize_cents: f.get("prize_cents")?,
            extras: f.get("extras")?,
            status: f.get("status")?,
            revealed: f.get("revealed")?,
        })
    }
}

impl FromJs for HistoryPage {
    fn from_js(value: &JsValue) -> Result<HistoryPage> {
        let f = Fields::of(value)?;
        Ok(HistoryPage {
            items: f.get("items")?,
            next_before: f.optional("next_before")?,
        })
    }
}

impl FromJs for RankRemaining {
    fn from_js(value: &JsValue) -> Result<RankRemaining> {
        let f = Fields::of(value)?;
        Ok(RankRemaining {
            rank: f.get("rank")?,
            remaining: f.get("remaining")?,
        })
    }
}

impl FromJs for BlockInfo {
    fn from_js(value: &JsValue) -> Result<BlockInfo> {
        let f = Fields::of(value)?;
        Ok(BlockInfo {
            status: f.get("status")?,
            sold: f.optional("sold")?,
            commitment: f.get("commitment")?,
            remaining_by_rank: f.optional("remaining_by_rank")?,
        })
    }
}

impl FromJs for BlockList {
    fn from_js(value: &JsValue) -> Result<BlockList> {
        let f = Fields::of(value)?;
        Ok(BlockList {
            blocks: f.get("blocks")?,
        })
    }
}

impl FromJs for LimitReached {
    fn from_js(value: &JsValue) -> Result<LimitReached> {
        let f = Fields::of(value)?;
        Ok(LimitReached {
            kind: f.get("kind")?,
            limit_cents: f.get("limit_cents")?,
            used_cents: f.get("used_cents")?,
            frees_at_ms: f.get("frees_at_ms")?,
        })
    }
}

impl FromJs for ErrorDetail {
    fn from_js(value: &JsValue) -> Result<ErrorDetail> {
        let f = Fields::of(value)?;
        Ok(ErrorDetail {
            limit: f.optional("limit")?,
            excluded_until_ms: f.optional("excluded_until_ms")?,
            excluded_indefinitely: f.optional("excluded_indefinitely")?,
            code: f.get("code")?,
            message: f.get("message")?,
        })
    }
}

impl FromJs for ErrorBody {
    fn from_js(value: &JsValue) -> Result<ErrorBody> {
        let f = Fields::of(value)?;
        Ok(ErrorBody {
            error: f.get("error")?,
        })
    }
}
