//! Fair dealing's costs for a 400,000-ticket block: building the unsold
//! tree, dealing one sale (rank, select, take with its proof) and checking
//! one deal as the page does, and verifying one beacon round (quicknet's
//! round 657413, public data).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use eldorado_engine::deal::{deal_one, verify_deal, BeaconKey, UnsoldTree};
use eldorado_engine::transparency::record_hash;

const TICKETS: u32 = 400_000;

fn deal(c: &mut Criterion) {
    let mut group = c.benchmark_group("deal");
    group.bench_function("unsold_tree_new_400k", |b| {
        b.iter(|| UnsoldTree::new(TICKETS).expect("a block size"))
    });
    let randomness = [7u8; 32];
    let fresh = UnsoldTree::new(TICKETS).expect("a block size");
    let mut n = 0u32;
    group.bench_function("deal_one_of_400k", |b| {
        b.iter_batched_ref(
            || fresh.clone(),
            |tree| {
                n = n.wrapping_add(1);
                deal_one(tree, &randomness, &record_hash(&n.to_be_bytes())).expect("unsold left")
            },
            BatchSize::LargeInput,
        )
    });
    let mut tree = fresh.clone();
    let sale = record_hash(b"sale");
    let (proof, _) = deal_one(&mut tree, &randomness, &sale).expect("unsold left");
    group.bench_function("verify_deal_400k", |b| {
        b.iter(|| verify_deal(&randomness, &sale, &proof).expect("by the rule"))
    });
    let key = BeaconKey::from_bytes(&hex::decode(QUICKNET_KEY).unwrap().try_into().unwrap())
        .expect("quicknet's key");
    let signature: [u8; 48] = hex::decode(ROUND_657413).unwrap().try_into().unwrap();
    group.bench_function("verify_beacon_round", |b| {
        b.iter(|| key.verify(657_413, &signature).expect("a genuine round"))
    });
    group.finish();
}

const QUICKNET_KEY: &str = "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a";
const ROUND_657413: &str = "b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b";

criterion_group!(benches, deal);
criterion_main!(benches);
