//! A fixed demo seed outlives its run only where it belongs (issue 9.2): a
//! server without the seed refuses seeded blocks still on hand, and a
//! seeded server refuses a data directory that holds real money.

use crate::common::*;
use eldorado_engine::commit::{leaf_hash, signing_key_from_secret};
use eldorado_engine::merkle::MerkleTree;
use eldorado_engine::{evaluate_grids, Block, Grid, Money, Params, Salt, Stake, Ticket};
use eldorado_server::clock::SystemClock;
use eldorado_server::seed_policy;
use eldorado_server::state::{StartError, DATABASE_FILE};
use eldorado_server::store::sqlite::SqliteStore;
use eldorado_server::store::{BlockSeeding, PlayerKind, Store};
use eldorado_server::AppState;
use std::path::Path;
use std::sync::Arc;

fn open_store(dir: &Path) -> Arc<dyn Store> {
    Arc::new(SqliteStore::open(&dir.join(DATABASE_FILE), Arc::new(SystemClock)).unwrap())
}

/// Stores a one-ticket committed block, as a generator seeded `seeding` would.
fn store_block(store: &dyn Store, id: u64, money: Money, seeding: BlockSeeding) {
    let grids: Vec<Grid> = vec!["CSDRS/DRSCR/SDRMR".parse().unwrap()];
    let evaluation = evaluate_grids(50, &grids).unwrap();
    let ticket = Ticket {
        position: 0,
        stake_cents: 50,
        prize_cents: evaluation.prize_cents(),
        extras: evaluation.extras,
        grids,
        salt: Salt([1; 16]),
    };
    let block = Block {
        id,
        stake: Stake::HALF_EURO,
        params: Params::default(),
        tree: MerkleTree::build(vec![leaf_hash(id, &ticket)]),
        tickets: vec![ticket],
    };
    let signed = block
        .commitment(money)
        .sign(&signing_key_from_secret([3; 32]));
    store.insert_block(&block, &signed, seeding, 1).unwrap();
}

fn refusal(config: eldorado_server::Config) -> String {
    match AppState::start_blocking(config) {
        Ok(_) => panic!("the server started"),
        Err(e @ StartError::SeedPolicy(_)) => e.to_string(),
        Err(other) => panic!("refused for another reason: {other}"),
    }
}

#[test]
fn a_server_without_the_seed_refuses_seeded_blocks_on_hand() {
    let dir = data_dir("seeded-blocks-on-hand");
    let store = open_store(&dir);
    store_block(&*store, 1, Money::Play, BlockSeeding::Demo);
    store_block(&*store, 2, Money::Play, BlockSeeding::Demo);
    drop(store);
    let mut unseeded = config(&dir);
    unseeded.demo_seed = None;
    for demo in [false, true] {
        unseeded.demo = demo;
        let message = refusal(unseeded.clone());
        for words in ["--demo-seed", "blocks 1, 2", "fresh data directory"] {
            assert!(message.contains(words), "{words:?} missing: {message}");
        }
    }
    // Nothing was generated or changed by the refused starts.
    let store = open_store(&dir);
    assert_eq!(store.blocks().unwrap().len(), 2);
    // Only blocks still to be sold count: once finished, seeded blocks are
    // history (and disclosed anyway).
    store.close_block(1).unwrap();
    store.close_block(2).unwrap();
    seed_policy::check(&*store, &unseeded, &dir).unwrap();
    // The seeded server itself may go on with them.
    seed_policy::check(&*store, &config(&dir), &dir).unwrap();
}

#[test]
fn a_seeded_server_refuses_operator_players_and_real_money_blocks() {
    let with_player = data_dir("seed-on-operator-players");
    let store = open_store(&with_player);
    store
        .create_player("ext-1", PlayerKind::Operator, 0)
        .unwrap();
    drop(store);
    let message = refusal(config(&with_player));
    for words in [
        "--demo-seed 20060101",
        "operator players",
        "fresh data directory",
    ] {
        assert!(message.contains(words), "{words:?} missing: {message}");
    }
    // Refused before any block was generated.
    assert!(open_store(&with_player).blocks().unwrap().is_empty());

    let with_real = data_dir("seed-on-real-blocks");
    let store = open_store(&with_real);
    store_block(&*store, 1, Money::Real, BlockSeeding::Os);
    // Even a finished real-money block: the directory is a real one.
    store.close_block(1).unwrap();
    drop(store);
    let message = refusal(config(&with_real));
    assert!(message.contains("1 real-money blocks"), "{message}");

    // Demo players and play-money blocks alone are no obstacle.
    let demo_only = data_dir("seed-on-demo-only");
    let store = open_store(&demo_only);
    store.create_player("demo-1", PlayerKind::Demo, 5).unwrap();
    store_block(&*store, 1, Money::Play, BlockSeeding::Demo);
    seed_policy::check(&*store, &config(&demo_only), &demo_only).unwrap();
}
