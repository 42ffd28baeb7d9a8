//! The deals re-dealt (docs/PROTOCOL.md §10): every round the log's
//! purchases name is fetched from the beacon and verified against its
//! key, then the engine's `DealReplay` runs through the records in order.
//! A sale off the rule, out of order, for another buyer, or from a round
//! the beacon does not vouch for is a finding.

use super::audit::LogAudit;
use super::client::LogClient;
use super::records::Record;
use eldorado_api::beacon::{BeaconInfo, BeaconRound};
use eldorado_engine::deal::{BeaconClock, BeaconKey, DealReplay, Dealt};
use eldorado_engine::transparency::{open_checkpoint, record_hash, LogEntry, LogKey, WitnessKey};
use reqwest::StatusCode;
use std::collections::{BTreeMap, BTreeSet};

/// What the replay found, besides its findings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DealCounts {
    pub purchases: u64,
    pub by_rule: u64,
    /// Purchases whose round is not out yet (or whose deal is not logged).
    pub waiting: u64,
}

/// Each round the purchases of `records` name, verified; a round the
/// beacon does not serve yet is left out (its purchases wait).
pub fn fetch_rounds(
    beacon: &LogClient,
    key: &BeaconKey,
    records: &[Record],
) -> Result<BTreeMap<u64, [u8; 32]>, String> {
    let rounds: BTreeSet<u64> = records
        .iter()
        .filter_map(|r| match r {
            Ok(LogEntry::Purchase { purchase, .. }) => Some(purchase.round),
            _ => None,
        })
        .collect();
    let mut values = BTreeMap::new();
    for round in rounds {
        let path = format!("/public/{round}");
        let Some(text) = beacon.get_text_unless(&path, StatusCode::NOT_FOUND)? else {
            continue;
        };
        let served: BeaconRound = super::client::parse_json(&path, &text)?;
        let signature = served
            .signature_bytes()
            .ok_or_else(|| format!("GET {path}: the signature is not 48 bytes of hex"))?;
        // A round the key does not verify is no round: its purchases show
        // as dealt from a round the beacon does not vouch for.
        match key.verify(round, &signature) {
            Ok(value) if served.round == round => {
                values.insert(round, value);
            }
            Ok(_) => {
                return Err(format!(
                    "GET {path}: the beacon served round {}",
                    served.round
                ))
            }
            Err(e) => tracing::warn!(round, error = %e, "the beacon's round does not verify"),
        }
    }
    Ok(values)
}

/// Replays every deal of the log.
pub fn check_deals(
    records: &[Record],
    rounds: &BTreeMap<u64, [u8; 32]>,
) -> (DealCounts, Vec<String>) {
    let mut replay = DealReplay::default();
    let mut counts = DealCounts::default();
    let mut findings = Vec::new();
    for (index, record) in records.iter().enumerate() {
        let Ok(entry) = record else { continue };
        let outcome = match entry {
            LogEntry::Commitment { commitment, .. } => replay
                .commitment(commitment.block, commitment.tickets)
                .map_err(|e| format!("record {index}: block {}: {e}", commitment.block)),
            LogEntry::Purchase { purchase, .. } => {
                counts.purchases += 1;
                let leaf = match entry.to_leaf() {
                    Ok(leaf) => leaf,
                    Err(e) => {
                        findings.push(format!("record {index}: {e}"));
                        continue;
                    }
                };
                replay.purchase(record_hash(&leaf), purchase).map_err(|e| {
                    format!(
                        "record {index}: purchase {} of block {}: {e}",
                        purchase.purchase_id, purchase.block
                    )
                })
            }
            LogEntry::Sale { sale, .. } => match replay.sale(sale, |r| rounds.get(&r).copied()) {
                Ok(Dealt::ByRule { .. }) => {
                    counts.by_rule += 1;
                    Ok(())
                }
                Ok(Dealt::InOrder) => Ok(()),
                Err(e) => Err(format!(
                    "record {index}: sale {} of block {} position {}: {e}",
                    sale.sale_id, sale.block, sale.position
                )),
            },
            LogEntry::Page { .. } => Ok(()),
        };
        findings.extend(outcome.err());
    }
    counts.waiting = replay.waiting().count() as u64;
    (counts, findings)
}

/// The beacon's own schedule (`/info`), which must be the key's.
pub fn schedule(beacon: &LogClient, key_hex: &str) -> Result<BeaconClock, String> {
    let info: BeaconInfo = beacon.get_json("/info")?;
    if !info.public_key.eq_ignore_ascii_case(key_hex.trim()) {
        return Err(format!(
            "the beacon serves the key {}, not {}",
            info.public_key,
            key_hex.trim()
        ));
    }
    let (genesis_ms, period_ms) = info
        .schedule_ms()
        .ok_or("the beacon's /info gives no schedule")?;
    Ok(BeaconClock {
        genesis_ms,
        period_ms,
    })
}

/// The log's witnesses as the audit trusts them.
pub struct Witnessing<'a> {
    pub log_key: &'a LogKey,
    pub witnesses: &'a [WitnessKey],
    pub quorum: usize,
}

/// Every purchase was on the record, cosigned by the quorum of witnesses,
/// before its round was published: else its buyer (or the operator) could
/// have known the round's value when the purchase was made. Checked once
/// per round, on its last purchase (a witness cosigns in order, so the
/// earlier ones were cosigned no later).
pub fn check_timing(
    server: &LogClient,
    audit: &LogAudit,
    witnessing: &Witnessing<'_>,
    schedule: &BeaconClock,
) -> Result<Vec<String>, String> {
    let mut last_of_round = BTreeMap::<u64, u64>::new();
    for (index, record) in audit.records().iter().enumerate() {
        if let Ok(LogEntry::Purchase { purchase, .. }) = record {
            last_of_round.insert(purchase.round, index as u64);
        }
    }
    if last_of_round.is_empty() {
        return Ok(Vec::new());
    }
    if witnessing.quorum == 0 {
        return Ok(vec![format!(
            "no witness vouches that the purchases of {} rounds were on the record before their rounds: the log has no quorum of witnesses",
            last_of_round.len()
        )]);
    }
    let mut findings = Vec::new();
    for (round, index) in last_of_round {
        let published = schedule.time_of(round);
        let path = format!("/api/log/checkpoint/covering?index={index}");
        let Some(note) = server.get_text_unless(&path, StatusCode::NOT_FOUND)? else {
            findings.push(format!(
                "record {index}: the purchase dealt by round {round} is in no checkpoint the witnesses cosigned"
            ));
            continue;
        };
        let checked = match open_checkpoint(
            note.as_bytes(),
            witnessing.log_key,
            witnessing.witnesses,
            witnessing.quorum,
        ) {
            Ok(checked) if checked.size > index => checked,
            Ok(checked) => {
                findings.push(format!(
                    "GET {path}: a checkpoint of size {} does not hold record {index}",
                    checked.size
                ));
                continue;
            }
            Err(e) => {
                findings.push(format!("GET {path}: {e}"));
                continue;
            }
        };
        findings.extend(
            audit.check_checkpoint(&format!("the checkpoint covering record {index}"), &checked),
        );
        if !checked.witnessed_before(published, witnessing.quorum) {
            findings.push(format!(
                "record {index}: the purchase dealt by round {round} (published at {published} ms) was first cosigned at {:?} s (checkpoint of size {}), not before the round",
                checked.cosigned_at, checked.size
            ));
        }
    }
    Ok(findings)
}
