//! A randomness beacon's HTTP answers (`eldorado beacon`), in the shape of
//! drand's v1 HTTP API so that a client reads a drand relay the same way:
//! `GET /info` and `GET /public/latest` or `/public/{round}`.

use serde::{Deserialize, Serialize};

/// `GET /info`: what a verifier pins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeaconInfo {
    /// The compressed G2 public key, 96 bytes in lowercase hex.
    pub public_key: String,
    /// Always `bls-unchained-g1-rfc9380`.
    #[serde(rename = "schemeID")]
    pub scheme_id: String,
    /// When round 1 is published, in milliseconds since the Unix epoch
    /// (drand's `genesis_time` is in seconds; this beacon's periods are
    /// shorter than one). Absent from a drand relay's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub genesis_time_ms: Option<u64>,
    /// Milliseconds between two rounds (absent from drand's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_ms: Option<u64>,
    /// A drand relay's genesis, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub genesis_time: Option<u64>,
    /// A drand relay's period, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<u64>,
}

impl BeaconInfo {
    /// Genesis and period in milliseconds, from this beacon's fields or a
    /// drand relay's; `None` without either pair or with a period of 0.
    pub fn schedule_ms(&self) -> Option<(u64, u64)> {
        let pair = match (self.genesis_time_ms, self.period_ms) {
            (Some(genesis), Some(period)) => (genesis, period),
            _ => (
                self.genesis_time?.checked_mul(1000)?,
                self.period?.checked_mul(1000)?,
            ),
        };
        (pair.1 > 0).then_some(pair)
    }
}

/// `GET /public/{round}`: one published round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeaconRound {
    pub round: u64,
    /// `SHA-256(signature)`, 32 bytes in lowercase hex.
    pub randomness: String,
    /// The compressed G1 signature, 48 bytes in lowercase hex.
    pub signature: String,
}

impl BeaconRound {
    /// The signature's bytes, `None` unless it is 48 bytes of hex. The
    /// served `randomness` is never read: it is the signature's hash, which
    /// a verifier computes from the signature it verified.
    pub fn signature_bytes(&self) -> Option<[u8; eldorado_engine::deal::BEACON_SIGNATURE_LEN]> {
        hex::decode(&self.signature).ok()?.try_into().ok()
    }
}

/// The League of Entropy's drand network `quicknet`, the public beacon of
/// this scheme: its chain info as `GET /{chain}/info` gives it (the key in
/// lowercase hex, the schedule in milliseconds). A beacon with any other
/// key is not a public drand network: the operator's own, or a demo's.
pub const QUICKNET_PUBLIC_KEY: &str = "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a";
pub const QUICKNET_GENESIS_MS: u64 = 1_692_803_367_000;
pub const QUICKNET_PERIOD_MS: u64 = 3_000;

/// Its first 16 bytes: what the page compares a key with, the whole key
/// costing its first download 100 bytes more for no more certainty (a
/// point of G2 with 16 chosen bytes is out of reach).
pub const QUICKNET_KEY_PREFIX: &str = "83cf0f2896adee7eb8b5f01fcad39122";

/// Whether `public_key` (hex) is a public drand network's.
pub fn is_public_network(public_key: &str) -> bool {
    public_key.eq_ignore_ascii_case(QUICKNET_PUBLIC_KEY)
}

/// `GET /api/config` `.dealing`: the beacon a server deals every sale
/// from (`eldorado serve --beacon`), for the page and the auditor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Dealing {
    /// The beacon's base URL as the server reaches it.
    pub beacon_url: String,
    /// The beacon's public key the operator pinned (96 bytes in hex).
    pub public_key: String,
    pub genesis_time_ms: u64,
    pub period_ms: u64,
    /// What the server allows its witnesses to cosign a purchase: it is
    /// dealt by the first round published after the second that this many
    /// milliseconds after the purchase falls in.
    pub lead_ms: u64,
    /// The beacon is not a public drand network ([`is_public_network`]):
    /// a demo's, or the operator's own, whose key holder could compute
    /// rounds ahead. The page says « tirage de démonstration ».
    #[serde(default)]
    pub demo: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quicknet_is_the_public_network_and_its_schedule_is_the_relays() {
        let drand = r#"{"public_key":"83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a","period":3,"genesis_time":1692803367,"schemeID":"bls-unchained-g1-rfc9380"}"#;
        let info: BeaconInfo = serde_json::from_str(drand).unwrap();
        assert!(is_public_network(&info.public_key));
        assert_eq!(
            info.schedule_ms(),
            Some((QUICKNET_GENESIS_MS, QUICKNET_PERIOD_MS))
        );
        assert!(!is_public_network(&"ab".repeat(96)));
        assert!(QUICKNET_PUBLIC_KEY.starts_with(QUICKNET_KEY_PREFIX));
    }

    #[test]
    fn a_drand_relay_and_this_beacon_both_give_their_schedule() {
        // The League of Entropy's quicknet, as `GET /{chain}/info` answers.
        let drand = r#"{"public_key":"83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a","period":3,"genesis_time":1692803367,"hash":"52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971","groupHash":"f477d5c89f21a17c863a7f937c6a6d15859414d2be09cd448d4279af331c5d3e","schemeID":"bls-unchained-g1-rfc9380","metadata":{"beaconID":"quicknet"}}"#;
        let info: BeaconInfo = serde_json::from_str(drand).unwrap();
        assert_eq!(info.schedule_ms(), Some((1_692_803_367_000, 3_000)));
        let ours = r#"{"public_key":"ab","schemeID":"bls-unchained-g1-rfc9380","genesis_time_ms":0,"period_ms":500}"#;
        let info: BeaconInfo = serde_json::from_str(ours).unwrap();
        assert_eq!(info.schedule_ms(), Some((0, 500)));
        let none = r#"{"public_key":"ab","schemeID":"bls-unchained-g1-rfc9380","period_ms":0,"genesis_time_ms":0}"#;
        let info: BeaconInfo = serde_json::from_str(none).unwrap();
        assert_eq!(info.schedule_ms(), None);
    }
}
