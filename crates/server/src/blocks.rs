//! Blocks on hand: generating and committing them off the request path,
//! keeping open blocks (`--open-blocks-per-line`) and one pending block per
//! stake and money (real money always, play money in demo mode), and the
//! Merkle trees that prove each sale.

use crate::few_at_a_time;
use crate::keys::os_random;
use crate::store::{BlockRecord, BlockSeeding, BlockStatus, LeaseKind, Store, StoreError};
use eldorado_engine::generate::demo_rng;
use eldorado_engine::merkle::MerkleTree;
use eldorado_engine::{
    generate_block, BlockRng, Hash, Money, Params, SeedableRng, SigningKey, Stake,
};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

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
    /// Open blocks per line (`--open-blocks-per-line`); one more is kept
    /// pending behind them.
    open_per_line: u32,
    /// Trees of open and pending blocks.
    live: RwLock<HashMap<u64, Arc<MerkleTree>>>,
    /// Trees of finished blocks rebuilt on demand, oldest first.
    old: Mutex<VecDeque<(u64, Arc<MerkleTree>)>>,
    /// One filler of the supply at a time in this process; the store's
    /// generation lease keeps other servers of the deployment out.
    filling: Mutex<()>,
    /// A background refresh is running.
    refreshing: AtomicBool,
    /// This server holds the generation lease (and generates) right now.
    holding_lease: AtomicBool,
    /// A refresh was asked for since the running one started.
    again: AtomicBool,
    /// Refreshes (generations among them) that failed or panicked since the
    /// last success.
    failures: AtomicU64,
}

/// How long a starting server waits before asking again for the generation
/// lease that another server holds.
const LEASE_RETRY: Duration = Duration::from_millis(200);

impl BlockBook {
    /// A book that keeps `open_per_line` blocks on sale, and one pending,
    /// for each stake and each kind of money in `moneys`.
    pub fn new(
        store: Arc<dyn Store>,
        key: Arc<SigningKey>,
        seeding: Seeding,
        moneys: Vec<Money>,
        open_per_line: u32,
    ) -> Result<Arc<BlockBook>, BlockError> {
        Ok(Arc::new(BlockBook {
            store,
            key,
            seeding,
            moneys,
            open_per_line,
            live: RwLock::new(HashMap::new()),
            old: Mutex::new(VecDeque::new()),
            filling: Mutex::new(()),
            refreshing: AtomicBool::new(false),
            holding_lease: AtomicBool::new(false),
            again: AtomicBool::new(false),
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
    /// makes sure each line has its open blocks and a pending one (generating
    /// them, or waiting for the server of the deployment that generates
    /// them). Returns when all of that is committed.
    pub fn prepare(self: &Arc<Self>) -> Result<(), BlockError> {
        self.load_live_trees(&self.store.blocks()?)?;
        self.fill(true)?;
        // Blocks another server generated while this one waited.
        self.load_live_trees(&self.store.blocks()?)
    }

    /// Re-reads the blocks every `every` from a background thread, for a
    /// store shared with other servers: a block they generate or open shows
    /// up here, and its tree is loaded, before a sale needs it. The thread
    /// ends with the book.
    pub fn watch(book: &Arc<BlockBook>, every: Duration) {
        let book = Arc::downgrade(book);
        let started = std::thread::Builder::new()
            .name("block-watch".into())
            .spawn(move || loop {
                std::thread::sleep(every);
                match book.upgrade() {
                    Some(book) => book.ensure_supply(),
                    None => return,
                }
            });
        if let Err(e) = started {
            tracing::error!(error = %e, "cannot start the block watcher");
        }
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

    /// Loads the trees of open and pending blocks not on hand (generated
    /// by another server, or stored before a restart), a few at a time.
    fn load_live_trees(&self, blocks: &[BlockRecord]) -> Result<(), BlockError> {
        let missing: Vec<u64> = blocks
            .iter()
            .filter(|b| matches!(b.status, BlockStatus::Open | BlockStatus::Pending))
            .map(|b| b.id())
            .filter(|id| !self.live_read().contains_key(id))
            .collect();
        let trees = few_at_a_time::run(
            &missing,
            few_at_a_time::workers(),
            |&id| match self.cached_tree(id) {
                Some(tree) => Ok(tree),
                None => self.rebuild(id),
            },
            || BlockError::Generate("tree rebuild panicked".into()),
        )?;
        self.live_write().extend(missing.into_iter().zip(trees));
        Ok(())
    }

    /// Generates what the supply lacks if this server gets the generation
    /// lease. Without it, `wait` waits until the server holding it has
    /// filled the supply (or let go of the lease); otherwise it leaves the
    /// work to that server.
    fn fill(&self, wait: bool) -> Result<(), BlockError> {
        let _one_filler = self.filling.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(_lease) = self.store.try_lease(LeaseKind::Generation)? {
                self.holding_lease.store(true, Ordering::SeqCst);
                let filled = self.fill_under_lease();
                self.holding_lease.store(false, Ordering::SeqCst);
                return filled;
            }
            if !wait || self.supply_is_full(&self.store.blocks()?) {
                return Ok(());
            }
            std::thread::sleep(LEASE_RETRY);
        }
    }

    fn supply_is_full(&self, blocks: &[BlockRecord]) -> bool {
        self.lines()
            .into_iter()
            .all(|line| live_count(blocks, line) >= self.live_per_line())
    }

    /// Open and pending blocks wanted per line.
    fn live_per_line(&self) -> usize {
        self.open_per_line as usize + 1
    }

    /// Current blocks first, then the next ones, so that ids (and demo
    /// seeds) follow a fixed order on a first start. Ids are read from the
    /// store under the lease: only its holder stores blocks.
    fn fill_under_lease(&self) -> Result<(), BlockError> {
        for round in 0..self.live_per_line() {
            let blocks = self.store.blocks()?;
            let mut next_id = self.store.next_block_id()?;
            let wanted: Vec<(Line, u64)> = self
                .lines()
                .into_iter()
                .filter(|&line| live_count(&blocks, line) <= round)
                .map(|line| {
                    next_id += 1;
                    (line, next_id - 1)
                })
                .collect();
            few_at_a_time::run(
                &wanted,
                few_at_a_time::workers(),
                |&(line, id)| self.generate(line, id),
                || BlockError::Generate("generation panicked".into()),
            )?;
        }
        Ok(())
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
            .insert_block(&block, &signed, self.seeding.kind(), self.open_per_line)
        {
            Ok(status) => {
                tracing::info!(
                    block = id,
                    stake = stake.cents(),
                    money = money.as_str(),
                    status = <&str>::from(status),
                    root = %signed.commitment.root,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "block generated and committed"
                );
                metrics::histogram!(crate::metrics::BLOCK_SECONDS).record(started.elapsed());
                Ok(())
            }
            Err(e) => {
                self.live_write().remove(&id);
                Err(e.into())
            }
        }
    }

    /// Brings the book in line with the store on a background thread:
    /// forgets the trees of finished blocks, loads those of blocks another
    /// server opened or generated, and generates what the supply lacks.
    /// Calls while a refresh runs make it run once more, never twice at once.
    pub fn ensure_supply(self: &Arc<Self>) {
        self.again.store(true, Ordering::SeqCst);
        if self.refreshing.swap(true, Ordering::SeqCst) {
            return;
        }
        let book = Arc::clone(self);
        let started = std::thread::Builder::new()
            .name("block-supply".into())
            .spawn(move || loop {
                while book.again.swap(false, Ordering::SeqCst) {
                    // Supervised: a failure or a panic is logged and the
                    // refresh tried again after a pause, instead of leaving
                    // the supply short for good.
                    let run =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| book.refresh()));
                    let failed = match run {
                        Ok(Ok(())) => false,
                        Ok(Err(e)) => {
                            tracing::error!(error = %e, "keeping the block supply failed");
                            true
                        }
                        Err(_) => {
                            tracing::error!("the block generator panicked; restarting it");
                            true
                        }
                    };
                    if failed {
                        book.failures.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(RETRY_AFTER_FAILURE);
                        book.again.store(true, Ordering::SeqCst);
                    } else {
                        book.failures.store(0, Ordering::SeqCst);
                    }
                }
                book.refreshing.store(false, Ordering::SeqCst);
                // A call that came after the last check and found the
                // refresh still marked running: take its turn here.
                if !book.again.load(Ordering::SeqCst)
                    || book.refreshing.swap(true, Ordering::SeqCst)
                {
                    return;
                }
            });
        if let Err(e) = started {
            self.refreshing.store(false, Ordering::SeqCst);
            tracing::error!(error = %e, "cannot start a block supply thread");
        }
    }

    fn refresh(&self) -> Result<(), BlockError> {
        let blocks = self.store.blocks()?;
        self.forget_finished(&blocks);
        self.load_live_trees(&blocks)?;
        if !self.supply_is_full(&blocks) {
            self.fill(false)?;
        }
        Ok(())
    }

    /// This server holds the generation lease right now (`/metrics`).
    pub fn holds_lease(&self) -> bool {
        self.holding_lease.load(Ordering::SeqCst)
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
    use crate::store::failing::Fault;
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
        let store = Arc::new(SqliteStore::open(&dir.path().join("db"), clock).unwrap());
        let key = Arc::new(eldorado_engine::commit::signing_key_from_secret([7; 32]));
        let book =
            BlockBook::new(store.clone(), key, Seeding::Demo(3), vec![Money::Play], 1).unwrap();
        assert!(book.generator_ok());

        store.faults().arm("INSERT INTO blocks", Some(Fault::Panic));
        book.ensure_supply();
        wait_until("a failure is reported", || !book.generator_ok());

        store.faults().arm("INSERT INTO blocks", None);
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
