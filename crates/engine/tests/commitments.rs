//! SPEC §7: signed commitments and sales, and that any tampering is caught.

use eldorado_engine::commit::{public_key_of, signing_key_from_secret};
use eldorado_engine::generate::{Drawer, Plan};
use eldorado_engine::merkle::MerkleTree;
use eldorado_engine::{
    verify_sale, BlockRng, Check, Commitment, Hash, Params, Sale, SeedableRng, SignedCommitment,
    SignedSale, Stake,
};

const BLOCK: u64 = 42;
const TICKETS: u32 = 13;

/// A small committed block (13 tickets: odd levels included) and a signed
/// sale of the ticket at `position`, which has Extras and a win.
fn fixture(
    position: u32,
) -> (
    SignedSale,
    SignedCommitment,
    eldorado_engine::PublicKeyBytes,
) {
    let key = signing_key_from_secret([9; 32]);
    let mut rng = BlockRng::seed_from_u64(1);
    let drawer = Drawer::new(&Params::default());
    let tickets: Vec<_> = (0..TICKETS)
        .map(|p| {
            drawer.draw(
                &mut rng,
                p,
                Stake::ONE_EURO,
                Plan::Win { rank: 4, extras: 2 },
            )
        })
        .collect();
    let tree = MerkleTree::build(
        tickets
            .iter()
            .map(|t| eldorado_engine::commit::leaf_hash(BLOCK, t))
            .collect(),
    );
    let commitment = Commitment::new(BLOCK, 100, TICKETS, tree.root()).sign(&key);
    let sale = Sale {
        sale_id: 1234,
        block: BLOCK,
        tickets: TICKETS,
        ticket: tickets[position as usize].clone(),
        proof: tree.proof(position).unwrap(),
        player: "player-1".to_owned(),
        sold_at_ms: 1_780_000_000_000,
    }
    .sign(&key)
    .unwrap();
    (sale, commitment, public_key_of(&key))
}

fn failed_checks(sale: &SignedSale, commitment: &SignedCommitment, stake: u64) -> Vec<Check> {
    let (_, _, key) = fixture(0);
    verify_sale(sale, commitment, &key, stake)
        .checks
        .into_iter()
        .filter_map(|(check, result)| result.is_err().then_some(check))
        .collect()
}

#[test]
fn genuine_sales_verify_at_every_position() {
    for position in 0..TICKETS {
        let (sale, commitment, key) = fixture(position);
        let report = verify_sale(&sale, &commitment, &key, 100);
        assert!(
            report.is_verified(),
            "{position}: {:?}",
            report.first_failure()
        );
        assert_eq!(report.evaluation.unwrap().prize_cents(), 2_500);
    }
}

#[test]
fn flipping_any_bit_of_the_signature_fails() {
    let (sale, commitment, _) = fixture(5);
    for byte in 0..64 {
        for bit in 0..8 {
            let mut tampered = sale.clone();
            tampered.signature.0[byte] ^= 1 << bit;
            assert_eq!(
                failed_checks(&tampered, &commitment, 100),
                vec![Check::SaleSignature]
            );
        }
    }
}

#[test]
fn flipping_any_byte_of_the_proof_fails_even_if_resigned() {
    let (sale, commitment, _) = fixture(6);
    let key = signing_key_from_secret([9; 32]);
    for index in 0..sale.sale.proof.len() {
        for byte in 0..32 {
            let mut inner = sale.sale.clone();
            inner.proof[index].0[byte] ^= 0x01;
            // As sent: the signature no longer matches.
            let forged = SignedSale {
                sale: inner.clone(),
                signature: sale.signature,
            };
            assert!(failed_checks(&forged, &commitment, 100).contains(&Check::SaleSignature));
            // Even an operator re-signing it cannot make it reach the root.
            let resigned = inner.sign(&key).unwrap();
            assert_eq!(
                failed_checks(&resigned, &commitment, 100),
                vec![Check::MerkleProof]
            );
        }
    }
}

#[test]
fn changing_any_signed_field_breaks_the_signature() {
    let (sale, commitment, _) = fixture(3);
    type Edit = Box<dyn Fn(&mut Sale)>;
    let edits: Vec<(&str, Edit)> = vec![
        ("sale_id", Box::new(|s| s.sale_id += 1)),
        ("player", Box::new(|s| s.player.push('x'))),
        ("sold_at_ms", Box::new(|s| s.sold_at_ms -= 1)),
        ("position", Box::new(|s| s.ticket.position += 1)),
        ("salt", Box::new(|s| s.ticket.salt.0[15] ^= 0x80)),
        ("prize", Box::new(|s| s.ticket.prize_cents += 1)),
        ("extras", Box::new(|s| s.ticket.extras -= 1)),
        (
            "grid cell",
            Box::new(|s| s.ticket.grids[1] = "CSSDD/DDDRR/RRRRS".parse().unwrap()),
        ),
        ("tickets", Box::new(|s| s.tickets += 1)),
    ];
    for (name, edit) in edits {
        let mut tampered = sale.clone();
        edit(&mut tampered.sale);
        let failed = failed_checks(&tampered, &commitment, 100);
        assert!(failed.contains(&Check::SaleSignature), "{name}: {failed:?}");
    }
}

#[test]
fn a_resigned_ticket_that_breaks_the_rules_or_the_tree_is_caught() {
    let (sale, commitment, _) = fixture(2);
    let key = signing_key_from_secret([9; 32]);
    // The prize raised: the rules and the leaf both give it away.
    let mut inner = sale.sale.clone();
    inner.ticket.prize_cents = 5_000;
    let failed = failed_checks(&inner.sign(&key).unwrap(), &commitment, 100);
    assert_eq!(failed, vec![Check::Rules, Check::MerkleProof]);
    // One cell changed on an Extra grid.
    let mut inner = sale.sale.clone();
    let mut codes = inner.ticket.grids[1].codes();
    codes[0] = if codes[0] == b'M' { b'R' } else { b'M' };
    inner.ticket.grids[1] = eldorado_engine::Grid::from_codes(&codes).unwrap();
    let failed = failed_checks(&inner.sign(&key).unwrap(), &commitment, 100);
    assert!(failed.contains(&Check::MerkleProof), "{failed:?}");
}

#[test]
fn the_stake_played_and_the_block_must_match() {
    let (sale, commitment, _) = fixture(1);
    assert_eq!(
        failed_checks(&sale, &commitment, 200),
        vec![Check::StakePlayed]
    );
    let key = signing_key_from_secret([9; 32]);
    let other_block = Commitment {
        block: BLOCK + 1,
        ..commitment.commitment.clone()
    }
    .sign(&key);
    assert_eq!(
        failed_checks(&sale, &other_block, 100),
        vec![Check::SameBlock]
    );
}

#[test]
fn commitments_are_bound_to_the_operator_key_and_every_byte() {
    let (sale, commitment, key) = fixture(0);
    commitment.verify(&key).unwrap();
    let mut root_changed = commitment.clone();
    root_changed.commitment.root.0[0] ^= 1;
    assert!(root_changed.verify(&key).is_err());
    let mut stake_changed = commitment.clone();
    stake_changed.commitment.stake_cents = 200;
    assert!(stake_changed.verify(&key).is_err());
    let mut table_changed = commitment.clone();
    table_changed.commitment.prize_table = Hash([0; 32]);
    assert!(table_changed.verify(&key).is_err());
    // A commitment signed by someone else is refused even if valid.
    let stranger = Commitment {
        ..commitment.commitment.clone()
    }
    .sign(&signing_key_from_secret([1; 32]));
    assert!(stranger.verify(&key).is_err());
    assert!(failed_checks(&sale, &stranger, 100).contains(&Check::CommitmentSignature));
}

#[test]
fn a_sale_survives_its_json_form_unchanged() {
    let (sale, commitment, key) = fixture(4);
    let json = serde_json::to_string(&sale).unwrap();
    let back: SignedSale = serde_json::from_str(&json).unwrap();
    assert_eq!(back, sale);
    assert!(verify_sale(&back, &commitment, &key, 100).is_verified());
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    for field in [
        "sale_id",
        "block",
        "tickets",
        "ticket",
        "proof",
        "player",
        "sold_at_ms",
        "signature",
    ] {
        assert!(value.get(field).is_some(), "missing {field}");
    }
    // Stakes outside 50/100/200 never deserialize into a Stake.
    assert!(serde_json::from_str::<Stake>("70").is_err());
}
