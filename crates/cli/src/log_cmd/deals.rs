//! The deals re-dealt (docs/PROTOCOL.md §10): the round that deals each
//! purchase is settled from the first checkpoint its witnesses cosigned
//! holding it (the one it names, or a later one if they cosigned it late),
//! every such round is fetched from the beacon and verified against its
//! key, then the engine's `DealReplay` runs through the records in order.
//! A sale off the rule, out of order, for another buyer, dealt before its
//! witnesses proved it, or from a round the beacon does not vouch for is
//! a finding.

use super::audit::LogAudit;
use super::client::LogClient;
use super::published::{FirstCosigned, Published};
use super::records::Record;
use eldorado_api::beacon::{BeaconInfo, BeaconRound};
use eldorado_engine::deal::{dealing_round, BeaconClock, BeaconKey, DealReplay, Dealt};
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

/// The round that deals each purchase, by its record's index.
pub type DealingRounds = BTreeMap<u64, u64>;

/// Each of `rounds`, verified; a round the beacon does not serve yet is
/// left out (its purchases wait).
pub fn fetch_rounds(
    beacon: &LogClient,
    key: &BeaconKey,
    rounds: &DealingRounds,
) -> Result<BTreeMap<u64, [u8; 32]>, String> {
    let rounds: BTreeSet<u64> = rounds.values().copied().collect();
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

/// Replays every deal of the log, each purchase by its round in `dealing`
/// (none: not proven, so not to be dealt).
pub fn check_deals(
    records: &[Record],
    dealing: &DealingRounds,
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
                let round = dealing.get(&(index as u64)).copied();
                replay
                    .purchase(record_hash(&leaf), purchase, round)
                    .map_err(|e| {
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
    /// What they published themselves (`--witness-url`), if given.
    pub published: Option<&'a Published>,
}

/// The round that deals each purchase of the log: the one it names if the
/// quorum of witnesses cosigned a checkpoint holding it before that round,
/// else the first round published after the second they did (engine
/// `dealing_round`), from the first such checkpoint the server serves
/// (`/api/log/checkpoint/covering`). A purchase no such checkpoint holds
/// is not proven and gets no round. Without witnesses nothing proves
/// time: each purchase gets the round it names, and that is a finding.
pub fn dealing_rounds(
    server: &LogClient,
    audit: &LogAudit,
    witnessing: &Witnessing<'_>,
    schedule: &BeaconClock,
) -> Result<(DealingRounds, Vec<String>), String> {
    let purchases: Vec<(u64, u64)> = audit
        .records()
        .iter()
        .enumerate()
        .filter_map(|(index, record)| match record {
            Ok(LogEntry::Purchase { purchase, .. }) => Some((index as u64, purchase.round)),
            _ => None,
        })
        .collect();
    if purchases.is_empty() {
        return Ok((DealingRounds::new(), Vec::new()));
    }
    if witnessing.quorum == 0 {
        let findings = vec![format!(
            "no witness vouches that the {} purchases were on the record before their rounds: the log has no quorum of witnesses",
            purchases.len()
        )];
        return Ok((purchases.into_iter().collect(), findings));
    }
    let mut dealing = DealingRounds::new();
    let mut findings = Vec::new();
    // The covering checkpoint of a record also covers every later record
    // below its size: (size, the quorum's second).
    let mut covering: Option<(u64, u64)> = None;
    for (index, named) in purchases {
        let cover = match covering {
            Some(cover @ (size, _)) if index < size => cover,
            _ => match covering_checkpoint(server, audit, witnessing, index, &mut findings)? {
                Some(cover) => cover,
                None => break,
            },
        };
        covering = Some(cover);
        let round = dealing_round(named, cover.1, schedule);
        if let Some(published) = witnessing.published {
            findings.extend(withheld(
                published,
                witnessing.quorum,
                index,
                named,
                round,
                schedule,
            ));
        }
        // The log's round, even when a cosignature was withheld: the sale
        // then replays clean, and the withholding is its one finding.
        dealing.insert(index, round);
    }
    Ok((dealing, findings))
}

/// A finding if the witnesses' own publications give the purchase of
/// record `index` another dealing round than the log's covering
/// checkpoint does: the log did not serve the first cosignature it was
/// given (or the witnesses published one the log never received).
pub(super) fn withheld(
    published: &Published,
    quorum: usize,
    index: u64,
    named: u64,
    round: u64,
    schedule: &BeaconClock,
) -> Option<String> {
    let second = match published.first_cosigned(index, quorum) {
        FirstCosigned::At(second) => second,
        FirstCosigned::NotYet => {
            return Some(format!(
                "record {index}: the log serves a cosigned checkpoint holding this purchase, but the witnesses' publications show no quorum that cosigned one"
            ))
        }
        // Cosigned before its witnesses published: nothing to compare.
        FirstCosigned::Unknown => return None,
    };
    let theirs = dealing_round(named, second, schedule);
    (theirs != round).then(|| {
        format!(
            "record {index}: the witnesses first cosigned this purchase by second {second}, which gives round {theirs}; the log's first cosigned checkpoint gives round {round}: a cosignature withheld"
        )
    })
}

/// The first checkpoint the quorum cosigned holding record `index`, as the
/// server serves it and checked against what the audit holds: `(size, the
/// second by which the quorum had cosigned it)`; `None` if there is none
/// yet, or it does not hold up (a finding).
fn covering_checkpoint(
    server: &LogClient,
    audit: &LogAudit,
    witnessing: &Witnessing<'_>,
    index: u64,
    findings: &mut Vec<String>,
) -> Result<Option<(u64, u64)>, String> {
    let path = format!("/api/log/checkpoint/covering?index={index}");
    let Some(note) = server.get_text_unless(&path, StatusCode::NOT_FOUND)? else {
        return Ok(None);
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
            return Ok(None);
        }
        Err(e) => {
            findings.push(format!("GET {path}: {e}"));
            return Ok(None);
        }
    };
    findings.extend(
        audit.check_checkpoint(&format!("the checkpoint covering record {index}"), &checked),
    );
    Ok(checked
        .quorum_cosigned_at(witnessing.quorum)
        .map(|second| (checked.size, second)))
}
