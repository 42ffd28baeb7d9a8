//! `eldorado log audit URL`: a monitor of the public log. It downloads
//! every record up to the newest checkpoint, rebuilds the tree, and checks
//! the records and the blocks' disclosures against each other (the checks
//! themselves are in `log_cmd/audit.rs`, `ledger.rs` and `blocks.rs`, on
//! data). Exit status: 0 without findings, 1 with, 2 when the audit could
//! not run.

mod audit;
mod blocks;
pub mod client;
mod deals;
mod ledger;
mod page;
mod published;
mod records;
#[cfg(test)]
mod tests;

use audit::{check_log, LogAudit};
use clap::{Args, Subcommand};
use client::{parse_json, LogClient};
use deals::DealCounts;
use eldorado_api::{BlockInfo, ConsistencyProof, LogLeaves};
use eldorado_engine::commit::verifying_key;
use eldorado_engine::deal::{BeaconKey, BEACON_KEY_LEN};
use eldorado_engine::transparency::{
    open_checkpoint, verify_consistency, CheckedCheckpoint, LogKey, WitnessKey,
};
use eldorado_engine::PublicKeyBytes;
use ledger::Ledger;
use reqwest::StatusCode;
use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Subcommand)]
pub enum LogCommand {
    /// Download the whole public log and check every record, the tree,
    /// the checkpoints, the finished blocks' exports and the page served.
    Audit(AuditArgs),
}

#[derive(Args)]
pub struct AuditArgs {
    /// The server, e.g. https://eldorado.example.
    url: String,
    /// The operator's Ed25519 public key (64 hex digits), from a source
    /// you trust; default: the one the server announces.
    #[arg(long, value_name = "HEX")]
    operator_key: Option<String>,
    /// A checkpoint (signed note) saved from an earlier audit or receipt:
    /// the log must still extend it.
    #[arg(long, value_name = "CHECKPOINT_FILE")]
    previous: Option<PathBuf>,
    /// The randomness beacon the sales are dealt from (its base URL);
    /// default: the one the server announces.
    #[arg(long, value_name = "URL")]
    beacon: Option<String>,
    /// The beacon's public key (96 bytes in hex), from a source you trust;
    /// default: the one the server announces.
    #[arg(long, value_name = "HEX")]
    beacon_key: Option<String>,
    /// Where a witness publishes what it cosigned (`eldorado witness
    /// --listen`); repeat for every witness of the log: each purchase's
    /// dealing round must then be the one their publications give.
    #[arg(long = "witness-url", value_name = "URL")]
    witness_urls: Vec<String>,
    /// How long to keep sending a request again while the server (or the
    /// beacon) answers busy (429, or 503 other than "no checkpoint yet"),
    /// waiting as its Retry-After says; 0: fail at the first busy answer.
    #[arg(long, value_name = "N", default_value_t = 120)]
    retry_secs: u64,
}

pub fn run(command: LogCommand) -> Result<ExitCode, String> {
    match command {
        LogCommand::Audit(args) => run_audit(&args),
    }
}

/// Longer than the server's checkpoint interval (500 ms by default): a
/// checkpoint fetched after this wait holds every sale made before it.
const CHECKPOINT_CATCH_UP: Duration = Duration::from_millis(1_500);

/// The log as the server announces it.
struct Announced {
    operator: PublicKeyBytes,
    log_key: LogKey,
    witnesses: Vec<WitnessKey>,
    quorum: usize,
    /// The beacon's URL and key (read, and in hex), when known.
    beacon: Option<(String, BeaconKey, String)>,
}

fn run_audit(args: &AuditArgs) -> Result<ExitCode, String> {
    crate::logging::init();
    let started = Instant::now();
    let retry_for = Duration::from_secs(args.retry_secs);
    let client = LogClient::new(&args.url)?.retrying_for(retry_for);
    let mut findings = Vec::new();
    let announced = announced(&client, args, &mut findings)?;
    let previous = args
        .previous
        .as_ref()
        .map(|path| read_previous(path, &announced.log_key))
        .transpose()?;
    let operator_key = verifying_key(&announced.operator)
        .map_err(|_| "the operator key is not an Ed25519 public key".to_owned())?;

    let mut checkpoint = latest_checkpoint(&client, &announced.log_key)?;
    let mut audit = LogAudit::new(operator_key);
    download(&client, &mut audit, checkpoint.size)?;
    let mut blocks = fetch_blocks(&client, &audit.ledger().0, &BTreeMap::new())?;
    if finished_blocks_ahead(&audit.ledger().0, &blocks) {
        // Their last sales may be younger than the checkpoint: audit up to
        // a checkpoint signed after the blocks were read.
        std::thread::sleep(CHECKPOINT_CATCH_UP);
        let newer = latest_checkpoint(&client, &announced.log_key)?;
        if newer.size > checkpoint.size {
            download(&client, &mut audit, newer.size)?;
            checkpoint = newer;
            blocks = fetch_blocks(&client, &audit.ledger().0, &blocks)?;
        }
    }

    let (ledger, log_findings) = check_log(&audit, &announced.log_key, &checkpoint, &blocks);
    findings.extend(log_findings);
    for (id, info) in &blocks {
        if let Some(block) = ledger
            .blocks
            .get(id)
            .filter(|_| blocks::is_finished(info.status))
        {
            tracing::info!(block = id, "reading the block's export");
            let export = client.get_stream(&format!("/api/blocks/{id}/export"))?;
            let export = BufReader::with_capacity(1 << 20, export);
            findings.extend(blocks::check_export(
                *id,
                block,
                &announced.operator,
                export,
            )?);
        }
    }
    let deal_counts = match (&announced.beacon, ledger.purchases) {
        (_, 0) => DealCounts::default(),
        (Some((url, key, key_hex)), _) => {
            tracing::info!(beacon = %url, "re-dealing the purchases from the beacon's rounds");
            let beacon = LogClient::new(url)?.retrying_for(retry_for);
            let schedule = deals::schedule(&beacon, key_hex)?;
            let published = match &args.witness_urls[..] {
                [] => None,
                urls => Some(published::Published::fetch(
                    urls,
                    &announced.log_key,
                    &announced.witnesses,
                    0,
                )?),
            };
            let witnessing = deals::Witnessing {
                log_key: &announced.log_key,
                witnesses: &announced.witnesses,
                quorum: announced.quorum,
                published: published.as_ref(),
            };
            let (dealing, timing_findings) =
                deals::dealing_rounds(&client, &audit, &witnessing, &schedule)?;
            findings.extend(timing_findings);
            let rounds = deals::fetch_rounds(&beacon, key, &dealing)?;
            let (counts, deal_findings) = deals::check_deals(audit.records(), &dealing, &rounds);
            findings.extend(deal_findings);
            counts
        }
        (None, purchases) => {
            findings.push(format!(
                "the log has {purchases} purchases, but no beacon to re-deal them: give --beacon and --beacon-key"
            ));
            DealCounts::default()
        }
    };
    findings.extend(page::check_served_page(&client, &ledger)?);
    findings.extend(check_cosigned(&client, &announced, &audit, &checkpoint)?);
    if let Some(previous) = &previous {
        findings.extend(check_previous(&client, previous, &audit, &checkpoint)?);
    }

    for finding in &findings {
        println!("FINDING: {finding}");
    }
    print_summary(
        &announced,
        &checkpoint,
        &ledger,
        &deal_counts,
        findings.len(),
        started,
    );
    Ok(if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn announced(
    client: &LogClient,
    args: &AuditArgs,
    findings: &mut Vec<String>,
) -> Result<Announced, String> {
    let operator_flag = args.operator_key.as_deref();
    let config: eldorado_api::Config = client.get_json("/api/config")?;
    let beacon = announced_beacon(config.dealing.as_ref(), args, findings)?;
    let (operator_hex, what) = match operator_flag {
        Some(flag) => (flag, "--operator-key"),
        None => (config.public_key.as_str(), "the announced public_key"),
    };
    let operator =
        PublicKeyBytes::from_hex(operator_hex.trim()).map_err(|e| format!("{what}: {e}"))?;
    if operator_flag.is_some() && config.public_key.trim() != operator.to_hex() {
        findings.push(format!(
            "the server announces the operator key {}, not {}",
            config.public_key.trim(),
            operator.to_hex()
        ));
    }
    let log_key = LogKey::parse(config.log.key.trim())
        .map_err(|e| format!("the announced log key {:?}: {e}", config.log.key))?;
    let mut witnesses = Vec::new();
    for vkey in &config.log.witnesses {
        match WitnessKey::parse(vkey.trim()) {
            Ok(key) => witnesses.push(key),
            Err(e) => findings.push(format!("the announced witness key {vkey:?}: {e}")),
        }
    }
    let quorum = config.log.quorum as usize;
    if quorum > config.log.witnesses.len() {
        findings.push(format!(
            "the announced quorum {quorum} is more than the {} witnesses",
            config.log.witnesses.len()
        ));
    }
    Ok(Announced {
        operator,
        log_key,
        witnesses,
        quorum,
        beacon,
    })
}

/// The beacon to re-deal from: the flags', else the announced one's; a
/// pinned key the server does not announce is a finding.
fn announced_beacon(
    dealing: Option<&eldorado_api::beacon::Dealing>,
    args: &AuditArgs,
    findings: &mut Vec<String>,
) -> Result<Option<(String, BeaconKey, String)>, String> {
    let announced_key = dealing.map(|d| d.public_key.trim());
    if let (Some(pinned), Some(announced)) = (&args.beacon_key, announced_key) {
        if !pinned.trim().eq_ignore_ascii_case(announced) {
            findings.push(format!(
                "the server announces the beacon key {announced}, not {}",
                pinned.trim()
            ));
        }
    }
    let url = args
        .beacon
        .clone()
        .or_else(|| dealing.map(|d| d.beacon_url.clone()));
    let key = args.beacon_key.as_deref().map(str::trim).or(announced_key);
    let (Some(url), Some(key)) = (url, key) else {
        return Ok(None);
    };
    let bytes: [u8; BEACON_KEY_LEN] = hex::decode(key)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| format!("the beacon key {key:?} is not 96 bytes of hex"))?;
    let parsed = BeaconKey::from_bytes(&bytes).map_err(|e| format!("the beacon key: {e}"))?;
    Ok(Some((url, parsed, key.to_owned())))
}

fn read_previous(path: &PathBuf, log_key: &LogKey) -> Result<CheckedCheckpoint, String> {
    let note = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    open_checkpoint(&note, log_key, &[], 0)
        .map_err(|e| format!("{} is not a checkpoint of this log: {e}", path.display()))
}

/// The newest checkpoint; one that the log key does not open ends the
/// audit, since nothing else can be checked against it.
fn latest_checkpoint(client: &LogClient, log_key: &LogKey) -> Result<CheckedCheckpoint, String> {
    let path = "/api/log/checkpoint/latest";
    let note = client
        .get_text_unless(path, StatusCode::SERVICE_UNAVAILABLE)?
        .ok_or("the log has no checkpoint yet (503)")?;
    open_checkpoint(note.as_bytes(), log_key, &[], 0)
        .map_err(|e| format!("GET {path}: the checkpoint does not open with the log key: {e}"))
}

/// Records `audit.size()..size`, page by page.
fn download(client: &LogClient, audit: &mut LogAudit, size: u64) -> Result<(), String> {
    let from = audit.size();
    let mut leaves = Vec::new();
    let mut next = from;
    while next < size {
        let path = format!("/api/log/leaves?start={next}&end={size}");
        let page: LogLeaves = client.get_json(&path)?;
        let wanted = (size - next) as usize;
        if page.start != next || page.leaves.is_empty() || page.leaves.len() > wanted {
            return Err(format!(
                "GET {path}: {} records from {}, not a page of records {next}..{size}",
                page.leaves.len(),
                page.start
            ));
        }
        for (i, leaf) in page.leaves.iter().enumerate() {
            let bytes = hex::decode(leaf)
                .map_err(|e| format!("GET {path}: record {} is not hex: {e}", next + i as u64))?;
            leaves.push(bytes);
        }
        next += page.leaves.len() as u64;
        if next % 50_000 < page.leaves.len() as u64 {
            tracing::info!(records = next, of = size, "downloading the log");
        }
    }
    tracing::info!(records = leaves.len(), "checking the records' signatures");
    audit.append(&leaves)
}

/// What the server says of each block of the log (`known` are kept).
fn fetch_blocks(
    client: &LogClient,
    ledger: &Ledger,
    known: &BTreeMap<u64, BlockInfo>,
) -> Result<BTreeMap<u64, BlockInfo>, String> {
    let mut blocks = known.clone();
    for id in ledger.blocks.keys().filter(|id| !known.contains_key(id)) {
        let path = format!("/api/blocks/{id}");
        if let Some(text) = client.get_text_unless(&path, StatusCode::NOT_FOUND)? {
            blocks.insert(*id, parse_json(&path, &text)?);
        }
    }
    Ok(blocks)
}

fn finished_blocks_ahead(ledger: &Ledger, blocks: &BTreeMap<u64, BlockInfo>) -> bool {
    blocks.iter().any(|(id, info)| {
        ledger
            .blocks
            .get(id)
            .is_some_and(|block| blocks::may_be_ahead_of_the_log(block, info))
    })
}

/// The checkpoint the page trusts (cosigned by a quorum of witnesses) must
/// be one of this tree, or a tree that extends it.
fn check_cosigned(
    client: &LogClient,
    announced: &Announced,
    audit: &LogAudit,
    latest: &CheckedCheckpoint,
) -> Result<Vec<String>, String> {
    let path = "/api/log/checkpoint";
    let Some(note) = client.get_text_unless(path, StatusCode::SERVICE_UNAVAILABLE)? else {
        tracing::info!("no checkpoint is cosigned by the witnesses' quorum yet");
        return Ok(Vec::new());
    };
    let cosigned = match open_checkpoint(
        note.as_bytes(),
        &announced.log_key,
        &announced.witnesses,
        announced.quorum,
    ) {
        Ok(cosigned) => cosigned,
        Err(e) => return Ok(vec![format!("the cosigned checkpoint ({path}): {e}")]),
    };
    tracing::info!(size = cosigned.size, witnesses = ?cosigned.witnesses, "the cosigned checkpoint");
    if cosigned.size <= audit.size() {
        return Ok(audit
            .check_checkpoint("the cosigned checkpoint", &cosigned)
            .into_iter()
            .collect());
    }
    // Cosigned after the audit started: it must extend what was audited.
    consistent(client, "the cosigned checkpoint", latest, &cosigned)
}

fn check_previous(
    client: &LogClient,
    previous: &CheckedCheckpoint,
    audit: &LogAudit,
    latest: &CheckedCheckpoint,
) -> Result<Vec<String>, String> {
    if previous.size > latest.size {
        return Ok(vec![format!(
            "the previous checkpoint is of {} records, the latest of only {}: the log rolled back",
            previous.size, latest.size
        )]);
    }
    let mut findings: Vec<String> = audit
        .check_checkpoint("the previous checkpoint", previous)
        .into_iter()
        .collect();
    // The records already settle it; the log's own proof must agree.
    findings.extend(consistent(
        client,
        "the previous checkpoint",
        previous,
        latest,
    )?);
    Ok(findings)
}

/// Whether the log proves that `new` extends `old`. Equal sizes and the
/// empty tree need no proof: the records already settled them.
fn consistent(
    client: &LogClient,
    what: &str,
    old: &CheckedCheckpoint,
    new: &CheckedCheckpoint,
) -> Result<Vec<String>, String> {
    if old.size > new.size {
        return Ok(vec![format!(
            "{what} is of {} records, the newer of only {}",
            old.size, new.size
        )]);
    }
    if old.size == 0 || old.size == new.size {
        return Ok(Vec::new());
    }
    let proof: ConsistencyProof = client.get_json(&format!(
        "/api/log/proof/consistency?from={}&size={}",
        old.size, new.size
    ))?;
    let verified = verify_consistency(old.size, &old.root, new.size, &new.root, &proof.hashes);
    Ok(verified
        .err()
        .map(|e| {
            format!(
                "{what}: the log's consistency proof {}..{} fails: {e}",
                old.size, new.size
            )
        })
        .into_iter()
        .collect())
}

fn print_summary(
    announced: &Announced,
    checkpoint: &CheckedCheckpoint,
    ledger: &Ledger,
    deals: &DealCounts,
    findings: usize,
    started: Instant,
) {
    println!(
        "log {} at size {} root {}: records {}, commitments {}, sales {}, blocks {}, refilled {}, findings {}, seconds {:.1}, purchases {}, dealt by the rule {}, waiting {}, page records {}",
        announced.log_key.origin(),
        checkpoint.size,
        checkpoint.root,
        ledger.records,
        ledger.commitments,
        ledger.sales,
        ledger.blocks.len(),
        ledger.refilled,
        findings,
        started.elapsed().as_secs_f64(),
        deals.purchases,
        deals.by_rule,
        deals.waiting,
        ledger.pages
    );
}
