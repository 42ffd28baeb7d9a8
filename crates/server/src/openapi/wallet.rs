//! The OpenAPI document of the seamless wallet API: the four calls the
//! OPERATOR implements and the game server makes (`eldorado serve --wallet
//! URL`), generated from the `eldorado_api::seamless` types. Served at
//! `/api/wallet-openapi.json` and kept in `docs/wallet-openapi.json`, which
//! a test holds to this document.
//!
//! The functions below are never called: they carry the description of
//! each operation for utoipa.

use eldorado_api::seamless::{
    BalanceAnswer, BalanceCall, CreditCall, DebitCall, DebitStatus, RollbackCall, WalletAnswer,
};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[utoipa::path(post, path = "/balance", tag = "wallet", security(("signature" = [])),
    request_body = BalanceCall,
    responses(
        (status = 200, description = "The player's balance", body = BalanceAnswer),
        (status = 401, description = "Bad or missing `X-Eldorado-Signature`"),
        (status = 404, description = "Unknown player: no answer to the game, which opens no \
            session (503 `WALLET_UNAVAILABLE`)"),
    ))]
pub fn balance() {}

#[utoipa::path(post, path = "/debit", tag = "wallet", security(("signature" = [])),
    request_body = DebitCall,
    responses(
        (status = 200, description = "`ok`: the stake was taken and the ticket is sold. \
            `insufficient_funds` or `refused`: nothing moved; the ticket goes to another buyer. \
            A debit whose rollback came first is answered `refused` (remember such a rollback for at \
            least 7 days). An unknown player is `refused` with `balance_cents` 0. The same \
            `transaction_id` again gets the same answer, `balance_cents` included, and moves \
            nothing.", body = WalletAnswer),
        (status = 400, description = "A body not of this schema (the game sends none): no answer to \
            the game, which sends a credit or rollback again and rolls a debit back"),
        (status = 401, description = "Bad or missing `X-Eldorado-Signature`"),
        (status = 409, description = "This `transaction_id` is held with another body: nothing moved. \
            Final: the game releases the round, queues no rollback and logs an ERROR"),
    ))]
pub fn debit() {}

#[utoipa::path(post, path = "/credit", tag = "wallet", security(("signature" = [])),
    request_body = CreditCall,
    responses(
        (status = 200, description = "`ok` once the prize is paid (or was, for a repeat). \
            The game sends it again, with the same `transaction_id`, until it gets `ok`; calls with \
            one id may overlap: apply it once. A prize is owed even to a closed account.", body = WalletAnswer),
        (status = 400, description = "A body not of this schema (the game sends none): no answer to \
            the game, which sends a credit or rollback again and rolls a debit back"),
        (status = 401, description = "Bad or missing `X-Eldorado-Signature`"),
        (status = 409, description = "This `transaction_id` is held with another body: nothing moved. \
            Final: the game never sends this call again and logs an ERROR"),
    ))]
pub fn credit() {}

#[utoipa::path(post, path = "/rollback", tag = "wallet", security(("signature" = [])),
    request_body = RollbackCall,
    responses(
        (status = 200, description = "`ok` once the debit `original_transaction_id` is undone \
            (or was never applied: then remember it and answer that debit `refused` if it ever \
            arrives). Undo what the debit took, whatever amount the rollback states, and at most \
            once whatever the number of rollbacks naming it and their ids. Sent again with the same \
            `transaction_id` until it gets `ok`.", body = WalletAnswer),
        (status = 400, description = "A body not of this schema (the game sends none): no answer to \
            the game, which sends a credit or rollback again and rolls a debit back"),
        (status = 401, description = "Bad or missing `X-Eldorado-Signature`"),
        (status = 409, description = "This `transaction_id` is held with another body: nothing moved. \
            Final: the game never sends this call again and logs an ERROR"),
    ))]
pub fn rollback() {}

/// The signature header as a security scheme.
struct Signature;

impl Modify for Signature {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        openapi
            .components
            .get_or_insert_with(Default::default)
            .add_security_scheme(
                "signature",
                SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                    eldorado_api::seamless::SIGNATURE_HEADER,
                    "`sha256=` then the lowercase hex HMAC-SHA-256 of the exact request body \
                     bytes under the shared secret: the raw bytes of the game server's \
                     `--wallet-secret-file`, without the line breaks at its end (not \
                     hex-decoded)",
                ))),
            );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Eldorado seamless wallet (implemented by the operator)",
        version = "1",
        description = "The calls an Eldorado game server started with `--wallet URL` makes to \
            the operator's wallet: `POST URL/balance`, `URL/debit`, `URL/credit`, `URL/rollback`, \
            JSON bodies, amounts in integer cents. Only HTTP 200 with the JSON answer counts as an \
            answer; a timeout (`--wallet-timeout-ms`), any other status or bad JSON is no answer, \
            except 409 (a `transaction_id` held with another body), which is final. \
            Every call is idempotent by `transaction_id` (`debit:<round_id>`, \
            `credit:<round_id>`, `rollback:<round_id>`; at most 64 characters of `[A-Za-z0-9_.:-]`). \
            See docs/OPERATOR.md."
    ),
    paths(balance, debit, credit, rollback),
    components(schemas(
        BalanceCall, BalanceAnswer, DebitCall, CreditCall, RollbackCall, WalletAnswer, DebitStatus,
    )),
    modifiers(&Signature)
)]
struct WalletApiDoc;

pub fn document() -> utoipa::openapi::OpenApi {
    WalletApiDoc::openapi()
}

/// The document as written to `docs/wallet-openapi.json`.
pub fn pretty() -> String {
    let mut text = serde_json::to_string_pretty(&document()).expect("the document serialises");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;
    use serde::Serialize;
    use serde_json::Value;
    use std::path::PathBuf;

    fn file() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/wallet-openapi.json")
    }

    /// The published file is this document. To write it again:
    /// `ELDORADO_WRITE_WALLET_OPENAPI=1 cargo test -p eldorado-server --lib wallet_openapi`.
    #[test]
    fn wallet_openapi_file_matches_the_types() {
        if std::env::var_os("ELDORADO_WRITE_WALLET_OPENAPI").is_some() {
            std::fs::write(file(), pretty()).unwrap();
        }
        let published = std::fs::read_to_string(file()).unwrap_or_default();
        assert!(
            published == pretty(),
            "docs/wallet-openapi.json is out of date: run \
             ELDORADO_WRITE_WALLET_OPENAPI=1 cargo test -p eldorado-server --lib wallet_openapi"
        );
    }

    fn round_trips<T: DeserializeOwned + Serialize>(example: &Value) {
        let parsed: T = serde_json::from_value(example.clone()).expect("the example parses");
        assert_eq!(&serde_json::to_value(parsed).unwrap(), example);
    }

    #[test]
    fn wallet_openapi_examples_are_the_wire_format() {
        let doc = serde_json::to_value(document()).unwrap();
        let schemas = &doc["components"]["schemas"];
        type Check = (&'static str, fn(&Value));
        let checks: [Check; 6] = [
            ("BalanceCall", round_trips::<BalanceCall>),
            ("BalanceAnswer", round_trips::<BalanceAnswer>),
            ("DebitCall", round_trips::<DebitCall>),
            ("CreditCall", round_trips::<CreditCall>),
            ("RollbackCall", round_trips::<RollbackCall>),
            ("WalletAnswer", round_trips::<WalletAnswer>),
        ];
        for (name, check) in checks {
            let examples = schemas[name]["examples"].as_array();
            let examples = examples.unwrap_or_else(|| panic!("{name} has no example"));
            assert!(!examples.is_empty(), "{name}");
            examples.iter().for_each(check);
        }
        let paths: Vec<&String> = doc["paths"].as_object().unwrap().keys().collect();
        assert_eq!(paths, ["/balance", "/credit", "/debit", "/rollback"]);
        for path in paths {
            assert_eq!(
                doc["paths"][path]["post"]["security"],
                serde_json::json!([{"signature": []}])
            );
        }
    }
}
