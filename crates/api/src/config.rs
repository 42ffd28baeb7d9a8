//! `GET /api/config`: what the page needs before the first sale. Every figure
//! is computed by the engine on the server; the page only displays it.

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::config)))]
pub struct Config {
    pub stakes_cents: Vec<u64>,
    /// The operator's Ed25519 key (64 hex digits) that signs commitments and sales.
    pub public_key: String,
    pub rtp_basis_points: u64,
    pub odds: Odds,
    /// Keyed by the stake in cents written as a decimal string (JSON keys are strings).
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeMap<String, u64>))]
    pub max_win_cents: StakeAmounts,
    /// SPEC §2, rank 1 first.
    pub prize_table: Vec<PrizeRow>,
    pub demo: bool,
    pub starting_balance_cents: u64,
    /// The http(s) origins of `--frame-ancestors`: the only windows the page
    /// posts its events to, and the only ones whose messages it accepts.
    #[serde(default)]
    pub portal_origins: Vec<String>,
    /// The public log's origin, key and witnesses.
    pub log: crate::log::LogConfig,
    /// The beacon every sale is dealt from (docs/PROTOCOL.md §10); absent
    /// when sales take their block's next ticket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dealing: Option<crate::beacon::Dealing>,
    /// The fingerprint of the page this server serves, in lowercase hex
    /// (docs/PROTOCOL.md §9, "The page on the record"); absent when it
    /// serves none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<String>,
}

impl Config {
    pub fn max_win_for(&self, stake_cents: u64) -> Option<u64> {
        self.max_win_cents.get(&stake_cents.to_string())
    }
}

/// Amounts in cents keyed by text, in key order: on the wire a JSON object
/// exactly as a `BTreeMap<String, u64>` writes and reads it (a repeated key
/// keeps its last amount), in memory a short sorted list, so that the page
/// carries no B-tree code (docs/BENCHMARKS.md, issue 13).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StakeAmounts(Vec<(String, u64)>);

impl StakeAmounts {
    /// Puts `amount` under `key`, replacing the amount already there.
    pub fn insert(&mut self, key: String, amount: u64) {
        match self
            .0
            .binary_search_by(|(k, _)| k.as_str().cmp(key.as_str()))
        {
            Ok(i) => self.0[i].1 = amount,
            Err(i) => self.0.insert(i, (key, amount)),
        }
    }

    pub fn get(&self, key: &str) -> Option<u64> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, amount)| *amount)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// In key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.0.iter().map(|(k, amount)| (k.as_str(), *amount))
    }
}

impl FromIterator<(String, u64)> for StakeAmounts {
    fn from_iter<I: IntoIterator<Item = (String, u64)>>(entries: I) -> StakeAmounts {
        let mut amounts = StakeAmounts::default();
        for (key, amount) in entries {
            amounts.insert(key, amount);
        }
        amounts
    }
}

impl Serialize for StakeAmounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, amount)| (k, amount)))
    }
}

impl<'de> Deserialize<'de> for StakeAmounts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<StakeAmounts, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = StakeAmounts;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of amounts")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StakeAmounts, A::Error> {
                let mut amounts = StakeAmounts::default();
                while let Some((key, amount)) = map.next_entry::<String, u64>()? {
                    amounts.insert(key, amount);
                }
                Ok(amounts)
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

/// One winning ticket in `tickets / winners`, as an exact fraction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Odds {
    pub tickets: u64,
    pub winners: u64,
}

/// One rank of the prize table; `multiple` and the line amounts are in stakes.
// Wider than the engine's u32 so the page multiplies by a stake in cents
// without a conversion at each use.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PrizeRow {
    pub rank: u8,
    pub multiple: u64,
    pub count: u64,
    pub direct: u64,
    pub via_extras: u64,
    /// The allowed winning-line amounts of this rank, each largest first.
    pub decompositions: Vec<Vec<u64>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Written and read exactly as the `BTreeMap` it replaced.
    #[test]
    fn stake_amounts_are_a_btree_map_on_the_wire() {
        let entries = [
            ("50", 350_000),
            ("200", 1_400_000),
            ("100", 700_000),
            ("50", 1),
        ];
        let amounts: StakeAmounts = entries.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let map: BTreeMap<String, u64> = entries.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        assert_eq!(
            serde_json::to_string(&amounts).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert_eq!(amounts.len(), 3);
        assert_eq!(amounts.get("50"), Some(1));
        assert_eq!(amounts.get("70"), None);
        for text in [
            r#"{"50": 1, "100": 2, "200": 3}"#,
            r#"{"200": 3, "50": 1, "50": 9}"#,
            r#"{}"#,
        ] {
            let read: StakeAmounts = serde_json::from_str(text).unwrap();
            let expected: BTreeMap<String, u64> = serde_json::from_str(text).unwrap();
            assert_eq!(
                read.iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect::<BTreeMap<_, _>>(),
                expected
            );
            assert_eq!(
                serde_json::to_string(&read).unwrap(),
                serde_json::to_string(&expected).unwrap()
            );
        }
        for bad in [r#"[1, 2]"#, r#"{"50": -1}"#, r#"{"50": "1"}"#, "null"] {
            assert!(serde_json::from_str::<StakeAmounts>(bad).is_err(), "{bad}");
        }
    }
}
