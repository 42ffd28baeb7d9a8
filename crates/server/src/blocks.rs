//! Blocks on hand: generating and committing them off the request path,
//! keeping one open and one pending block per stake and money (real money
//! always, play money in demo mode), and the Merkle trees that prove each
//! sale.

use crate::keys::os_random;
use crate::store::{BlockRecord, BlockSeeding, BlockStatus, Store, StoreError};
use eldorado_engine::generate::demo_rng;
use eldorado_engine::merkle::MerkleTree;
use eldorado_engine::{
    generate_block, BlockRng, Hash, Money, Params, SeedableRng, SigningKey, Stake,
};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// Trees of finished blocks kept after a rebuild (each is ~26 MB).
const OLD_TREES: usize = 2;
/// Pause before a failed or panicked generation is tried again.
const RETRY_AFTER_FAILURE: std::time::Duration = std::time::Duration::from_secs(1);

#[derive(Clone, Copy, Debug)]
pub enum Seeding {
    /// Production: every block from 32 bytes of OS randomness.
    Os,
    /// Test only: block `id` from a seed derived from `(n, id)`.
    Demo(u64),
}

impl Seeding {
    /// What the store records of it.
    pub fn kind(self) -> BlockSeeding {
        match self {
            Seeding::Os => BlockSeeding::Os,
            Seeding::Demo(_) => BlockSeeding::Demo,
        }
    }
}

/// One supply line: the blocks of one stake sold for one kind of money.
type Line = (Stake, Money);

#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("block generation: {0}")]
    Generate(String),
}

pub struct BlockBook {
    store: Arc<dyn Store>,
    key: Arc<SigningKey>,
    seeding: Seeding,
    /// The kinds of money this server keeps blocks on sale for.
    moneys: Vec<Money>,
    next_id: Mutex<u64>,
    /// Trees of open and pending blocks.
    live: RwLock<HashMap<u64, Arc<MerkleTree>>>,
    /// Trees of finished blocks rebuilt on demand, oldest first.
    old: Mutex<VecDeque<(u64, Arc<MerkleTree>)>>,
    /// Lines whose next block is being generated.
    generating: Mutex<HashSet<Line>>,
    /// Generations that failed or panicked since the last success.
    failures: AtomicU64,
}

impl BlockBook {
    /// A book that keeps blocks on sale for each kind of money in `moneys`.
    pub fn new(
        store: Arc<dyn Store>,
        key: Arc<SigningKey>,
        seeding: Seeding,
        moneys: Vec<Money>,
    ) -> Result<Arc<BlockBook>, BlockError> {
        let next_id = store.next_block_id()?;
        Ok(Arc::new(BlockBook {
            store,
            key,
            seeding,
            moneys,
            next_id: Mutex::new(next_id),
            live: RwLock::new(HashMap::new()),
            old: Mutex::new(VecDeque::new()),
            generating: Mutex::new(HashSet::new()),
            failures: AtomicU64::new(0),
        }))
    }

    /// Every (stake, money) line this book supplies, in a fixed order.
    fn lines(&self) -> Vec<Line> {
        self.moneys
            .iter()
            .flat_map(|&money| Stake::ALL.iter().map(move |&stake| (stake, money)))
            .collect()
    }

    /// At start: rebuilds the trees of stored open and pending blocks, then
    /// generates what is missing so each line has an open and a pending
    /// block. Returns when all of that is committed.
    pub fn prepare(self: &Arc<Self>) -> Result<(), BlockError> {
        let blocks = self.store.blocks()?;
        let live: Vec<u64> = blocks
            .iter()
            .filter(|b| matches!(b.status, BlockStatus::Open | BlockStatus::Pending))
            .map(|b| b.id())
            .collect();
        std::thread::scope(|scope| -> Result<(), BlockError> {
            let handles: Vec<_> = live
                .iter()
                .map(|&id| scope.spawn(move || self.rebuild(id).map(|tree| (id, tree))))
                .collect();
            for handle in handles {
                let (id, tree) = handle
                    .join()
                    .map_err(|_| BlockError::Generate("tree rebuild panicked".into()))??;
                self.live_write().insert(id, tree);
            }
            Ok(())
        })?;
        // Current blocks first, then the next ones, so that ids (and demo
        // seeds) follow a fixed order on a first start.
        for round in 0..2 {
            let wanted: Vec<(Line, u64)> = self
                .lines()
                .into_iter()
                .filter(|&line| live_count(&blocks, line) <= round)
                .map(|line| (line, self.allocate_id()))
                .collect();
            std::thread::scope(|scope| -> Result<(), BlockError> {
                let handles: Vec<_> = wanted
                    .iter()
                    .map(|&(line, id)| scope.spawn(move || self.generate(line, id)))
                    .collect();
                for handle in handles {
                    handle
                        .join()
                        .map_err(|_| BlockError::Generate("generation panicked".into()))??;
                }
                Ok(())
            })?;
        }
        Ok(())
    }

    fn allocate_id(&self) -> u64 {
        let mut next = self.next_id.lock().unwrap_or_else(|p| p.into_inner());
        let id = *next;
        *next += 1;
        id
    }

    fn live_read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<u64, Arc<MerkleTree>>> {
        self.live.read().unwrap_or_else(|p| p.into_inner())
    }

    fn live_write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<u64, Arc<MerkleTree>>> {
        self.live.write().unwrap_or_else(|p| p.into_inner())
    }

    fn rebuild(&self, id: u64) -> Result<Arc<MerkleTree>, BlockError> {
        let leaves: Vec<Hash> = self.store.block_leaves(id)?;
        if leaves.is_empty() {
            return Err(BlockError::Store(StoreError::Corrupt(format!(
                "block {id} has no tickets"
            ))));
        }
        Ok(Arc::new(MerkleTree::build(leaves)))
    }

    /// Generates, commits, signs and stores block `id` (slow: whole seconds).
    fn generate(&self, (stake, money): Line, id: u64) -> Result<(), BlockError> {
        let started = std::time::Instant::now();
        let mut rng = match self.seeding {
            Seeding::Os => BlockRng::from_seed(
                os_random::<32>().map_err(|e| BlockError::Generate(e.to_string()))?,
            ),
            Seeding::Demo(n) => demo_rng(n, id),
        };
        let block = generate_block(id, stake, &Params::default(), &mut rng)
            .map_err(|e| BlockError::Generate(e.to_string()))?;
        let signed = block.commitment(money).sign(&self.key);
        // The tree is on hand before the block can open, so its first sale
        // always finds its proof.
        self.live_write().insert(id, Arc::new(block.tree.clone()));
        match self
            .store
            .insert_block(&block, &signed, self.seeding.kind())
        {
            Ok(status) => {
                tracing::info!(
                    block = id,
                    stake = stake.cents(),
                    money = money.as_str(),
                    status = status.as_str(),
                    root = %signed.commitment.root,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "block generated and committed"
                );
                Ok(())
            }
            Err(e) => {
                self.live_write().remove(&id);
                Err(e.into())
            }
        }
    }

    /// Makes sure every line has a pending block behind its open one,
    /// generating missing ones on background threads.
    pub fn ensure_supply(self: &Arc<Self>) {
        let blocks = match self.store.blocks() {
            Ok(blocks) => blocks,
            Err(e) => {
                tracing::error!(error = %e, "cannot list blocks to keep the supply");
                return;
            }
        };
        self.forget_finished(&blocks);
        for line in self.lines() {
            if live_count(&blocks, line) >= 2 {
                continue;
            }
            let mut generating = self.generating.lock().unwrap_or_else(|p| p.into_inner());
            if !generating.insert(line) {
                continue;
            }
            drop(generating);
            let id = self.allocate_id();
            let book = Arc::clone(self);
            std::thread::spawn(move || {
                // Supervised: a panic is logged and the generation retried,
                // instead of leaving the line marked as generating forever.
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    book.generate(line, id)
                }));
                let failed = match run {
                    Ok(Ok(())) => false,
                    Ok(Err(e)) => {
                        tracing::error!(error = %e, block = id, "generating the next block failed");
                        true
                    }
                    Err(_) => {
                        tracing::error!(block = id, "the block generator panicked; restarting it");
                        true
                    }
                };
                if failed {
                    book.failures.fetch_add(1, Ordering::SeqCst);
                    std::thread::sleep(RETRY_AFTER_FAILURE);
                } else {
                    book.failures.store(0, Ordering::SeqCst);
                }
                book.generating
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&line);
                // Sales may have finished another block meanwhile.
                book.ensure_supply();
            });
        }
    }

    /// False while the last generation failed or panicked and no later one
    /// has succeeded (it is being retried).
    pub fn generator_ok(&self) -> bool {
        self.failures.load(Ordering::SeqCst) == 0
    }

    /// Moves trees of blocks that sold out or were closed out of the live set.
    fn forget_finished(&self, blocks: &[BlockRecord]) {
        let finished: Vec<u64> = blocks
            .iter()
            .filter(|b| b.status.is_finished())
            .map(|b| b.id())
            .filter(|id| self.live_read().contains_key(id))
            .collect();
        for id in finished {
            if let Some(tree) = self.live_write().remove(&id) {
                self.keep_old(id, tree);
            }
        }
    }

    fn keep_old(&self, id: u64, tree: Arc<MerkleTree>) {
        let mut old = self.old.lock().unwrap_or_else(|p| p.into_inner());
        old.retain(|(other, _)| *other != id);
        old.push_back((id, tree));
        while old.len() > OLD_TREES {
            old.pop_front();
        }
    }

    /// The tree of any block; finished ones are rebuilt from stored leaves
    /// (blocking: call off the async threads when it may rebuild).
    pub fn tree(&self, id: u64) -> Result<Arc<MerkleTree>, BlockError> {
        if let Some(tree) = self.cached_tree(id) {
            return Ok(tree);
        }
        let tree = self.rebuild(id)?;
        self.keep_old(id, Arc::clone(&tree));
        Ok(tree)
    }

    pub fn cached_tree(&self, id: u64) -> Option<Arc<MerkleTree>> {
        if let Some(tree) = self.live_read().get(&id) {
            return Some(Arc::clone(tree));
        }
        let old = self.old.lock().unwrap_or_else(|p| p.into_inner());
        old.iter()
            .find(|(other, _)| *other == id)
            .map(|(_, tree)| Arc::clone(tree))
    }
}

/// Open and pending blocks of one line.
fn live_count(blocks: &[BlockRecord], (stake, money): Line) -> usize {
    blocks
        .iter()
        .filter(|b| {
            b.stake_cents() == stake.cents()
                && b.money() == money
                && matches!(b.status, BlockStatus::Open | BlockStatus::Pending)
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::store::failing::{FailingStore, PANIC, WORK};
    use crate::store::sqlite::SqliteStore;
    use std::time::{Duration, Instant};

    /// Only keeps a broken generator from hanging the test.
    const LIMIT: Duration = Duration::from_secs(300);

    fn wait_until(what: &str, done: impl Fn() -> bool) {
        let started = Instant::now();
        while !done() {
            assert!(started.elapsed() < LIMIT, "never: {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn a_panicking_generator_is_restarted_and_health_says_so_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(1_700_000_000_000));
        let store = Arc::new(FailingStore::new(
            SqliteStore::open(&dir.path().join("db"), clock).unwrap(),
        ));
        let key = Arc::new(eldorado_engine::commit::signing_key_from_secret([7; 32]));
        let book = BlockBook::new(store.clone(), key, Seeding::Demo(3), vec![Money::Play]).unwrap();
        assert!(book.generator_ok());

        store.blocks.store(PANIC, Ordering::SeqCst);
        book.ensure_supply();
        wait_until("a failure is reported", || !book.generator_ok());

        store.blocks.store(WORK, Ordering::SeqCst);
        // Every stake gets its open and pending blocks after all.
        wait_until("every stake is supplied", || {
            let blocks = store.blocks().unwrap();
            Stake::ALL
                .iter()
                .all(|&s| live_count(&blocks, (s, Money::Play)) == 2)
        });
        wait_until("the generator is healthy again", || book.generator_ok());
    }
}
