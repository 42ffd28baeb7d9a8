//! `eldorado verify RECEIPT --key HEX`: the page's checks of a sold ticket,
//! run offline on a receipt (the `SaleResponse` JSON of
//! `GET /api/sales/{sale_id}`, or the `LoggedReceipt` of
//! `GET /api/sales/{sale_id}/receipt`, which also carries the sale's proof
//! on the public record: `verify_record`), so that anyone can check a
//! ticket without the server or the browser.

use clap::Args;
use eldorado_api::{LoggedReceipt, SaleResponse};
use eldorado_engine::commit::{verifying_key, MAX_PLAYER_LEN};
use eldorado_engine::deal::{BeaconClock, BeaconKey, BEACON_KEY_LEN};
use eldorado_engine::verify::{BalanceChange, Check, Expected, ExpectedDeal};
use eldorado_engine::{verify_sale, ClientNonce, PublicKeyBytes};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct VerifyArgs {
    /// The receipt: a ticket's `SaleResponse` JSON, as downloaded from the history.
    receipt: PathBuf,
    /// The operator's Ed25519 public key (64 hex digits), from a source you
    /// trust rather than from the receipt itself.
    #[arg(long, value_name = "HEX")]
    key: String,
    /// Also check that the ticket was sold to this player id.
    #[arg(long, value_name = "ID")]
    player: Option<String>,
    /// Also check the purchase's client nonce (32 hex digits).
    #[arg(long, value_name = "HEX")]
    nonce: Option<String>,
    /// A witness whose cosignature the receipt's checkpoint must carry
    /// (its verifier key); repeat for each.
    #[arg(long = "witness", value_name = "VKEY")]
    witnesses: Vec<String>,
    /// How many of the witnesses must have cosigned (default: all).
    #[arg(long)]
    quorum: Option<usize>,
    /// Also check that the receipt's checkpoint is a prefix of this
    /// server's live log (no fork, no rollback since).
    #[arg(long, value_name = "URL")]
    log: Option<String>,
    /// The beacon the tickets are dealt by (its public key, 96 bytes in
    /// hex), from a source you trust: the ticket must have been dealt by
    /// the public rule from its purchase's round, verified under this key.
    /// Needed for a receipt that carries a deal; given for one that does
    /// not, the receipt is refused (it was not dealt by the beacon).
    #[arg(long, value_name = "HEX")]
    beacon_key: Option<String>,
    /// The beacon's genesis (Unix ms) and period (ms), from a source you
    /// trust: which round is published when. Built in for drand quicknet.
    #[arg(long, value_name = "MS", requires = "beacon_period_ms")]
    beacon_genesis_ms: Option<u64>,
    #[arg(long, value_name = "MS", requires = "beacon_genesis_ms")]
    beacon_period_ms: Option<u64>,
}

/// What each check establishes, for a reader of the output.
fn meaning(check: Check) -> &'static str {
    match check {
        Check::CommitmentSignature => "the block commitment is signed by this key",
        Check::PrizeTable => "the block commits to the prize table of the rules",
        Check::BlockSize => "the block has the rules' 400,000 tickets",
        Check::CommitmentSeen => "the commitment was announced before the purchase",
        Check::SaleSignature => "the sale is signed by this key",
        Check::SameBlock => "the ticket belongs to the committed block (id, size, stake)",
        Check::Rules => "the grids follow the rules and pay exactly the stated prize",
        Check::MerkleProof => "the ticket is in the committed block at its position",
        Check::StakePlayed => "the ticket's stake is the stake played",
        Check::Player => "the ticket was sold to this player",
        Check::ClientNonce => "the sale answers the purchase with this nonce",
        Check::MoneyKind => "the block sells the player's kind of money",
        Check::Balance => {
            "balance after = balance before − stake + prize, both as the operator signed them"
        }
        Check::FairDeal => {
            "the beacon dealt the ticket by the public rule, from a round not before its purchase's"
        }
    }
}

/// An argument that no genuine receipt could match is the caller's mistake
/// (exit 2), not a refused ticket (exit 1).
fn check_player(player: &str) -> Result<(), String> {
    if player.is_empty() || player.len() > MAX_PLAYER_LEN {
        return Err(format!(
            "--player {player:?}: a player id is 1 to {MAX_PLAYER_LEN} bytes"
        ));
    }
    Ok(())
}

/// `--beacon-key`: 96 bytes in hex, a point of the beacon's group.
fn beacon_key(hex: &str) -> Result<BeaconKey, String> {
    let bytes: [u8; BEACON_KEY_LEN] = hex::decode(hex.trim())
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| format!("--beacon-key: {BEACON_KEY_LEN} bytes in hex"))?;
    BeaconKey::from_bytes(&bytes).map_err(|e| format!("--beacon-key: {e}"))
}

/// The beacon's schedule: the flags', else quicknet's for quicknet's key.
fn beacon_schedule(args: &VerifyArgs) -> Result<BeaconClock, String> {
    match (args.beacon_genesis_ms, args.beacon_period_ms) {
        (Some(genesis_ms), Some(period_ms)) if period_ms > 0 => Ok(BeaconClock {
            genesis_ms,
            period_ms,
        }),
        (Some(_), Some(_)) => Err("--beacon-period-ms: more than 0".to_owned()),
        _ if args
            .beacon_key
            .as_deref()
            .is_some_and(|key| eldorado_api::beacon::is_public_network(key.trim())) =>
        {
            Ok(BeaconClock {
                genesis_ms: eldorado_api::beacon::QUICKNET_GENESIS_MS,
                period_ms: eldorado_api::beacon::QUICKNET_PERIOD_MS,
            })
        }
        _ => Err(
            "this beacon is not drand quicknet: give --beacon-genesis-ms and \
                  --beacon-period-ms, its schedule from a source you trust"
                .to_owned(),
        ),
    }
}

pub fn run(args: VerifyArgs) -> Result<ExitCode, String> {
    let key = PublicKeyBytes::from_hex(args.key.trim()).map_err(|e| format!("--key: {e}"))?;
    verifying_key(&key).map_err(|_| {
        format!(
            "--key {}: 64 hex digits, but not an Ed25519 public key",
            args.key.trim()
        )
    })?;
    if let Some(player) = &args.player {
        check_player(player)?;
    }
    let nonce = args
        .nonce
        .as_deref()
        .map(|hex| ClientNonce::from_hex(hex.trim()).map_err(|e| format!("--nonce: {e}")))
        .transpose()?;
    let text = std::fs::read_to_string(&args.receipt)
        .map_err(|e| format!("cannot read {}: {e}", args.receipt.display()))?;
    let not_a_receipt =
        |e: serde_json::Error| format!("{} is not a receipt: {e}", args.receipt.display());
    let value: serde_json::Value = serde_json::from_str(&text).map_err(not_a_receipt)?;
    // A receipt with its record carries its inclusion proof.
    let (receipt, logged) = if value.get("inclusion").is_some() {
        let logged: LoggedReceipt = serde_json::from_value(value).map_err(not_a_receipt)?;
        (logged.sale.clone(), Some(logged))
    } else {
        (
            serde_json::from_value::<SaleResponse>(value).map_err(not_a_receipt)?,
            None,
        )
    };
    let witnesses = crate::verify_record::witness_keys(&args.witnesses)?;
    let quorum = args.quorum.unwrap_or(witnesses.len());
    if quorum > witnesses.len() {
        return Err(format!(
            "--quorum {quorum}: only {} --witness given",
            witnesses.len()
        ));
    }
    if logged.is_none() && (args.log.is_some() || !witnesses.is_empty()) {
        return Err(
            "--log and --witness check a receipt with its record (GET /api/sales/{id}/receipt)"
                .to_owned(),
        );
    }
    let log = args
        .log
        .as_deref()
        .map(crate::log_cmd::client::LogClient::new)
        .transpose()?;
    let beacon = args.beacon_key.as_deref().map(beacon_key).transpose()?;
    let sold = &receipt.sale.sale;
    let evidence = receipt
        .deal
        .as_ref()
        .map(|deal| {
            deal.parts(sold.tickets, sold.ticket.position)
                .ok_or_else(|| "the receipt's deal does not read".to_owned())
        })
        .transpose()?;
    if evidence.is_some() && beacon.is_none() {
        return Err(
            "this ticket was dealt by a beacon (the receipt carries its deal): \
             give --beacon-key, the beacon's key from a source you trust, to check the deal"
                .to_owned(),
        );
    }
    // A deal's round is settled by when the witnesses cosigned its
    // purchase: only a receipt with its record, checked against the
    // witnesses, proves it.
    let schedule = match (&evidence, &logged) {
        (None, _) => None,
        (Some(_), None) => {
            return Err(
                "this ticket was dealt by a beacon: the round that dealt it is proved \
                        on the public record: verify its receipt with its record \
                        (GET /api/sales/{id}/receipt) and --witness"
                    .to_owned(),
            )
        }
        (Some(_), Some(_)) if witnesses.is_empty() => {
            return Err(
                "this ticket was dealt by a beacon: give --witness, the witnesses' keys \
                        from a source you trust, to check when its purchase was cosigned"
                    .to_owned(),
            )
        }
        (Some(_), Some(_)) => Some(beacon_schedule(&args)?),
    };
    let deal = beacon.as_ref().map(|beacon| ExpectedDeal {
        beacon,
        evidence: evidence.as_ref(),
    });
    let expected = Expected {
        player: args.player.as_deref(),
        client_nonce: nonce,
        // The receipt states both balances: they must tell the same story
        // as the verified ticket.
        balance: Some(BalanceChange {
            before_cents: receipt.balance_before_cents,
            after_cents: receipt.balance_after_cents,
        }),
        deal,
        ..Expected::default()
    };
    let report = verify_sale(&receipt.sale, &receipt.commitment, &key, &expected);
    let sale = &receipt.sale.sale;
    println!(
        "receipt: sale {} of block {}, position {}, player {}",
        sale.sale_id, sale.block, sale.ticket.position, sale.player
    );
    let mut outcomes: Vec<crate::verify_record::Outcome> = report
        .checks
        .iter()
        .map(|(check, result)| {
            (
                (check.code(), meaning(*check)),
                result.clone().map_err(|why| why.to_string()),
            )
        })
        .collect();
    if let Some(logged) = &logged {
        outcomes.extend(crate::verify_record::check(
            logged,
            &key,
            &witnesses,
            quorum,
            log.as_ref(),
            schedule.as_ref(),
        ));
    }
    for ((code, meaning), result) in &outcomes {
        match result {
            Ok(()) => println!("ok      {code:<22} {meaning}"),
            Err(why) => println!("FAILED  {code:<22} {meaning}: {why}"),
        }
    }
    if outcomes.iter().all(|(_, r)| r.is_ok()) {
        let ticket = &sale.ticket;
        println!(
            "VERIFIED: stake {} cents, prize {} cents, {} Extra(s), {} money",
            ticket.stake_cents,
            ticket.prize_cents,
            ticket.extras,
            receipt.commitment.commitment.money.as_str()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        let failed: Vec<&str> = outcomes
            .iter()
            .filter(|(_, r)| r.is_err())
            .map(|((code, _), _)| *code)
            .collect();
        println!("REFUSED: failed {}", failed.join(", "));
        Ok(ExitCode::from(1))
    }
}
