//! The page's trust policy, `www/pkg/page-policy.json`: whose cosignatures
//! a checkpoint needs and which beacon deals the tickets. It is a file of
//! the built page (listed and hashed in the page's manifest, like the
//! module), written by `scripts/page-policy.sh` from the keys the deployment
//! was given, never an answer of the API: the server the page checks may
//! announce the same values in `GET /api/config`, and the page only
//! compares them (docs/PROTOCOL.md, "Who the page believes").

use serde::{Deserialize, Serialize};

/// Where the built page carries its policy, under the web root; the page
/// fetches it from this path.
pub const PAGE_POLICY_PATH: &str = "/www/pkg/page-policy.json";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PagePolicy {
    /// The witnesses' cosignature verifier keys (`<name>+<id>+<base64>`).
    pub witnesses: Vec<String>,
    /// How many of `witnesses` must cosign a checkpoint (1 to their number).
    pub quorum: u32,
    /// The beacon that deals every ticket; `None`: the game deals in order,
    /// and a server announcing a beacon is refused.
    pub beacon: Option<BeaconPin>,
}

/// A beacon as its chain info names it: the round `r` is published at
/// `genesis_time_ms + (r - 1) × period_ms`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeaconPin {
    /// Its BLS12-381 public key (96 bytes in hex).
    pub public_key: String,
    pub genesis_time_ms: u64,
    pub period_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_reads_as_the_script_writes_it() {
        let text = r#"{"witnesses": ["w+1+AA"], "quorum": 1,
            "beacon": {"public_key": "ab", "genesis_time_ms": 0, "period_ms": 500}}"#;
        let policy: PagePolicy = serde_json::from_str(text).unwrap();
        assert_eq!(policy.quorum, 1);
        assert_eq!(policy.beacon.unwrap().period_ms, 500);
        let in_order: PagePolicy =
            serde_json::from_str(r#"{"witnesses": ["w+1+AA"], "quorum": 1, "beacon": null}"#)
                .unwrap();
        assert_eq!(in_order.beacon, None);
        // A misspelt field is an error, not a policy with less in it.
        assert!(serde_json::from_str::<PagePolicy>(
            r#"{"witnesses": [], "quorum": 1, "beacon": null, "extra": 1}"#
        )
        .is_err());
    }
}
