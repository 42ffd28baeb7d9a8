//! The page's boundary with JavaScript values: the API types (their serde
//! derives) read and written by serde-wasm-bindgen. Read: the server's
//! answers as `JSON.parse` gives them, the portal's posted messages, the
//! commitment book saved in `localStorage`. Written: request bodies, the
//! messages posted to the portal and the saved book, all as JSON has them.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;

pub use serde_wasm_bindgen::Error;

/// `value` read as a `T`; a value of another shape is an error, never a
/// value read in part.
pub fn read<T: DeserializeOwned>(value: &JsValue) -> Result<T, Error> {
    serde_wasm_bindgen::from_value(value.clone())
}

/// `value` as `JSON.parse` would give its JSON: plain objects (never a
/// `Map`, which `JSON.stringify` drops), `null` for `None`, and an integer
/// beyond 2^53 refused rather than rounded.
pub fn write<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, Error> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
}

/// `value` as JSON text: the same text as [`write`]'s value stringified.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    js_sys::JSON::stringify(&write(value)?)
        .map(String::from)
        .map_err(|_| Error::new("not writable as JSON"))
}
