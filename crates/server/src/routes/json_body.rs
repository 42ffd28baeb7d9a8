//! How a request body becomes an API type: the rules of JSON Schema, which
//! the OpenAPI document promises, rather than serde's looser or stricter
//! habits. Every body is an object (serde would also read a struct from an
//! array such as `[null, null]`), and a whole number written with a
//! fraction (`473.0`) is the integer it equals, as JSON Schema's `integer`
//! says (serde would refuse it for a `u64`).

use crate::error::ApiError;
use serde::de::DeserializeOwned;
use serde_json::{Number, Value};

/// The largest magnitude below which every whole `f64` is exactly an integer
/// that a client can have meant (2^53): beyond it a float is not one number.
const EXACT_FLOAT_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Parses a request body; an empty body and `null` are `{}` (a body the
/// document marks optional may be left out or sent as `null`; any other
/// body then lacks its required fields).
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut value: Value = if bytes.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        serde_json::from_slice(bytes)
            .map_err(|e| ApiError::BadRequest(format!("invalid JSON body: {e}")))?
    };
    if value.is_null() {
        value = Value::Object(Default::default());
    }
    if !value.is_object() {
        return Err(ApiError::BadRequest(
            "the request body must be a JSON object".to_owned(),
        ));
    }
    whole_floats_to_integers(&mut value);
    serde_json::from_value(value)
        .map_err(|e| ApiError::BadRequest(format!("invalid JSON body: {e}")))
}

fn whole_floats_to_integers(value: &mut Value) {
    match value {
        Value::Number(number) => {
            if let Some(integer) = whole_float(number) {
                *number = integer;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_floats_to_integers),
        Value::Object(fields) => fields.values_mut().for_each(whole_floats_to_integers),
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}

fn whole_float(number: &Number) -> Option<Number> {
    if !number.is_f64() {
        return None;
    }
    let float = number.as_f64()?;
    if float.fract() != 0.0 || float.abs() > EXACT_FLOAT_LIMIT {
        return None;
    }
    // Exact: a whole float of magnitude at most 2^53 fits an i64.
    Some(Number::from(float as i64))
}

#[cfg(test)]
mod tests {
    use super::parse;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Limits {
        a: Option<u64>,
        b: Option<u64>,
    }

    #[test]
    fn a_struct_is_read_from_an_object_only() {
        assert_eq!(
            parse::<Limits>(br#"{"a":1,"b":null}"#).unwrap(),
            Limits {
                a: Some(1),
                b: None
            }
        );
        for body in [&b"[null,null]"[..], b"[1,2]", b"[]", b"7", b"\"x\""] {
            assert!(
                parse::<Limits>(body).is_err(),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn an_empty_body_or_null_is_an_empty_object() {
        for body in [&b""[..], b"  \n", b"null"] {
            assert_eq!(parse::<Limits>(body).unwrap(), Limits { a: None, b: None });
        }
    }

    #[test]
    fn a_whole_number_written_with_a_fraction_is_that_integer() {
        assert_eq!(
            parse::<Limits>(br#"{"a":473.0,"b":1e3}"#).unwrap(),
            Limits {
                a: Some(473),
                b: Some(1000)
            }
        );
        for body in [
            &br#"{"a":473.5}"#[..],
            br#"{"a":-1.0}"#,
            br#"{"a":1e300}"#,
            br#"{"a":18014398509481984.0}"#,
        ] {
            assert!(
                parse::<Limits>(body).is_err(),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
