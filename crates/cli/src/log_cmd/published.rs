//! What the witnesses published (`GET /cosignatures` of `eldorado witness
//! --listen`, docs/PROTOCOL.md §10): when each first cosigned a checkpoint
//! holding a record, whatever the log serves. The log's covering
//! checkpoint must give a purchase the same dealing round as these do;
//! else the log held back a cosignature it was given.

use super::client::LogClient;
#[cfg(test)]
use eldorado_api::CosignatureSubmission;
use eldorado_api::WitnessCosignatures;
use eldorado_engine::deal::quorum_time;
use eldorado_engine::transparency::{open_checkpoint, LogKey, WitnessKey};
use std::collections::BTreeMap;

/// Each witness's cosignatures, by name: `(checkpoint size, second)`,
/// in the order it made them (growing sizes), and the size it had
/// cosigned when it began publishing.
#[derive(Debug, Default)]
pub struct Published {
    by_witness: BTreeMap<String, Made>,
}

#[derive(Debug, Default)]
struct Made {
    since: u64,
    cosigned: Vec<(u64, u64)>,
}

/// What the publications say of when a record was first cosigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstCosigned {
    /// By this second, by the quorum.
    At(u64),
    /// Not by a quorum yet.
    NotYet,
    /// A witness began publishing after it first cosigned the record.
    Unknown,
}

impl Published {
    /// Reads every publication at `urls` from the first checkpoint larger
    /// than `from` records. Each line must verify under one of the log's
    /// `witnesses`, for a checkpoint the log signed.
    pub fn fetch(
        urls: &[String],
        log: &LogKey,
        witnesses: &[WitnessKey],
        from: u64,
    ) -> Result<Published, String> {
        let mut published = Published::default();
        for url in urls {
            let client = LogClient::new(url)?;
            let mut after = from;
            loop {
                let path = format!("/cosignatures?after={after}");
                let page: WitnessCosignatures = client
                    .get_json(&path)
                    .map_err(|e| format!("--witness-url {url}: {e}"))?;
                let Some(last) = published.add(&page, log, witnesses)? else {
                    break;
                };
                if last <= after {
                    return Err(format!("--witness-url {url}: GET {path} went backwards"));
                }
                after = last;
            }
        }
        Ok(published)
    }

    /// Adds one page of a witness's publication; the largest size in it,
    /// `None` for an empty page.
    pub fn add(
        &mut self,
        page: &WitnessCosignatures,
        log: &LogKey,
        witnesses: &[WitnessKey],
    ) -> Result<Option<u64>, String> {
        let mut last = None;
        for entry in &page.cosignatures {
            let note = format!("{}{}", entry.checkpoint, entry.cosignature);
            let checked = open_checkpoint(note.as_bytes(), log, witnesses, 1).map_err(|e| {
                format!("a published cosignature is not one of the log's witnesses': {e}")
            })?;
            let (Some(name), Some(&second)) =
                (checked.witnesses.first(), checked.cosigned_at.first())
            else {
                return Err("a published cosignature carries no witness's line".to_owned());
            };
            let made = self.by_witness.entry(name.clone()).or_default();
            made.since = page.since;
            // A witness cosigns growing trees; its first cosignature of a
            // size is the one that counts.
            if made
                .cosigned
                .last()
                .is_none_or(|&(size, _)| size < checked.size)
            {
                made.cosigned.push((checked.size, second));
            }
            last = last.max(Some(checked.size));
        }
        Ok(last)
    }

    /// When `quorum` witnesses had first cosigned a checkpoint holding
    /// record `index`, by their publications.
    pub fn first_cosigned(&self, index: u64, quorum: usize) -> FirstCosigned {
        if self.by_witness.values().any(|made| index < made.since) {
            return FirstCosigned::Unknown;
        }
        let firsts: Vec<u64> = self
            .by_witness
            .values()
            .filter_map(|made| {
                let first = made.cosigned.partition_point(|&(size, _)| size <= index);
                made.cosigned.get(first).map(|&(_, second)| second)
            })
            .collect();
        quorum_time(&firsts, quorum).map_or(FirstCosigned::NotYet, FirstCosigned::At)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eldorado_engine::commit::signing_key_from_secret;
    use eldorado_engine::transparency::{sign_checkpoint, Cosigner};
    use eldorado_engine::Hash;

    const ORIGIN: &str = "eldorado.test/log";

    fn log() -> LogKey {
        LogKey::new(ORIGIN, signing_key_from_secret([7; 32]).verifying_key()).unwrap()
    }

    fn cosigner(n: u8) -> Cosigner {
        Cosigner::new(
            &format!("witness-{n}.test"),
            signing_key_from_secret([n; 32]),
        )
        .unwrap()
    }

    /// `witness`'s cosignature of the checkpoint of `size` records, made
    /// at `second`.
    fn made(witness: u8, size: u64, second: u64) -> CosignatureSubmission {
        let note = sign_checkpoint(
            ORIGIN,
            size,
            &Hash([size as u8; 32]),
            &signing_key_from_secret([7; 32]),
        )
        .unwrap();
        CosignatureSubmission {
            cosignature: cosigner(witness).cosign(&note, second).unwrap(),
            checkpoint: String::from_utf8(note).unwrap(),
        }
    }

    fn pages(since: u64, cosignatures: &[CosignatureSubmission]) -> WitnessCosignatures {
        WitnessCosignatures {
            since,
            cosignatures: cosignatures.to_vec(),
        }
    }

    #[test]
    fn the_first_cosignature_holding_a_record_dates_it_and_the_quorum_takes_its_latest() {
        let keys = [cosigner(1).witness_key(), cosigner(2).witness_key()];
        let mut published = Published::default();
        let page = [made(1, 3, 100), made(1, 6, 104), made(1, 9, 107)];
        assert_eq!(published.add(&pages(0, &page), &log(), &keys), Ok(Some(9)));
        let second = pages(0, &[made(2, 6, 105)]);
        assert_eq!(published.add(&second, &log(), &keys), Ok(Some(6)));
        // Record 4 is first held by the checkpoint of 6 records.
        use FirstCosigned::*;
        assert_eq!(published.first_cosigned(4, 1), At(104));
        assert_eq!(published.first_cosigned(4, 2), At(105));
        assert_eq!(published.first_cosigned(2, 1), At(100));
        assert_eq!(
            published.first_cosigned(2, 2),
            At(105),
            "witness 2 first held it at 6"
        );
        assert_eq!(
            published.first_cosigned(7, 2),
            NotYet,
            "witness 2 never cosigned past 6"
        );
        assert_eq!(published.first_cosigned(9, 1), NotYet);
        // A witness that began publishing at 6 records cannot tell when
        // it first cosigned a record below.
        let late = pages(6, &[made(2, 9, 107)]);
        published.add(&late, &log(), &keys).unwrap();
        assert_eq!(published.first_cosigned(4, 1), Unknown);
        assert_eq!(published.first_cosigned(7, 2), At(107));
    }

    #[test]
    fn a_line_of_a_stranger_or_of_another_log_is_refused() {
        let keys = [cosigner(1).witness_key()];
        let mut published = Published::default();
        assert!(published
            .add(&pages(0, &[made(3, 3, 100)]), &log(), &keys)
            .is_err());
        let mut other = made(1, 3, 100);
        other.checkpoint = other.checkpoint.replace(ORIGIN, "other.test/log");
        assert!(published.add(&pages(0, &[other]), &log(), &keys).is_err());
    }

    #[test]
    fn a_withheld_cosignature_moves_the_round_and_is_a_finding() {
        use super::super::deals::withheld;
        use eldorado_engine::deal::BeaconClock;
        let schedule = BeaconClock {
            genesis_ms: 0,
            period_ms: 500,
        };
        let keys = [cosigner(1).witness_key()];
        let mut published = Published::default();
        published
            .add(&pages(0, &[made(1, 6, 99), made(1, 9, 104)]), &log(), &keys)
            .unwrap();
        // Record 4, naming round 201 (published at 100 s): the witness
        // cosigned it in time (second 99).
        assert_eq!(withheld(&published, 1, 4, 201, 201, &schedule), None);
        // A log that served only the later checkpoint dealt it by round
        // 211 (the first after second 104).
        let found = withheld(&published, 1, 4, 201, 211, &schedule).unwrap();
        assert!(found.contains("gives round 201"), "{found}");
        assert!(found.contains("a cosignature withheld"), "{found}");
        // A record no witness published a cosignature of.
        assert!(withheld(&published, 1, 9, 201, 211, &schedule).is_some());
    }
}
