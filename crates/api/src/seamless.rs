//! The seamless wallet API: the calls the game server makes to the
//! operator's wallet when the operator holds the money (`eldorado serve
//! --wallet URL`). The operator implements these four routes; the game server
//! and the example operator both use these types.
//!
//! Every call is `POST {URL}/{balance|debit|credit|rollback}` with a JSON body
//! and the header [`SIGNATURE_HEADER`] = `sha256=<lowercase hex
//! HMAC-SHA-256(secret, exact body bytes)>`. Only HTTP 200 with the JSON
//! answer below counts as an answer; a transaction id given again gets the
//! same answer and moves no money twice.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// The header that carries the signature of the request body.
pub const SIGNATURE_HEADER: &str = "X-Eldorado-Signature";

const SIGNATURE_PREFIX: &str = "sha256=";

/// `POST {URL}/balance`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::balance_call)))]
pub struct BalanceCall {
    /// The operator's id of the player (as in `POST /api/operator/sessions`).
    pub player_id: String,
}

/// The answer to `POST {URL}/balance`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::balance_answer)))]
pub struct BalanceAnswer {
    pub balance_cents: u64,
}

/// `POST {URL}/debit`: take the stake of one round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::debit_call)))]
pub struct DebitCall {
    /// `debit:<round_id>`; unique per debit, the key of its idempotency.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$"))]
    pub transaction_id: String,
    /// The game's id of the round (one ticket sold to one player).
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$"))]
    pub round_id: String,
    pub player_id: String,
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    pub amount_cents: u64,
}

/// `POST {URL}/credit`: pay the prize of a round that was sold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::credit_call)))]
pub struct CreditCall {
    /// `credit:<round_id>`.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$"))]
    pub transaction_id: String,
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$"))]
    pub round_id: String,
    pub player_id: String,
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    pub amount_cents: u64,
}

/// `POST {URL}/rollback`: undo a debit the game got no answer to. If the
/// operator does not know the original debit it remembers this rollback, so
/// that the debit, arriving late, is answered `refused` and moves nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::rollback_call)))]
pub struct RollbackCall {
    /// `rollback:<round_id>`.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$"))]
    pub transaction_id: String,
    /// The `transaction_id` of the debit to undo.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$"))]
    pub original_transaction_id: String,
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$"))]
    pub round_id: String,
    pub player_id: String,
    /// The amount of the original debit.
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    pub amount_cents: u64,
}

/// What the operator's wallet did with a debit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DebitStatus {
    /// The money was taken (or, for credit and rollback, given back).
    Ok,
    /// The player's balance does not cover the amount; nothing moved.
    InsufficientFunds,
    /// Any other refusal (account blocked, debit already rolled back...);
    /// nothing moved.
    Refused,
}

/// The answer to debit, credit and rollback. Credit and rollback answer
/// only `ok` (anything else is retried as no answer).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::wallet_answer)))]
pub struct WalletAnswer {
    pub status: DebitStatus,
    /// The player's balance at the operator after this transaction.
    pub balance_cents: u64,
}

/// Whether `id` is a valid transaction or round id: 1 to 64 characters of
/// `[A-Za-z0-9_.:-]`.
pub fn valid_transaction_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// The value of the [`SIGNATURE_HEADER`] for `body` under `secret`.
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    format!(
        "{SIGNATURE_PREFIX}{}",
        hex::encode(mac(secret, body).finalize().into_bytes())
    )
}

/// Whether `header` is the signature of `body` under `secret`; compared in
/// constant time.
pub fn verify(secret: &[u8], body: &[u8], header: &str) -> bool {
    let Some(hex_digest) = header.trim().strip_prefix(SIGNATURE_PREFIX) else {
        return false;
    };
    let Ok(digest) = hex::decode(hex_digest) else {
        return false;
    };
    mac(secret, body).verify_slice(&digest).is_ok()
}

/// The shared secret as read from its file: the content, without the
/// trailing line break an editor adds.
pub fn secret_from_file_content(content: &[u8]) -> &[u8] {
    let mut end = content.len();
    while end > 0 && matches!(content[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &content[..end]
}

fn mac(secret: &[u8], body: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(secret).expect("HMAC accepts any key length");
    mac.update(body);
    mac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_rfc4231_hmac_sha256() {
        // RFC 4231, test case 2.
        let signature = sign(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            signature,
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert!(verify(b"Jefe", b"what do ya want for nothing?", &signature));
        assert!(!verify(
            b"Jefe",
            b"what do ya want for nothing!",
            &signature
        ));
        assert!(!verify(
            b"jefe",
            b"what do ya want for nothing?",
            &signature
        ));
        assert!(!verify(
            b"Jefe",
            b"what do ya want for nothing?",
            &signature[7..]
        ));
        assert!(!verify(
            b"Jefe",
            b"what do ya want for nothing?",
            "sha256=zz"
        ));
    }

    #[test]
    fn secret_file_trailing_newline_is_not_part_of_the_key() {
        assert_eq!(secret_from_file_content(b"s3cret\n"), b"s3cret");
        assert_eq!(secret_from_file_content(b"s3cret\r\n"), b"s3cret");
        assert_eq!(secret_from_file_content(b"s3 cret"), b"s3 cret");
        assert_eq!(secret_from_file_content(b"\n"), b"");
    }

    #[test]
    fn transaction_ids() {
        assert!(valid_transaction_id("debit:r-17.3_a"));
        assert!(valid_transaction_id(&"a".repeat(64)));
        assert!(!valid_transaction_id(&"a".repeat(65)));
        assert!(!valid_transaction_id(""));
        assert!(!valid_transaction_id("debit 17"));
        assert!(!valid_transaction_id("débit"));
    }

    #[test]
    fn statuses_on_the_wire() {
        let answer: WalletAnswer =
            serde_json::from_str(r#"{"status":"insufficient_funds","balance_cents":40}"#).unwrap();
        assert_eq!(answer.status, DebitStatus::InsufficientFunds);
        assert_eq!(
            serde_json::to_string(&DebitStatus::Refused).unwrap(),
            r#""refused""#
        );
    }
}
