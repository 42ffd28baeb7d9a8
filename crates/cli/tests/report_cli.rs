//! `eldorado report daily` reads the same figures from the database as the
//! operator's API: here, sales stored at known times, reconciled to the cent.

use eldorado_engine::commit::{leaf_hash, signing_key_from_secret};
use eldorado_engine::merkle::MerkleTree;
use eldorado_engine::{evaluate_grids, Block, ClientNonce, Money, Params, Salt, Stake, Ticket};
use eldorado_server::clock::SystemClock;
use eldorado_server::state::DATABASE_FILE;
use eldorado_server::store::sqlite::SqliteStore;
use eldorado_server::store::{BlockSeeding, PlayerKind, SaleOutcome, SaleRequest, Store};
use std::process::Command;
use std::sync::Arc;

/// 2026-12-02 09:46:40 UTC and the next day.
const DAY_ONE_MS: u64 = 1_796_200_000_000;
const DAY_TWO_MS: u64 = DAY_ONE_MS + 86_400_000;

fn ticket(position: u32, grid: &str) -> Ticket {
    let grids = vec![grid.parse().unwrap()];
    let evaluation = evaluate_grids(100, &grids).unwrap();
    Ticket {
        position,
        stake_cents: 100,
        prize_cents: evaluation.prize_cents(),
        extras: evaluation.extras,
        grids,
        salt: Salt([position as u8; 16]),
    }
}

#[test]
fn the_daily_report_sums_the_sales_of_each_day() {
    let data = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&data.path().join(DATABASE_FILE), Arc::new(SystemClock)).unwrap();
    // Four tickets: a loser, a 2-stake winner, two losers.
    let tickets: Vec<Ticket> = [
        "CSDRS/DRSCR/SDRMR",
        "PPSDR/DRSCR/SDRMR",
        "CSDRS/DRSCR/SDRMR",
        "CSDRS/DRSCR/SDRMR",
    ]
    .iter()
    .enumerate()
    .map(|(i, g)| ticket(i as u32, g))
    .collect();
    let block = Block {
        id: 1,
        stake: Stake::ONE_EURO,
        params: Params::default(),
        tree: MerkleTree::build(tickets.iter().map(|t| leaf_hash(1, t)).collect()),
        tickets,
    };
    let signed = block
        .commitment(Money::Play)
        .sign(&signing_key_from_secret([4; 32]));
    store
        .insert_block(&block, &signed, BlockSeeding::Os, 1)
        .unwrap();
    assert!(store.create_player("ann", PlayerKind::Demo, 1_000).unwrap());
    let sell = |key: &str, at_ms: u64| {
        let request = SaleRequest {
            player_id: "ann".to_owned(),
            stake: Stake::ONE_EURO,
            idempotency_key: key.to_owned(),
            client_nonce: ClientNonce([7; 16]),
        };
        let outcome = store.sell_batch(&[request], at_ms).unwrap().pop().unwrap();
        assert!(matches!(outcome, SaleOutcome::Sold(_)), "{outcome:?}");
    };
    sell("report-a", DAY_ONE_MS);
    sell("report-b", DAY_ONE_MS + 1_000);
    sell("report-c", DAY_TWO_MS);
    drop(store);

    let output = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args([
            "report",
            "daily",
            "--from",
            "2026-12-02",
            "--to",
            "2026-12-03",
            "--format",
            "csv",
            "--data",
        ])
        .arg(data.path())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "day,stake_cents,money,tickets,stakes_cents,prizes_cents,ggr_cents,rtp_basis_points\n\
         2026-12-02,100,play,2,200,200,0,10000\n\
         2026-12-03,100,play,1,100,0,100,0\n"
    );
    let bad = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args([
            "report",
            "daily",
            "--from",
            "2026-02-30",
            "--to",
            "2026-03-01",
            "--data",
        ])
        .arg(data.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}
