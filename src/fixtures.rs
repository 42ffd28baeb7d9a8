//! Genuine signed sales of a tiny committed block, built with the engine
//! exactly as the server builds them: for the tests, the fake backend and
//! the verification benchmark. Nothing here is reachable from the game.

use crate::api::{Config, LogConfig, PagePolicy, SaleResponse};
use eldorado_engine::commit::{leaf_hash, signing_key_from_secret};
use eldorado_engine::merkle::MerkleTree;
use eldorado_engine::prize_table::BLOCK_TICKETS;
use eldorado_engine::{
    evaluate_grids, ClientNonce, Commitment, Grid, Hash, Money, Sale, Salt, SignedCommitment,
    SignedSale, SigningKey, Ticket,
};

/// A losing main grid.
pub const LOSE: &[&str] = &["CSDRS/DRSCR/SDRMR"];
/// 2 stakes on the top line (two pyramids).
pub const WIN_2: &[&str] = &["PPSDR/DRSCR/SDRMR"];
/// 2 + 2 stakes on two lines.
pub const WIN_4: &[&str] = &["PPSDR/CCCDR/SDRMR"];
/// 10 stakes, rank 6: three pyramids on the top line.
pub const WIN_10: &[&str] = &["PPPDR/DRSCR/SDRMR"];
/// 50 stakes, rank 4: five daggers on the top line.
pub const WIN_50: &[&str] = &["DDDDD/DRSCR/SDRMR"];
/// 7,000 stakes, the top rank: five pyramids on the top line.
pub const WIN_7000: &[&str] = &["PPPPP/DRSCR/SDRMR"];
/// One Extra (a lone pyramid), whose Extra grid wins 2 stakes.
pub const EXTRA_1_WIN_2: &[&str] = &["PCSDR/DRSCR/SDRMR", "PPSDR/DRSCR/RDSCD"];
/// Two Extras: a losing Extra grid, then one winning 10 stakes.
pub const EXTRA_2_WIN_10: &[&str] = &[
    "PCSDR/CCSDR/SDRMR",
    "CSDRS/DRSCR/SDRMR",
    "PPPDR/DRSCR/SDRMR",
];

/// The operator secret of the fixtures (public knowledge: test use only).
pub const SECRET: [u8; 32] = [7; 32];
pub const PLAYER: &str = "demo-fixture";

pub struct FixtureBlock {
    key: SigningKey,
    pub block: u64,
    pub stake_cents: u64,
    pub tickets: Vec<Ticket>,
    tree: MerkleTree,
    pub commitment: SignedCommitment,
}

impl FixtureBlock {
    /// A block whose first tickets are `tickets` in sale order (prizes and
    /// Extras are what the rules make of the grids), padded with stand-in
    /// leaves to the rules' 400,000 tickets, as the page requires.
    ///
    /// Panics on grids that break the rules: fixtures are written by hand.
    pub fn new(block: u64, stake_cents: u64, tickets: &[&[&str]]) -> FixtureBlock {
        FixtureBlock::padded(block, stake_cents, tickets, BLOCK_TICKETS)
    }

    /// Like [`FixtureBlock::new`], in a tree of `size` leaves (the rest are
    /// stand-in hashes).
    pub fn padded(block: u64, stake_cents: u64, tickets: &[&[&str]], size: u32) -> FixtureBlock {
        let key = signing_key_from_secret(SECRET);
        let tickets: Vec<Ticket> = tickets
            .iter()
            .enumerate()
            .map(|(i, texts)| {
                let grids: Vec<Grid> = texts
                    .iter()
                    .map(|t| t.parse().expect("fixture grid"))
                    .collect();
                let evaluation = evaluate_grids(stake_cents, &grids).expect("fixture rules");
                Ticket {
                    position: i as u32,
                    stake_cents,
                    prize_cents: evaluation.prize_cents(),
                    extras: evaluation.extras,
                    grids,
                    salt: Salt([i as u8 ^ 0x5a; 16]),
                }
            })
            .collect();
        let size = size.max(tickets.len() as u32);
        let mut leaves: Vec<Hash> = tickets.iter().map(|t| leaf_hash(block, t)).collect();
        leaves.extend((leaves.len() as u32..size).map(|i| {
            let mut filler = [0u8; 32];
            filler[..4].copy_from_slice(&i.to_be_bytes());
            Hash(filler)
        }));
        let tree = MerkleTree::build(leaves);
        let commitment =
            Commitment::new(block, stake_cents, size, Money::Play, tree.root()).sign(&key);
        FixtureBlock {
            key,
            block,
            stake_cents,
            tickets,
            tree,
            commitment,
        }
    }

    pub fn public_key_hex(&self) -> String {
        eldorado_engine::commit::public_key_of(&self.key).to_hex()
    }

    pub fn unsigned_sale(&self, position: u32, sale_id: u64, sold_at_ms: u64) -> Sale {
        let index = position as usize;
        Sale {
            sale_id,
            block: self.block,
            tickets: self.commitment.commitment.tickets,
            ticket: self.tickets[index].clone(),
            proof: self.tree.proof(position).expect("position in block"),
            player: PLAYER.to_owned(),
            sold_at_ms,
            client_nonce: ClientNonce([0; 16]),
            balance_before_cents: None,
            balance_after_cents: None,
        }
    }

    pub fn sign(&self, sale: Sale) -> SignedSale {
        sale.sign(&self.key).expect("fixture sale fits")
    }

    pub fn sale(&self, position: u32, sale_id: u64, sold_at_ms: u64) -> SignedSale {
        self.sign(self.unsigned_sale(position, sale_id, sold_at_ms))
    }

    /// The server's answer to buying ticket `position` with `balance_before`
    /// (the fixtures' player, a zero nonce).
    pub fn response(&self, position: u32, sale_id: u64, balance_before: u64) -> SaleResponse {
        self.response_to(position, sale_id, balance_before, ClientNonce([0; 16]))
    }

    /// The server's answer to a purchase that sent `nonce`.
    pub fn response_to(
        &self,
        position: u32,
        sale_id: u64,
        balance_before: u64,
        nonce: ClientNonce,
    ) -> SaleResponse {
        let ticket = &self.tickets[position as usize];
        let mut sale = self.unsigned_sale(position, sale_id, 1_700_000_000_000 + sale_id);
        sale.client_nonce = nonce;
        let balance_after = balance_before - ticket.stake_cents + ticket.prize_cents;
        sale.balance_before_cents = Some(balance_before);
        sale.balance_after_cents = Some(balance_after);
        SaleResponse {
            sale: self.sign(sale),
            commitment: self.commitment.clone(),
            balance_before_cents: balance_before,
            balance_after_cents: balance_after,
            revealed: 0,
            complete: false,
            log_index: None,
            deal: None,
        }
    }
}

/// The configuration a server with the fixtures' key would publish, every
/// figure taken from the engine.
pub fn config(public_key_hex: &str) -> Config {
    use crate::rules_check::{max_wins, odds, prize_rows, stakes};
    use eldorado_engine::prize_table::rtp_basis_points;
    Config {
        stakes_cents: stakes().to_vec(),
        public_key: public_key_hex.to_owned(),
        rtp_basis_points: rtp_basis_points(),
        odds: odds(),
        max_win_cents: max_wins()
            .into_iter()
            .map(|(stake, max)| (stake.to_string(), max))
            .collect(),
        prize_table: prize_rows(),
        demo: true,
        starting_balance_cents: 5000,
        portal_origins: Vec::new(),
        log: LogConfig {
            origin: LOG_ORIGIN.to_owned(),
            key: log_key(public_key_hex),
            witnesses: Vec::new(),
            quorum: 0,
        },
        dealing: None,
        page: Some("fb5feaa94ed927ecd334675bcdce646e2c441f095b683adc2a17c09959cdcae1".to_owned()),
    }
}

/// The fixtures' operator key, in hex.
pub fn public_key_hex() -> String {
    eldorado_engine::commit::public_key_of(&signing_key_from_secret(SECRET)).to_hex()
}

/// The origin of the fixtures' log.
pub const LOG_ORIGIN: &str = "eldorado.test/log";

/// The log's verifier key for the operator key `public_key_hex`.
pub fn log_key(public_key_hex: &str) -> String {
    let key = eldorado_engine::PublicKeyBytes::from_hex(public_key_hex)
        .ok()
        .and_then(|k| eldorado_engine::commit::verifying_key(&k).ok())
        .expect("the fixtures' key is a valid Ed25519 key");
    eldorado_engine::transparency::LogKey::new(LOG_ORIGIN, key)
        .expect("a valid origin")
        .vkey()
}

/// The secret of the fixtures' witness (public knowledge: test use only).
pub const WITNESS_SECRET: [u8; 32] = [0x42; 32];
/// The fixtures' witness's name.
pub const WITNESS_NAME: &str = "witness.test";

fn cosigner(secret: [u8; 32], name: &str) -> eldorado_engine::transparency::Cosigner {
    eldorado_engine::transparency::Cosigner::new(name, signing_key_from_secret(secret))
        .expect("a valid witness name")
}

/// The fixtures' witness's cosignature verifier key.
pub fn witness_vkey() -> String {
    cosigner(WITNESS_SECRET, WITNESS_NAME).witness_key().vkey()
}

/// The built page's policy for the fixtures' server: its witness, alone,
/// and tickets dealt in order.
pub fn page_policy() -> PagePolicy {
    PagePolicy {
        witnesses: vec![witness_vkey()],
        quorum: 1,
        beacon: None,
    }
}

/// Another witness's key, which never cosigns the fixtures' log.
pub fn other_witness_vkey() -> String {
    cosigner([0x43; 32], "other.test").witness_key().vkey()
}

/// A public log in memory: its records and their tree, built as the server
/// builds its own (the engine's `MemoryTree`), with checkpoints signed by
/// the fixtures' operator key and cosigned by the fixtures' witness.
#[derive(Clone, Debug, Default)]
pub struct FixtureLog {
    leaves: Vec<Vec<u8>>,
    tree: eldorado_engine::transparency::MemoryTree,
}

impl FixtureLog {
    pub fn new() -> FixtureLog {
        FixtureLog::default()
    }

    /// Appends a record; returns its index.
    pub fn append(&mut self, leaf: Vec<u8>) -> u64 {
        let n = self.size();
        self.tree.append(&leaf).expect("a tree in memory");
        self.leaves.push(leaf);
        n
    }

    pub fn size(&self) -> u64 {
        self.tree.size()
    }

    pub fn leaf(&self, index: u64) -> Option<&[u8]> {
        self.leaves.get(index as usize).map(Vec::as_slice)
    }

    pub fn root(&self, size: u64) -> Hash {
        self.tree.root(size).expect("a size within the tree")
    }

    pub fn inclusion(&self, index: u64, size: u64) -> crate::api::InclusionProof {
        crate::api::InclusionProof {
            index,
            size,
            hashes: self
                .tree
                .inclusion(index, size)
                .expect("a record within the tree"),
        }
    }

    pub fn consistency(&self, from: u64, size: u64) -> Vec<Hash> {
        self.tree
            .consistency(from, size)
            .expect("sizes within the tree")
    }

    /// The checkpoint of the first `size` records with root `root`, signed
    /// by the fixtures' operator key, cosigned by the fixtures' witness if
    /// `cosigned`.
    pub fn checkpoint_of(size: u64, root: &Hash, cosigned: bool) -> String {
        let key = signing_key_from_secret(SECRET);
        let note = eldorado_engine::transparency::sign_checkpoint(LOG_ORIGIN, size, root, &key)
            .expect("a valid checkpoint");
        let mut text = String::from_utf8(note).expect("a text note");
        if cosigned {
            let line = cosigner(WITNESS_SECRET, WITNESS_NAME)
                .cosign(text.as_bytes(), 1_700_000_000)
                .expect("a cosignature");
            text.push_str(&line);
        }
        text
    }

    /// The checkpoint of the whole log as served.
    pub fn checkpoint(&self, cosigned: bool) -> String {
        FixtureLog::checkpoint_of(self.size(), &self.root(self.size()), cosigned)
    }
}
