//! Fixed-size byte strings shown as lowercase hex: salts, hashes, keys, signatures.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// `bytes` as lowercase hex, as `hex::encode` writes them. One non-generic
/// loop: `hex::encode` collects a char iterator, whose code the browser's
/// bundle would carry as well.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 15)]));
    }
    out
}

/// Hex `text` filling `out` exactly, as `hex::decode_to_slice` reads it: two
/// ASCII hex digits of either case per byte and nothing else; `false`
/// otherwise. Shared by every length, and by the page's reader.
pub fn decode_hex(text: &str, out: &mut [u8]) -> bool {
    if text.len() != 2 * out.len() {
        return false;
    }
    let digit = |c: u8| char::from(c).to_digit(16);
    for (byte, pair) in out.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
        match (digit(pair[0]), digit(pair[1])) {
            (Some(high), Some(low)) => *byte = (high * 16 + low) as u8,
            _ => return false,
        }
    }
    true
}

/// Declares a byte-array newtype with hex text and serde forms.
macro_rules! hex_bytes {
    ($(#[$meta:meta])* $name:ident, $len:expr) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub [u8; $len]);

        impl $name {
            pub const LEN: usize = $len;

            pub fn to_hex(&self) -> String {
                crate::fixed_bytes::to_hex(&self.0)
            }

            pub fn from_hex(text: &str) -> Result<Self, crate::fixed_bytes::HexError> {
                let mut bytes = [0u8; $len];
                if !crate::fixed_bytes::decode_hex(text, &mut bytes) {
                    return Err(crate::fixed_bytes::HexError {
                        what: stringify!($name),
                        expected_len: $len,
                    });
                }
                Ok($name(bytes))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.to_hex())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.to_hex())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.to_hex())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                $name::from_hex(&text).map_err(serde::de::Error::custom)
            }
        }
    };
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} must be {expected_len} bytes as lowercase or uppercase hex")]
pub struct HexError {
    pub what: &'static str,
    pub expected_len: usize,
}

hex_bytes!(
    /// A ticket's secret salt: 128 random bits, revealed only when it is sold.
    Salt,
    16
);
hex_bytes!(
    /// The buyer's fresh 128-bit random number, signed into its sale so that
    /// no other sale can be replayed as the answer to this purchase.
    ClientNonce,
    16
);
hex_bytes!(
    /// A SHA-256 digest.
    Hash,
    32
);
hex_bytes!(
    /// An Ed25519 public key.
    PublicKeyBytes,
    32
);
hex_bytes!(
    /// An Ed25519 signature.
    SignatureBytes,
    64
);

#[cfg(test)]
mod tests {
    #[test]
    fn to_hex_writes_as_hex_encode_does() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(super::to_hex(&bytes), hex::encode(&bytes));
        assert_eq!(super::to_hex(&[]), "");
    }

    #[test]
    fn decode_hex_reads_as_hex_decode_to_slice_does() {
        for text in [
            "", "0", "00", "0a", "0A", "ff", "Ff", "g0", "0g", "000", "0000", "+1", " 1", "é",
            "éé", "00ff", "aBcD", "12 4",
        ] {
            for len in 0..3 {
                let (mut ours, mut theirs) = ([0u8; 2], [0u8; 2]);
                let ok = super::decode_hex(text, &mut ours[..len]);
                let expected = hex::decode_to_slice(text, &mut theirs[..len]).is_ok();
                assert_eq!(ok, expected, "{text:?} into {len}");
                if ok {
                    assert_eq!(ours, theirs, "{text:?}");
                }
            }
        }
    }
}
