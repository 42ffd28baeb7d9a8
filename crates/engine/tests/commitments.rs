//! SPEC §7: signed commitments and sales, and that any tampering is caught.

use eldorado_engine::commit::{public_key_of, signing_key_from_secret};
use eldorado_engine::generate::{Drawer, Plan};
use eldorado_engine::merkle::MerkleTree;
use eldorado_engine::prize_table::BLOCK_TICKETS;
use eldorado_engine::{
    verify_receipt, verify_sale, verify_sale_remembering, BalanceChange, BlockRng, Check,
    ClientNonce, Commitment, CommitmentSeen, Expected, Hash, Money, Params, PublicKeyBytes, Sale,
    SeedableRng, SignedCommitment, SignedSale, Stake, Ticket, VerifiedCommitments,
};
use std::sync::OnceLock;

const BLOCK: u64 = 42;
/// Tickets drawn for real at the start of the block; the rest of its
/// 400,000 leaves are stand-ins, which no test sells.
const DRAWN: u32 = 13;
const PLAYER: &str = "player-1";
const NONCE: ClientNonce = ClientNonce([0x5a; 16]);

/// A full-size committed block whose first tickets all win rank 4 with two
/// Extras, built once for the whole test binary.
fn block() -> &'static (Vec<Ticket>, MerkleTree) {
    static BLOCK_TREE: OnceLock<(Vec<Ticket>, MerkleTree)> = OnceLock::new();
    BLOCK_TREE.get_or_init(|| {
        let mut rng = BlockRng::seed_from_u64(1);
        let drawer = Drawer::new(&Params::default());
        let tickets: Vec<_> = (0..DRAWN)
            .map(|p| {
                drawer.draw(
                    &mut rng,
                    p,
                    Stake::ONE_EURO,
                    Plan::Win { rank: 4, extras: 2 },
                )
            })
            .collect();
        let leaves = tickets
            .iter()
            .map(|t| eldorado_engine::commit::leaf_hash(BLOCK, t))
            .chain((DRAWN..BLOCK_TICKETS).map(|i| {
                let mut filler = [0u8; 32];
                filler[..4].copy_from_slice(&i.to_be_bytes());
                Hash(filler)
            }))
            .collect();
        (tickets, MerkleTree::build(leaves))
    })
}

fn operator_key() -> ed25519_dalek::SigningKey {
    signing_key_from_secret([9; 32])
}

/// The signed sale of the ticket at `position` to [`PLAYER`] with
/// [`NONCE`], its block's real-money commitment and the operator key.
fn fixture(position: u32) -> (SignedSale, SignedCommitment, PublicKeyBytes) {
    let key = operator_key();
    let (tickets, tree) = block();
    let commitment =
        Commitment::new(BLOCK, 100, BLOCK_TICKETS, Money::Real, tree.root()).sign(&key);
    let sale = Sale {
        sale_id: 1234,
        block: BLOCK,
        tickets: BLOCK_TICKETS,
        ticket: tickets[position as usize].clone(),
        proof: tree.proof(position).unwrap(),
        player: PLAYER.to_owned(),
        sold_at_ms: 1_780_000_000_000,
        client_nonce: NONCE,
        balance_before_cents: None,
        balance_after_cents: None,
    }
    .sign(&key)
    .unwrap();
    (sale, commitment, public_key_of(&key))
}

/// What the buyer of [`fixture`]'s sales expects, having seen `seen` and
/// played `stake` with 10 € before.
fn purchase(stake: u64, seen: &SignedCommitment) -> Expected<'_> {
    Expected {
        stake_cents: Some(stake),
        player: Some(PLAYER),
        client_nonce: Some(NONCE),
        money: Some(Money::Real),
        commitment_seen: CommitmentSeen::Seen(seen),
        balance: Some(BalanceChange {
            before_cents: 1_000,
            after_cents: 1_000 - 100 + 2_500,
        }),
        deal: None,
    }
}

fn failures(report: eldorado_engine::Report) -> Vec<Check> {
    report
        .checks
        .into_iter()
        .filter_map(|(check, result)| result.is_err().then_some(check))
        .collect()
}

fn failed_checks(sale: &SignedSale, commitment: &SignedCommitment, stake: u64) -> Vec<Check> {
    let (_, _, key) = fixture(0);
    failures(verify_sale(
        sale,
        commitment,
        &key,
        &purchase(stake, commitment),
    ))
}

/// Every check but the beacon's deal: these sales are dealt in order, and
/// no buyer expects a deal (`tests/deal_replay.rs` and the end-to-end tests
/// check dealt sales).
fn checks_of_a_sale_dealt_in_order() -> usize {
    Check::ALL.len() - 1
}

#[test]
fn genuine_sales_verify_at_every_position() {
    for position in 0..DRAWN {
        let (sale, commitment, key) = fixture(position);
        let report = verify_sale(&sale, &commitment, &key, &purchase(100, &commitment));
        assert_eq!(report.checks.len(), checks_of_a_sale_dealt_in_order());
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
        ("client_nonce", Box::new(|s| s.client_nonce.0[0] ^= 1)),
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
    // The prize raised: the rules, the leaf and the balance all give it away.
    let mut inner = sale.sale.clone();
    inner.ticket.prize_cents = 5_000;
    let failed = failed_checks(&inner.sign(&key).unwrap(), &commitment, 100);
    assert_eq!(
        failed,
        vec![Check::Rules, Check::MerkleProof, Check::Balance]
    );
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
fn a_commitment_survives_its_flat_json_form_unchanged() {
    let (_, commitment, key) = fixture(4);
    let json = serde_json::to_string(&commitment).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    for field in [
        "block",
        "stake_cents",
        "tickets",
        "money",
        "prize_table",
        "root",
    ] {
        assert!(value.get(field).is_some(), "{field} at the top level");
    }
    let back: SignedCommitment = serde_json::from_str(&json).unwrap();
    assert_eq!(back, commitment);
    assert!(back.verify(&key).is_ok());
    // A field added by a later server is ignored, as before.
    let mut extended = value;
    extended["note"] = serde_json::json!("later");
    let back: SignedCommitment = serde_json::from_value(extended).unwrap();
    assert_eq!(back, commitment);
}

#[test]
fn a_sale_survives_its_json_form_unchanged() {
    let (sale, commitment, key) = fixture(4);
    let json = serde_json::to_string(&sale).unwrap();
    let back: SignedSale = serde_json::from_str(&json).unwrap();
    assert_eq!(back, sale);
    assert!(verify_sale(&back, &commitment, &key, &purchase(100, &commitment)).is_verified());
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    for field in [
        "sale_id",
        "block",
        "tickets",
        "ticket",
        "proof",
        "player",
        "sold_at_ms",
        "client_nonce",
        "signature",
    ] {
        assert!(value.get(field).is_some(), "missing {field}");
    }
    // Stakes outside 50/100/200 never deserialize into a Stake.
    assert!(serde_json::from_str::<Stake>("70").is_err());
}

#[test]
fn a_block_made_for_one_buyer_is_refused_even_if_signed() {
    // The operator picks a ticket, commits to a one-ticket "block" holding
    // it and signs both: every signature and the proof are genuine.
    let key = operator_key();
    let (tickets, _) = block();
    let ticket = tickets[0].clone();
    let tree = MerkleTree::build(vec![eldorado_engine::commit::leaf_hash(BLOCK, &ticket)]);
    let commitment = Commitment::new(BLOCK, 100, 1, Money::Real, tree.root()).sign(&key);
    let sale = Sale {
        sale_id: 1,
        block: BLOCK,
        tickets: 1,
        ticket,
        proof: vec![],
        player: PLAYER.to_owned(),
        sold_at_ms: 1,
        client_nonce: NONCE,
        balance_before_cents: None,
        balance_after_cents: None,
    }
    .sign(&key)
    .unwrap();
    let report = verify_receipt(&sale, &commitment, &public_key_of(&key));
    assert!(!report.is_verified());
    assert_eq!(failures(report), vec![Check::BlockSize]);
}

#[test]
fn a_replayed_or_foreign_sale_is_refused() {
    let (sale, commitment, key) = fixture(7);
    let other_nonce = Expected {
        client_nonce: Some(ClientNonce([0x11; 16])),
        ..purchase(100, &commitment)
    };
    assert_eq!(
        failures(verify_sale(&sale, &commitment, &key, &other_nonce)),
        vec![Check::ClientNonce]
    );
    let other_player = Expected {
        player: Some("player-2"),
        ..purchase(100, &commitment)
    };
    assert_eq!(
        failures(verify_sale(&sale, &commitment, &key, &other_player)),
        vec![Check::Player]
    );
}

#[test]
fn a_commitment_not_announced_before_the_purchase_is_refused() {
    let (sale, commitment, key) = fixture(8);
    let unseen = Expected {
        commitment_seen: CommitmentSeen::Unseen,
        ..purchase(100, &commitment)
    };
    assert_eq!(
        failures(verify_sale(&sale, &commitment, &key, &unseen)),
        vec![Check::CommitmentSeen]
    );
    // Equivocation: two signed commitments for one block id.
    let announced = Commitment {
        root: Hash([7; 32]),
        ..commitment.commitment.clone()
    }
    .sign(&operator_key());
    let equivocating = Expected {
        commitment_seen: CommitmentSeen::Seen(&announced),
        ..purchase(100, &commitment)
    };
    assert_eq!(
        failures(verify_sale(&sale, &commitment, &key, &equivocating)),
        vec![Check::CommitmentSeen]
    );
}

#[test]
fn play_money_and_real_money_tickets_do_not_mix() {
    let (sale, commitment, key) = fixture(9);
    let play_player = Expected {
        money: Some(Money::Play),
        ..purchase(100, &commitment)
    };
    assert_eq!(
        failures(verify_sale(&sale, &commitment, &key, &play_player)),
        vec![Check::MoneyKind]
    );
    // The money byte is signed: relabelling the block breaks its signature.
    let mut relabelled = commitment.clone();
    relabelled.commitment.money = Money::Play;
    assert!(relabelled.verify(&key).is_err());
}

#[test]
fn the_balance_must_move_by_exactly_the_prize_less_the_stake() {
    let (sale, commitment, key) = fixture(10);
    for after_cents in [1_000 - 100 + 2_500 + 1, 1_000 - 100, 1_000 + 2_500] {
        let inflated = Expected {
            balance: Some(BalanceChange {
                before_cents: 1_000,
                after_cents,
            }),
            ..purchase(100, &commitment)
        };
        assert_eq!(
            failures(verify_sale(&sale, &commitment, &key, &inflated)),
            vec![Check::Balance],
            "{after_cents}"
        );
    }
    // A balance below the stake cannot have paid for the ticket.
    let underwater = Expected {
        balance: Some(BalanceChange {
            before_cents: 50,
            after_cents: 2_450,
        }),
        ..purchase(100, &commitment)
    };
    assert_eq!(
        failures(verify_sale(&sale, &commitment, &key, &underwater)),
        vec![Check::Balance]
    );
}

#[test]
fn a_receipt_runs_only_the_checks_that_need_no_session() {
    let (sale, commitment, key) = fixture(11);
    let report = verify_receipt(&sale, &commitment, &key);
    assert!(report.is_verified());
    let ran: Vec<Check> = report.checks.iter().map(|(c, _)| *c).collect();
    assert_eq!(ran, Check::RECEIPT.to_vec());
}

/// The worked example of docs/PROTOCOL.md §5: if the document and the
/// engine ever disagree, this fails.
#[test]
fn the_protocol_worked_example_of_a_v2_sale() {
    let ticket = Ticket {
        position: 1234,
        stake_cents: 100,
        grids: vec!["SDRCD/PPSDR/RSDCM".parse().unwrap()],
        prize_cents: 0,
        extras: 0,
        salt: eldorado_engine::Salt([0x0f; 16]),
    };
    let sale = Sale {
        sale_id: 17,
        block: 3,
        tickets: BLOCK_TICKETS,
        ticket,
        proof: vec![Hash([0x11; 32]), Hash([0x22; 32])],
        player: "alice".to_owned(),
        sold_at_ms: 1_796_200_000_000,
        client_nonce: ClientNonce::from_hex("00112233445566778899aabbccddeeff").unwrap(),
        balance_before_cents: None,
        balance_after_cents: None,
    };
    let bytes = sale.canonical_bytes().unwrap();
    let key = signing_key_from_secret([7; 32]);
    let signed = sale.clone().sign(&key).unwrap();
    assert_eq!(
        sale.leaf().to_hex(),
        "76aef579b354c6757926c303f04562641fb9d96e692d40e520f46cd159876cbe"
    );
    assert_eq!(
        public_key_of(&key).to_hex(),
        "ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c"
    );
    assert_eq!(hex::encode(&bytes), EXAMPLE_SALE_BYTES);
    assert_eq!(signed.signature.to_hex(), EXAMPLE_SALE_SIGNATURE);
}

const EXAMPLE_SALE_BYTES: &str = concat!(
    "454c444f5241444f2d53414c452d5632",
    "0000000000000011",
    "0000000000000003",
    "00061a80",
    "000004d2",
    "76aef579b354c6757926c303f04562641fb9d96e692d40e520f46cd159876cbe",
    "02",
    "1111111111111111111111111111111111111111111111111111111111111111",
    "2222222222222222222222222222222222222222222222222222222222222222",
    "05",
    "616c696365",
    "000001a235dcea00",
    "00112233445566778899aabbccddeeff",
);
const EXAMPLE_SALE_SIGNATURE: &str = concat!(
    "4a7f8c1a6be574896a0069d1142ac839a2a5a5dd3f783437cc9f905ed0804d81",
    "498d0eb22878db08d644f5945017b7a2e7b5a7df7589f4021ffb9f426b2c2903",
);

#[test]
fn a_remembered_commitment_is_only_ever_that_exact_one() {
    let (sale, commitment, key) = fixture(0);
    let mut verified = VerifiedCommitments::default();
    let remembering = |verified: &mut VerifiedCommitments, c: &SignedCommitment| {
        // Seen as itself, so that only the signature can tell it apart.
        failures(verify_sale_remembering(
            &sale,
            c,
            &key,
            &purchase(100, c),
            verified,
        ))
    };
    for _ in 0..3 {
        let report = verify_sale_remembering(
            &sale,
            &commitment,
            &key,
            &purchase(100, &commitment),
            &mut verified,
        );
        assert!(report.is_verified());
        assert_eq!(
            report.checks.len(),
            checks_of_a_sale_dealt_in_order(),
            "every check reported"
        );
    }
    assert_eq!(verified.len(), 1, "verified once, then remembered");

    // Any change, however small, is verified again and refused.
    let mut signature = commitment.clone();
    signature.signature.0[63] ^= 1;
    let mut root = commitment.clone();
    root.commitment.root.0[31] ^= 1;
    let mut block = commitment.clone();
    block.commitment.block += 1;
    for tampered in [signature, root, block] {
        assert!(remembering(&mut verified, &tampered).contains(&Check::CommitmentSignature));
    }
    let stranger = commitment
        .commitment
        .clone()
        .sign(&signing_key_from_secret([1; 32]));
    assert!(remembering(&mut verified, &stranger).contains(&Check::CommitmentSignature));
    assert_eq!(verified.len(), 1, "failures are not remembered");

    // Under another operator key, the remembered one is not taken as good.
    let other = public_key_of(&signing_key_from_secret([1; 32]));
    let report = verify_sale_remembering(
        &sale,
        &commitment,
        &other,
        &purchase(100, &commitment),
        &mut verified,
    );
    let failed = failures(report);
    assert!(failed.contains(&Check::CommitmentSignature));
    assert!(failed.contains(&Check::SaleSignature), "{failed:?}");
    let report = verify_sale_remembering(
        &sale,
        &commitment,
        &key,
        &purchase(100, &commitment),
        &mut verified,
    );
    assert!(report.is_verified(), "the operator's key decoded again");

    // A tampered sale is still caught with its commitment remembered.
    let mut forged = sale.clone();
    forged.signature.0[0] ^= 1;
    let report = verify_sale_remembering(
        &forged,
        &commitment,
        &key,
        &purchase(100, &commitment),
        &mut verified,
    );
    assert_eq!(failures(report), vec![Check::SaleSignature]);
}

#[test]
fn remembered_commitments_are_bounded() {
    let key = operator_key();
    let operator = public_key_of(&key);
    let mut verified = VerifiedCommitments::default();
    for block in 0..(VerifiedCommitments::CAPACITY as u64 + 5) {
        let commitment =
            Commitment::new(block, 100, BLOCK_TICKETS, Money::Real, Hash([7; 32])).sign(&key);
        verified.verify(&commitment, &operator).unwrap();
    }
    assert_eq!(verified.len(), VerifiedCommitments::CAPACITY);
}

/// [`fixture`]'s sale in layout V3: the balances of [`purchase`] signed.
fn fixture_v3(position: u32) -> (SignedSale, SignedCommitment, PublicKeyBytes) {
    let (signed, commitment, key) = fixture(position);
    let mut sale = signed.sale;
    sale.balance_before_cents = Some(1_000);
    sale.balance_after_cents = Some(1_000 - 100 + 2_500);
    (sale.sign(&operator_key()).unwrap(), commitment, key)
}

#[test]
fn a_v3_sale_signs_its_balances_and_shows_only_those() {
    let (sale, commitment, key) = fixture_v3(2);
    assert!(sale
        .sale
        .canonical_bytes()
        .unwrap()
        .starts_with(b"ELDORADO-SALE-V3"));
    let report = verify_sale(&sale, &commitment, &key, &purchase(100, &commitment));
    assert!(report.is_verified(), "{:?}", report.first_failure());

    // Both balances shifted alike: the arithmetic holds, the signature does not.
    let mut shown = purchase(100, &commitment);
    shown.balance = Some(BalanceChange {
        before_cents: 1_000 + 1_000_000,
        after_cents: 1_000 - 100 + 2_500 + 1_000_000,
    });
    assert_eq!(
        failures(verify_sale(&sale, &commitment, &key, &shown)),
        vec![Check::Balance]
    );

    // The signed balances changed in the sale itself: its signature fails.
    let mut forged = sale.clone();
    forged.sale.balance_before_cents = Some(1_000 + 1_000_000);
    forged.sale.balance_after_cents = Some(1_000 - 100 + 2_500 + 1_000_000);
    assert!(
        failures(verify_sale(&forged, &commitment, &key, &shown)).contains(&Check::SaleSignature)
    );

    // One balance dropped: neither layout, refused.
    let mut half = sale;
    half.sale.balance_after_cents = None;
    assert!(failures(verify_receipt(&half, &commitment, &key)).contains(&Check::SaleSignature));
}
