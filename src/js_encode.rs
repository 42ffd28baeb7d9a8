//! Writes an API value as a JavaScript value: serde-wasm-bindgen's
//! `Serializer::json_compatible()` (0.6) rule for rule (plain objects,
//! `null` for `None` and `()`, integers beyond 2^53 refused), with the
//! refusal carrying no message, as in [`crate::js_read`]. Why: that
//! serializer's interned-key cache and error texts cost the bundle more than
//! this whole module.

use crate::js_read::Refused;
use js_sys::{Array, JsString, Number, Object, Reflect, Uint8Array};
use serde::ser::{self, Serialize};
use wasm_bindgen::{JsCast, JsValue};

type Result<T = JsValue> = std::result::Result<T, Refused>;

impl ser::Error for Refused {
    fn custom<T: std::fmt::Display>(_msg: T) -> Self {
        Refused
    }
}

/// The value as `serde_wasm_bindgen::Serializer::json_compatible()` writes it.
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result {
    value.serialize(Writer)
}

#[derive(Clone, Copy)]
struct Writer;

/// Not generic: one copy for every key.
#[inline(never)]
fn set(target: &JsValue, key: &JsValue, value: &JsValue) -> Result<()> {
    Reflect::set(target, key, value)
        .map(drop)
        .map_err(|_| Refused)
}

fn number(v: f64) -> JsValue {
    JsValue::from_f64(v)
}

/// Serializes into an array.
struct Items(Array);

/// Serializes a map into a plain object (string keys only).
struct Entries {
    target: Object,
    key: Option<JsValue>,
}

/// Serializes a struct into a plain object.
struct Fields(Object);

/// Wraps a variant's content as `{ variant: content }`.
struct Variant<S> {
    name: &'static str,
    inner: S,
}

fn wrap(name: &'static str, content: JsValue) -> Result {
    let object = Object::new();
    set(&object, &JsValue::from_str(name), &content)?;
    Ok(object.into())
}

impl ser::SerializeSeq for Items {
    type Ok = JsValue;
    type Error = Refused;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.0.push(&value.serialize(Writer)?);
        Ok(())
    }

    fn end(self) -> Result {
        Ok(self.0.into())
    }
}

impl ser::SerializeTuple for Items {
    type Ok = JsValue;
    type Error = Refused;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result {
        Ok(self.0.into())
    }
}

impl ser::SerializeTupleStruct for Items {
    type Ok = JsValue;
    type Error = Refused;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result {
        Ok(self.0.into())
    }
}

impl ser::SerializeTupleVariant for Variant<Items> {
    type Ok = JsValue;
    type Error = Refused;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        ser::SerializeSeq::serialize_element(&mut self.inner, value)
    }

    fn end(self) -> Result {
        wrap(self.name, self.inner.0.into())
    }
}

impl ser::SerializeMap for Entries {
    type Ok = JsValue;
    type Error = Refused;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key.serialize(Writer)?);
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let key = self.key.take().ok_or(Refused)?;
        let value = value.serialize(Writer)?;
        let key = key.dyn_into::<JsString>().map_err(|_| Refused)?;
        set(&self.target, &key, &value)
    }

    fn end(self) -> Result {
        Ok(self.target.into())
    }
}

impl ser::SerializeStruct for Fields {
    type Ok = JsValue;
    type Error = Refused;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        let value = value.serialize(Writer)?;
        set(&self.0, &JsValue::from_str(key), &value)
    }

    fn end(self) -> Result {
        Ok(self.0.into())
    }
}

impl ser::SerializeStructVariant for Variant<Fields> {
    type Ok = JsValue;
    type Error = Refused;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        ser::SerializeStruct::serialize_field(&mut self.inner, key, value)
    }

    fn end(self) -> Result {
        wrap(self.name, self.inner.0.into())
    }
}

impl ser::Serializer for Writer {
    type Ok = JsValue;
    type Error = Refused;
    type SerializeSeq = Items;
    type SerializeTuple = Items;
    type SerializeTupleStruct = Items;
    type SerializeTupleVariant = Variant<Items>;
    type SerializeMap = Entries;
    type SerializeStruct = Fields;
    type SerializeStructVariant = Variant<Fields>;

    fn serialize_bool(self, v: bool) -> Result {
        Ok(JsValue::from_bool(v))
    }

    fn serialize_i8(self, v: i8) -> Result {
        Ok(number(v.into()))
    }

    fn serialize_i16(self, v: i16) -> Result {
        Ok(number(v.into()))
    }

    fn serialize_i32(self, v: i32) -> Result {
        Ok(number(v.into()))
    }

    fn serialize_u8(self, v: u8) -> Result {
        Ok(number(v.into()))
    }

    fn serialize_u16(self, v: u16) -> Result {
        Ok(number(v.into()))
    }

    fn serialize_u32(self, v: u32) -> Result {
        Ok(number(v.into()))
    }

    fn serialize_f32(self, v: f32) -> Result {
        Ok(number(v.into()))
    }

    fn serialize_f64(self, v: f64) -> Result {
        Ok(number(v))
    }

    fn serialize_str(self, v: &str) -> Result {
        Ok(JsValue::from_str(v))
    }

    fn serialize_i64(self, v: i64) -> Result {
        let safe = Number::MAX_SAFE_INTEGER as i64;
        if (-safe..=safe).contains(&v) {
            Ok(number(v as f64))
        } else {
            Err(Refused)
        }
    }

    fn serialize_u64(self, v: u64) -> Result {
        if v <= Number::MAX_SAFE_INTEGER as u64 {
            Ok(number(v as f64))
        } else {
            Err(Refused)
        }
    }

    fn serialize_i128(self, v: i128) -> Result {
        Ok(JsValue::from(v))
    }

    fn serialize_u128(self, v: u128) -> Result {
        Ok(JsValue::from(v))
    }

    fn serialize_char(self, v: char) -> Result {
        Ok(JsString::from(v).into())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result {
        Ok(Array::from(&Uint8Array::from(v)).into())
    }

    fn serialize_none(self) -> Result {
        Ok(JsValue::NULL)
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result {
        Ok(JsValue::NULL)
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        Ok(JsValue::NULL)
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        variant: &'static str,
    ) -> Result {
        Ok(JsValue::from_str(variant))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _variant_index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        wrap(variant, value.serialize(self)?)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Items> {
        Ok(Items(Array::new()))
    }

    fn serialize_tuple(self, _len: usize) -> Result<Items> {
        Ok(Items(Array::new()))
    }

    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Items> {
        Ok(Items(Array::new()))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Variant<Items>> {
        Ok(Variant {
            name: variant,
            inner: Items(Array::new()),
        })
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Entries> {
        Ok(Entries {
            target: Object::new(),
            key: None,
        })
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Fields> {
        Ok(Fields(Object::new()))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Variant<Fields>> {
        Ok(Variant {
            name: variant,
            inner: Fields(Object::new()),
        })
    }
}
