//! Generating, shuffling and committing one 400,000-ticket block.

use criterion::{criterion_group, criterion_main, Criterion};
use eldorado_engine::{generate_block, BlockRng, Params, SeedableRng, Stake};

fn block(c: &mut Criterion) {
    let mut group = c.benchmark_group("block");
    group.sample_size(10);
    let params = Params::default();
    let mut seed = 0u64;
    group.bench_function("generate_shuffle_commit_400k", |b| {
        b.iter(|| {
            seed += 1;
            let mut rng = BlockRng::seed_from_u64(seed);
            let block =
                generate_block(1, Stake::ONE_EURO, &params, &mut rng).expect("default params");
            block.root()
        })
    });
    group.finish();
}

criterion_group!(benches, block);
criterion_main!(benches);
