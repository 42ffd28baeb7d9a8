//! Writes the requests, posted messages and saved commitments of the page
//! as JavaScript values, by hand: the same plain objects, in the same key
//! order, as serde-wasm-bindgen's `Serializer::json_compatible()` (0.6)
//! writes with the types' serde derives (`null` for `None`, an integer
//! beyond 2^53 refused). tests/js_values.rs compares the two.
//!
//! Why by hand: as for [`crate::js_read`], serde's code monomorphised per
//! type cost the download more than these few objects do. Each writer
//! destructures its type naming every field, so a field added to a type is
//! a compile error here.

use crate::api::{
    BuyRequest, ExclusionRequest, LaunchCodeRequest, LimitsRequest, PageMessage,
    RealityCheckRequest, RevealRequest,
};
use crate::js_read::Refused;
use eldorado_engine::{Commitment, SignedCommitment};
use js_sys::{Array, Number, Object, Reflect};
use wasm_bindgen::JsValue;

type Result<T = JsValue> = std::result::Result<T, Refused>;

/// A value the page writes as a JavaScript value.
pub trait ToJs {
    fn to_js(&self) -> Result;
}

/// An integer JavaScript holds exactly; larger ones are refused.
#[inline(never)]
fn integer(v: u64) -> Result {
    if v <= Number::MAX_SAFE_INTEGER as u64 {
        Ok(JsValue::from_f64(v as f64))
    } else {
        Err(Refused)
    }
}

/// A plain object, filled property by property in the order written.
struct Properties(Object);

impl Properties {
    fn new() -> Properties {
        Properties(Object::new())
    }

    #[inline(never)]
    fn value(self, key: &str, value: &JsValue) -> Result<Properties> {
        Reflect::set(&self.0, &JsValue::from_str(key), value).map_err(|_| Refused)?;
        Ok(self)
    }

    fn text(self, key: &str, value: &str) -> Result<Properties> {
        self.value(key, &JsValue::from_str(value))
    }

    fn integer(self, key: &str, value: u64) -> Result<Properties> {
        self.value(key, &integer(value)?)
    }

    /// An integer, or `null`.
    fn optional(self, key: &str, value: Option<u64>) -> Result<Properties> {
        match value {
            Some(v) => self.integer(key, v),
            None => self.value(key, &JsValue::NULL),
        }
    }

    fn done(self) -> Result {
        Ok(self.0.into())
    }
}

impl ToJs for BuyRequest {
    fn to_js(&self) -> Result {
        let BuyRequest {
            stake_cents,
            idempotency_key,
            client_nonce,
        } = self;
        let object = Properties::new()
            .integer("stake_cents", *stake_cents)?
            .text("idempotency_key", idempotency_key)?;
        // `skip_serializing_if = "Option::is_none"`.
        match client_nonce {
            Some(nonce) => object.text("client_nonce", &nonce.to_hex())?.done(),
            None => object.done(),
        }
    }
}

impl ToJs for LaunchCodeRequest {
    fn to_js(&self) -> Result {
        let LaunchCodeRequest { code } = self;
        Properties::new().text("code", code)?.done()
    }
}

impl ToJs for RevealRequest {
    fn to_js(&self) -> Result {
        let RevealRequest { revealed } = self;
        Properties::new()
            .integer("revealed", (*revealed).into())?
            .done()
    }
}

impl ToJs for LimitsRequest {
    fn to_js(&self) -> Result {
        let LimitsRequest {
            weekly_stake_limit_cents,
            weekly_loss_limit_cents,
        } = self;
        Properties::new()
            .optional("weekly_stake_limit_cents", *weekly_stake_limit_cents)?
            .optional("weekly_loss_limit_cents", *weekly_loss_limit_cents)?
            .done()
    }
}

impl ToJs for ExclusionRequest {
    fn to_js(&self) -> Result {
        let ExclusionRequest { days } = self;
        Properties::new()
            .optional("days", days.map(u64::from))?
            .done()
    }
}

impl ToJs for RealityCheckRequest {
    fn to_js(&self) -> Result {
        let RealityCheckRequest { minutes } = self;
        Properties::new()
            .integer("minutes", (*minutes).into())?
            .done()
    }
}

/// `#[serde(tag = "type", rename_all = "snake_case")]`: the tag first,
/// then the variant's fields.
impl ToJs for PageMessage {
    fn to_js(&self) -> Result {
        let tag = |name: &str| Properties::new().text("type", name);
        match self {
            PageMessage::Ready => tag("ready")?.done(),
            PageMessage::Balance { balance_cents } => tag("balance")?
                .integer("balance_cents", *balance_cents)?
                .done(),
            PageMessage::RoundStarted {
                sale_id,
                stake_cents,
            } => tag("round_started")?
                .integer("sale_id", *sale_id)?
                .integer("stake_cents", *stake_cents)?
                .done(),
            PageMessage::RoundEnded {
                sale_id,
                prize_cents,
                verified,
            } => tag("round_ended")?
                .integer("sale_id", *sale_id)?
                .integer("prize_cents", *prize_cents)?
                .value("verified", &JsValue::from_bool(*verified))?
                .done(),
            PageMessage::InsufficientFunds => tag("insufficient_funds")?.done(),
            PageMessage::Error { code } => tag("error")?.text("code", code)?.done(),
            PageMessage::Resize { height } => tag("resize")?.integer("height", *height)?.done(),
        }
    }
}

/// The flat object: the commitment's fields, then its key and signature.
impl ToJs for SignedCommitment {
    fn to_js(&self) -> Result {
        let SignedCommitment {
            commitment:
                Commitment {
                    block,
                    stake_cents,
                    tickets,
                    money,
                    prize_table,
                    root,
                },
            public_key,
            signature,
        } = self;
        Properties::new()
            .integer("block", *block)?
            .integer("stake_cents", *stake_cents)?
            .integer("tickets", (*tickets).into())?
            .text("money", money.as_str())?
            .text("prize_table", &prize_table.to_hex())?
            .text("root", &root.to_hex())?
            .text("public_key", &public_key.to_hex())?
            .text("signature", &signature.to_hex())?
            .done()
    }
}

impl<T: ToJs> ToJs for [T] {
    fn to_js(&self) -> Result {
        let array = Array::new();
        for item in self {
            array.push(&item.to_js()?);
        }
        Ok(array.into())
    }
}
