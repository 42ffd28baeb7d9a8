//! Reads a JavaScript value (a parsed JSON answer, a posted message, a
//! stored receipt) into an API type: serde-wasm-bindgen's `Deserializer`
//! (0.6) rule for rule, with one difference: a refusal carries no message.
//!
//! Why: the page only ever asks *whether* a value has the contract's shape
//! (a refusal becomes `NetError::Decode` or is ignored). serde-wasm-bindgen
//! formats every refusal into a `JsError` text, and that text is what keeps
//! serde's error messages, `Unexpected::Float` and with it the whole float
//! printer (about 20 KB of the module) in the bundle.

use js_sys::{Array, ArrayBuffer, JsString, Map, Number, Object, Reflect, Symbol, Uint8Array};
use serde::de::{self, DeserializeOwned, Visitor};
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

impl serde::ser::Error for Refused {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        Refused
    }
}

impl de::Error for Refused {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        Refused
    }
}

type Result<T> = std::result::Result<T, Refused>;

/// `serde_wasm_bindgen::from_value`, without the refusal's message.
pub fn from_value<T: DeserializeOwned>(value: JsValue) -> Result<T> {
    T::deserialize(Reader(value))
}

struct Reader(JsValue);

impl Reader {
    fn is_nullish(&self) -> bool {
        self.0.loose_eq(&JsValue::NULL)
    }

    fn as_bytes(&self) -> Option<Vec<u8>> {
        if let Some(v) = self.0.dyn_ref::<Uint8Array>() {
            Some(v.to_vec())
        } else {
            self.0
                .dyn_ref::<ArrayBuffer>()
                .map(|v| Uint8Array::new(v).to_vec())
        }
    }

    fn as_safe_integer(&self) -> Option<i64> {
        Number::is_safe_integer(&self.0).then(|| self.0.unchecked_into_f64() as i64)
    }

    fn signed<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.as_safe_integer() {
            Some(v) => visitor.visit_i64(v),
            None => Err(Refused),
        }
    }

    fn unsigned<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.as_safe_integer() {
            Some(v) if v >= 0 => visitor.visit_u64(v as u64),
            _ => Err(Refused),
        }
    }

    fn array<'de, V: Visitor<'de>>(array: &Array, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(Items(array.iter()))
    }

    fn entries(&self) -> Option<Array> {
        self.0
            .is_object()
            .then(|| Object::entries(self.0.unchecked_ref()))
    }

    fn iterator(&self) -> Result<Option<js_sys::IntoIter>> {
        js_sys::try_iter(&self.0).map_err(|_| Refused)
    }
}

/// An array's elements, or a JavaScript iterable's values.
struct Items<I>(I);

impl<'de, I: Iterator<Item = JsValue>> de::SeqAccess<'de> for Items<I> {
    type Error = Refused;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>> {
        self.0
            .next()
            .map(|v| seed.deserialize(Reader(v)))
            .transpose()
    }
}

struct JsIterItems(js_sys::IntoIter);

impl<'de> de::SeqAccess<'de> for JsIterItems {
    type Error = Refused;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>> {
        match self.0.next().transpose().map_err(|_| Refused)? {
            Some(v) => seed.deserialize(Reader(v)).map(Some),
            None => Ok(None),
        }
    }
}

/// `[key, value]` pairs: `Object.entries` of a plain object, or the values
/// of an iterable such as a `Map`.
struct Pairs<I> {
    pairs: I,
    value: Option<JsValue>,
}

fn split(pair: JsValue) -> (JsValue, JsValue) {
    let pair = pair.unchecked_into::<Array>();
    (pair.get(0), pair.get(1))
}

impl<'de, I: Iterator<Item = Result<JsValue>>> de::MapAccess<'de> for Pairs<I> {
    type Error = Refused;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.pairs.next().transpose()? {
            Some(pair) => {
                let (key, value) = split(pair);
                self.value = Some(value);
                seed.deserialize(Reader(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(Reader(self.value.take().ok_or(Refused)?))
    }
}

/// A struct's fields, looked up by name in the object; a field absent from
/// the object (not merely `undefined`) is skipped.
struct Fields {
    object: JsValue,
    fields: std::slice::Iter<'static, &'static str>,
    value: Option<JsValue>,
}

impl Fields {
    /// The next field present in the object, its value kept for
    /// `next_value_seed`. Not generic: one copy for every struct.
    #[inline(never)]
    fn advance(&mut self) -> Result<Option<&'static str>> {
        for field in &mut self.fields {
            let key = JsValue::from_str(field);
            let value = Reflect::get(&self.object, &key).map_err(|_| Refused)?;
            let missing =
                value.is_undefined() && !Reflect::has(&self.object, &key).map_err(|_| Refused)?;
            if !missing {
                self.value = Some(value);
                return Ok(Some(field));
            }
        }
        Ok(None)
    }
}

impl<'de> de::MapAccess<'de> for Fields {
    type Error = Refused;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.advance()? {
            Some(field) => {
                let name: de::value::StrDeserializer<'_, Refused> =
                    de::IntoDeserializer::into_deserializer(field);
                seed.deserialize(name).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(Reader(self.value.take().ok_or(Refused)?))
    }
}

struct Variant {
    tag: JsValue,
    payload: JsValue,
}

impl<'de> de::EnumAccess<'de> for Variant {
    type Error = Refused;
    type Variant = Reader;

    fn variant_seed<V: de::DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Reader)> {
        Ok((seed.deserialize(Reader(self.tag))?, Reader(self.payload)))
    }
}

impl<'de> de::VariantAccess<'de> for Reader {
    type Error = Refused;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(self)
    }

    fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_tuple(self, len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}

impl<'de> de::Deserializer<'de> for Reader {
    type Error = Refused;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.is_nullish() {
            visitor.visit_unit()
        } else if let Some(v) = self.0.as_bool() {
            visitor.visit_bool(v)
        } else if self.0.is_bigint() {
            match i64::try_from(self.0) {
                Ok(v) => visitor.visit_i64(v),
                Err(value) => visitor.visit_u64(u64::try_from(value).map_err(|_| Refused)?),
            }
        } else if let Some(v) = self.0.as_f64() {
            match self.as_safe_integer() {
                Some(i) => visitor.visit_i64(i),
                None => visitor.visit_f64(v),
            }
        } else if let Some(v) = self.0.as_string() {
            visitor.visit_string(v)
        } else if Array::is_array(&self.0) {
            self.deserialize_seq(visitor)
        } else if let Some(bytes) = self.as_bytes() {
            visitor.visit_byte_buf(bytes)
        } else if self.0.is_object()
            && (!Reflect::has(&self.0, &Symbol::iterator()).map_err(|_| Refused)?
                || self.0.is_instance_of::<Map>())
        {
            self.deserialize_map(visitor)
        } else {
            Err(Refused)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.is_nullish() {
            visitor.visit_unit()
        } else {
            Err(Refused)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_bool(self.0.as_bool().ok_or(Refused)?)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_f64(self.0.as_f64().ok_or(Refused)?)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_string(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_string(self.0.as_string().ok_or(Refused)?)
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.signed(visitor)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.signed(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.signed(visitor)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.0.is_bigint() {
            visitor.visit_i64(i64::try_from(self.0).map_err(|_| Refused)?)
        } else {
            self.signed(visitor)
        }
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.unsigned(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.unsigned(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.unsigned(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.0.is_bigint() {
            visitor.visit_u64(u64::try_from(self.0).map_err(|_| Refused)?)
        } else {
            self.unsigned(visitor)
        }
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.0.is_bigint() {
            visitor.visit_i128(i128::try_from(self.0).map_err(|_| Refused)?)
        } else {
            Err(Refused)
        }
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.0.is_bigint() {
            visitor.visit_u128(u128::try_from(self.0).map_err(|_| Refused)?)
        } else {
            Err(Refused)
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0.dyn_ref::<JsString>().and_then(JsString::as_char) {
            Some(c) => visitor.visit_char(c),
            None => Err(Refused),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.is_nullish() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(array) = self.0.dyn_ref::<Array>() {
            Self::array(array, visitor)
        } else if let Some(iter) = self.iterator()? {
            visitor.visit_seq(JsIterItems(iter))
        } else {
            Err(Refused)
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.iterator()? {
            Some(iter) => visitor.visit_map(Pairs {
                pairs: iter.map(|pair| pair.map_err(|_| Refused)),
                value: None,
            }),
            None => match self.entries() {
                Some(entries) => visitor.visit_map(Pairs {
                    pairs: entries.iter().map(Ok),
                    value: None,
                }),
                None => Err(Refused),
            },
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if !self.0.is_object() {
            return Err(Refused);
        }
        visitor.visit_map(Fields {
            object: self.0,
            fields: fields.iter(),
            value: None,
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let variant = if self.0.is_string() {
            Variant {
                tag: self.0,
                payload: JsValue::UNDEFINED,
            }
        } else if let Some(entries) = self.entries() {
            if entries.length() != 1 {
                return Err(Refused);
            }
            let (tag, payload) = split(entries.get(0));
            Variant { tag, payload }
        } else {
            return Err(Refused);
        };
        visitor.visit_enum(variant)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_byte_buf(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(bytes) = self.as_bytes() {
            visitor.visit_byte_buf(bytes)
        } else if let Some(array) = self.0.dyn_ref::<Array>() {
            Self::array(array, visitor)
        } else {
            Err(Refused)
        }
    }
}
