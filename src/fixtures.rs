//! Genuine signed sales of a tiny committed block, built with the engine
//! exactly as the server builds them: for the tests, the fake backend and
//! the verification benchmark. Nothing here is reachable from the game.

use crate::api::{Config, Odds, PrizeRow, SaleResponse};
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
        }
    }

    pub fn sign(&self, sale: Sale) -> SignedSale {
        sale.sign(&self.key).expect("fixture sale fits")
    }

    pub fn sale(&self, position: u32, sale_id: u64, sold_at_ms: u64) -> SignedSale {
        self.sign(self.unsigned_sale(position, sale_id, sold_at_ms))
    }

    /// The server's answer to buying ticket `position` with `balance_before`.
    pub fn response(&self, position: u32, sale_id: u64, balance_before: u64) -> SaleResponse {
        let ticket = &self.tickets[position as usize];
        SaleResponse {
            sale: self.sale(position, sale_id, 1_700_000_000_000 + sale_id),
            commitment: self.commitment.clone(),
            balance_before_cents: balance_before,
            balance_after_cents: balance_before - ticket.stake_cents + ticket.prize_cents,
            revealed: 0,
            complete: false,
        }
    }
}

/// The configuration a server with the fixtures' key would publish, the
/// prize table taken from the engine.
pub fn config(public_key_hex: &str) -> Config {
    use eldorado_engine::prize_table::{max_win_cents, odds_fraction, rtp_basis_points, RANKS};
    use eldorado_engine::Stake;
    let (tickets, winners) = odds_fraction();
    Config {
        stakes_cents: Stake::ALL.iter().map(|s| s.cents()).collect(),
        public_key: public_key_hex.to_owned(),
        rtp_basis_points: rtp_basis_points(),
        odds: Odds { tickets, winners },
        max_win_cents: Stake::ALL
            .iter()
            .map(|s| (s.cents().to_string(), max_win_cents(*s)))
            .collect(),
        prize_table: RANKS
            .iter()
            .map(|r| PrizeRow {
                rank: r.rank,
                multiple: u64::from(r.multiple),
                count: u64::from(r.count),
                direct: u64::from(r.direct),
                via_extras: u64::from(r.via_extras),
                decompositions: r
                    .decompositions
                    .iter()
                    .map(|d| d.iter().map(|&a| u64::from(a)).collect())
                    .collect(),
            })
            .collect(),
        demo: true,
        starting_balance_cents: 5000,
    }
}
