//! Genuine signed sales of a tiny committed block, built with the engine
//! exactly as the server builds them: for the tests, the fake backend and
//! the verification benchmark. Nothing here is reachable from the game.

use crate::api::{Config, SaleResponse};
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
        SaleResponse {
            sale: self.sign(sale),
            commitment: self.commitment.clone(),
            balance_before_cents: balance_before,
            balance_after_cents: balance_before - ticket.stake_cents + ticket.prize_cents,
            revealed: 0,
            complete: false,
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
    }
}
