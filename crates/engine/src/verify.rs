//! What the browser checks before it shows a sold ticket (SPEC §7), and what
//! anyone can check of a receipt without the server.
//!
//! The checks that need only the sale, its commitment and the operator key
//! always run; the ones that need the buyer's side of the purchase (the
//! stake played, the nonce sent, the balance seen before) run when the
//! caller supplies that side in [`Expected`]. A report lists exactly the
//! checks that ran.

use crate::commit::{verifying_key, Money, Sale, SignatureError, SignedCommitment, SignedSale};
use crate::deal::{verify_evidence, DealParts, VerifyRound};
use crate::fixed_bytes::{ClientNonce, PublicKeyBytes};
use crate::merkle::verify_proof;
use crate::prize_table::{prize_table_digest, BLOCK_TICKETS};
use crate::ticket::{validate_ticket, Evaluation};
use ed25519_dalek::VerifyingKey;

/// One check of the verification, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Check {
    /// The block commitment is signed by the operator key.
    CommitmentSignature,
    /// The commitment is to the prize table of these rules.
    PrizeTable,
    /// The committed block has the rules' number of tickets (400,000), so
    /// the operator cannot commit to a block made for one buyer.
    BlockSize,
    /// The buyer had seen this very commitment before buying.
    CommitmentSeen,
    /// The sale is signed by the operator key.
    SaleSignature,
    /// The sale belongs to the committed block (id, size, stake).
    SameBlock,
    /// Grids are valid and pay exactly the claimed prize and Extras.
    Rules,
    /// The ticket's leaf is in the committed tree at its position.
    MerkleProof,
    /// The ticket's stake is the stake the player played.
    StakePlayed,
    /// The sale is to this player.
    Player,
    /// The sale answers this purchase: it carries the nonce sent with it.
    ClientNonce,
    /// The block sells the kind of money the player plays with.
    MoneyKind,
    /// The new balance is the old one, less the stake, plus the prize; on a
    /// V3 sale both are the balances the operator signed.
    Balance,
    /// The beacon dealt the ticket by the public rule, from a round named
    /// by its purchase (docs/PROTOCOL.md §10).
    FairDeal,
}

impl Check {
    pub const ALL: [Check; 14] = [
        Check::CommitmentSignature,
        Check::PrizeTable,
        Check::BlockSize,
        Check::CommitmentSeen,
        Check::SaleSignature,
        Check::SameBlock,
        Check::Rules,
        Check::MerkleProof,
        Check::StakePlayed,
        Check::Player,
        Check::ClientNonce,
        Check::MoneyKind,
        Check::Balance,
        Check::FairDeal,
    ];

    /// The checks that need nothing but the receipt and the operator key.
    pub const RECEIPT: [Check; 7] = [
        Check::CommitmentSignature,
        Check::PrizeTable,
        Check::BlockSize,
        Check::SaleSignature,
        Check::SameBlock,
        Check::Rules,
        Check::MerkleProof,
    ];

    /// A stable machine name, used by the UI, the CLI and the tests.
    pub const fn code(self) -> &'static str {
        match self {
            Check::CommitmentSignature => "commitment_signature",
            Check::PrizeTable => "prize_table",
            Check::BlockSize => "block_size",
            Check::CommitmentSeen => "commitment_seen",
            Check::SaleSignature => "sale_signature",
            Check::SameBlock => "same_block",
            Check::Rules => "rules",
            Check::MerkleProof => "merkle_proof",
            Check::StakePlayed => "stake_played",
            Check::Player => "player",
            Check::ClientNonce => "client_nonce",
            Check::MoneyKind => "money",
            Check::Balance => "balance",
            Check::FairDeal => "fair_deal",
        }
    }
}

/// What the commitment of the sale's block must be, from what the buyer
/// loaded before the purchase.
#[derive(Clone, Copy, Debug, Default)]
pub enum CommitmentSeen<'a> {
    /// Not checked (a receipt read later, a ticket re-opened from history).
    #[default]
    NotChecked,
    /// The buyer had seen no commitment for this block before buying.
    Unseen,
    /// The commitment the buyer had seen for this block before buying.
    Seen(&'a SignedCommitment),
}

/// A balance before and after a sale, as the buyer saw them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BalanceChange {
    pub before_cents: u64,
    pub after_cents: u64,
}

/// The buyer's side of a purchase; each `None` skips its check.
#[derive(Clone, Copy, Debug, Default)]
pub struct Expected<'a> {
    pub stake_cents: Option<u64>,
    pub player: Option<&'a str>,
    pub client_nonce: Option<ClientNonce>,
    pub money: Option<Money>,
    pub commitment_seen: CommitmentSeen<'a>,
    pub balance: Option<BalanceChange>,
    /// With a beacon the buyer pins, how the sale must have been dealt.
    pub deal: Option<ExpectedDeal<'a>>,
}

/// A sale that the pinned beacon must have dealt.
#[derive(Clone, Copy)]
pub struct ExpectedDeal<'a> {
    /// The check of the rounds of the beacon the buyer pins (its
    /// [`BeaconKey`](crate::deal::BeaconKey), or the page's own).
    pub beacon: &'a dyn VerifyRound,
    /// The sale's evidence, `None` when it came without any.
    pub evidence: Option<&'a DealParts>,
}

impl std::fmt::Debug for ExpectedDeal<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExpectedDeal")
            .field("evidence", &self.evidence)
            .finish_non_exhaustive()
    }
}

/// Every check that ran, with its result; a ticket may be shown only if all
/// passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub checks: Vec<(Check, Result<(), String>)>,
    /// The rules' reading of the ticket, when its grids are valid.
    pub evaluation: Option<Evaluation>,
}

impl Report {
    /// Every receipt check ran, and every check that ran passed.
    pub fn is_verified(&self) -> bool {
        Check::RECEIPT.iter().all(|c| self.ran(*c)) && self.checks.iter().all(|(_, r)| r.is_ok())
    }

    pub fn ran(&self, check: Check) -> bool {
        self.checks.iter().any(|(c, _)| *c == check)
    }

    /// The first failed check and why.
    pub fn first_failure(&self) -> Option<(Check, &str)> {
        self.checks
            .iter()
            .find_map(|(check, result)| result.as_ref().err().map(|why| (*check, why.as_str())))
    }
}

fn ensure(ok: bool, why: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(why())
    }
}

/// Commitment signatures already verified: a player buys many tickets of
/// one block, and its commitment's signature need not be verified again for
/// each. Remembered by their exact bytes (operator key, the commitment's key,
/// its signed bytes and its signature), so any other commitment, however
/// close, is verified in full; only good signatures are remembered.
#[derive(Clone, Debug, Default)]
pub struct VerifiedCommitments {
    /// Oldest first.
    known: Vec<Vec<u8>>,
    /// The last operator key decoded, for the sales' signatures.
    operator: Option<(PublicKeyBytes, VerifyingKey)>,
}

impl VerifiedCommitments {
    /// Commitments remembered at most (a few blocks are open at a time).
    pub const CAPACITY: usize = 16;

    /// The signature check of [`SignedCommitment::verify`], done once per
    /// exact commitment.
    pub fn verify(
        &mut self,
        commitment: &SignedCommitment,
        operator: &PublicKeyBytes,
    ) -> Result<(), SignatureError> {
        let mut exact = Vec::with_capacity(192);
        exact.extend_from_slice(&operator.0);
        exact.extend_from_slice(&commitment.public_key.0);
        exact.extend_from_slice(&commitment.signature.0);
        exact.extend_from_slice(&commitment.commitment.canonical_bytes());
        if self.known.contains(&exact) {
            return Ok(());
        }
        commitment.verify(operator)?;
        if self.known.len() >= Self::CAPACITY {
            self.known.remove(0);
        }
        self.known.push(exact);
        Ok(())
    }

    /// The signature check of [`SignedSale::verify_signature`], with the
    /// operator key decoded once.
    pub fn verify_sale_signature(
        &mut self,
        sale: &SignedSale,
        operator: &PublicKeyBytes,
    ) -> Result<(), SignatureError> {
        let decoded = match &self.operator {
            Some((bytes, decoded)) if bytes == operator => decoded,
            _ => {
                &self
                    .operator
                    .insert((*operator, verifying_key(operator)?))
                    .1
            }
        };
        sale.verify_signature_with(decoded)
    }

    pub fn len(&self) -> usize {
        self.known.len()
    }

    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }
}

/// Runs every check of a sale against its block's commitment and the
/// operator key, plus each check of the buyer's side that `expected` gives.
pub fn verify_sale(
    sale: &SignedSale,
    commitment: &SignedCommitment,
    operator: &PublicKeyBytes,
    expected: &Expected<'_>,
) -> Report {
    run_checks(sale, commitment, operator, expected, None)
}

/// [`verify_sale`], with the commitment's signature checked through
/// `verified` (verified once per exact commitment). Every check still runs
/// and is reported.
pub fn verify_sale_remembering(
    sale: &SignedSale,
    commitment: &SignedCommitment,
    operator: &PublicKeyBytes,
    expected: &Expected<'_>,
    verified: &mut VerifiedCommitments,
) -> Report {
    run_checks(sale, commitment, operator, expected, Some(verified))
}

fn run_checks(
    sale: &SignedSale,
    commitment: &SignedCommitment,
    operator: &PublicKeyBytes,
    expected: &Expected<'_>,
    mut verified: Option<&mut VerifiedCommitments>,
) -> Report {
    let committed = &commitment.commitment;
    let inner = &sale.sale;
    let ticket = &inner.ticket;
    let mut checks = Vec::with_capacity(Check::ALL.len());
    let mut evaluation = None;
    for check in Check::ALL {
        let result = match check {
            Check::CommitmentSignature => match verified.as_deref_mut() {
                Some(verified) => verified.verify(commitment, operator),
                None => commitment.verify(operator),
            }
            .map_err(|e| e.to_string()),
            Check::PrizeTable => ensure(committed.prize_table.0 == prize_table_digest(), || {
                "the block commits to another prize table".to_owned()
            }),
            Check::BlockSize => ensure(committed.tickets == BLOCK_TICKETS, || {
                format!(
                    "the block has {} tickets, the rules say {BLOCK_TICKETS}",
                    committed.tickets
                )
            }),
            Check::CommitmentSeen => match expected.commitment_seen {
                CommitmentSeen::NotChecked => continue,
                CommitmentSeen::Unseen => Err(format!(
                    "block {} was not announced before the purchase",
                    committed.block
                )),
                CommitmentSeen::Seen(seen) => ensure(seen == commitment, || {
                    format!(
                        "block {} differs from the commitment announced before the purchase",
                        committed.block
                    )
                }),
            },
            Check::SaleSignature => match verified.as_deref_mut() {
                Some(verified) => verified.verify_sale_signature(sale, operator),
                None => sale.verify_signature(operator),
            }
            .map_err(|e| e.to_string()),
            Check::SameBlock => {
                if inner.block != committed.block {
                    Err(format!(
                        "sale of block {} checked against block {}",
                        inner.block, committed.block
                    ))
                } else if inner.tickets != committed.tickets {
                    Err(format!(
                        "sale says {} tickets, block has {}",
                        inner.tickets, committed.tickets
                    ))
                } else {
                    ensure(ticket.stake_cents == committed.stake_cents, || {
                        format!(
                            "ticket stake {} cents, block stake {} cents",
                            ticket.stake_cents, committed.stake_cents
                        )
                    })
                }
            }
            Check::Rules => validate_ticket(ticket)
                .map(|e| evaluation = Some(e))
                .map_err(|e| e.to_string()),
            Check::MerkleProof => verify_proof(
                inner.leaf(),
                ticket.position,
                committed.tickets,
                &inner.proof,
                &committed.root,
            )
            .map_err(|e| e.to_string()),
            Check::StakePlayed => {
                let Some(played) = expected.stake_cents else {
                    continue;
                };
                ensure(ticket.stake_cents == played, || {
                    format!(
                        "ticket stake {} cents, played {played} cents",
                        ticket.stake_cents
                    )
                })
            }
            Check::Player => {
                let Some(player) = expected.player else {
                    continue;
                };
                ensure(inner.player == player, || {
                    "the sale is to another player".to_owned()
                })
            }
            Check::ClientNonce => {
                let Some(nonce) = expected.client_nonce else {
                    continue;
                };
                ensure(inner.client_nonce == nonce, || {
                    "the sale answers another purchase (its nonce is not ours)".to_owned()
                })
            }
            Check::MoneyKind => {
                let Some(money) = expected.money else {
                    continue;
                };
                ensure(committed.money == money, || {
                    format!(
                        "a {}-money ticket for a {}-money player",
                        committed.money.as_str(),
                        money.as_str()
                    )
                })
            }
            Check::FairDeal => {
                let Some(deal) = expected.deal else {
                    continue;
                };
                check_deal(inner, operator, &deal)
            }
            Check::Balance => {
                let Some(balance) = expected.balance else {
                    continue;
                };
                let computed = balance
                    .before_cents
                    .checked_sub(ticket.stake_cents)
                    .and_then(|rest| rest.checked_add(ticket.prize_cents));
                let signed = (inner.balance_before_cents, inner.balance_after_cents);
                match signed {
                    // A V3 sale signs the balances: the ones shown must be those.
                    (Some(before), Some(after))
                        if (before, after) != (balance.before_cents, balance.after_cents) =>
                    {
                        Err(format!(
                            "balances {} → {} cents shown, {before} → {after} cents signed",
                            balance.before_cents, balance.after_cents
                        ))
                    }
                    _ => ensure(computed == Some(balance.after_cents), || {
                        format!(
                            "balance {} cents after the sale, expected {} − {} + {} cents",
                            balance.after_cents,
                            balance.before_cents,
                            ticket.stake_cents,
                            ticket.prize_cents
                        )
                    }),
                }
            }
        };
        checks.push((check, result));
    }
    Report { checks, evaluation }
}

fn check_deal(
    sale: &Sale,
    operator: &PublicKeyBytes,
    deal: &ExpectedDeal<'_>,
) -> Result<(), String> {
    let evidence = deal
        .evidence
        .ok_or("the beacon deals this server's sales, but this one shows no deal")?;
    let operator = verifying_key(operator).map_err(|e| e.to_string())?;
    verify_evidence(&operator, deal.beacon, sale, evidence)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The checks of a receipt (a sale with its commitment) that need no
/// session: what `eldorado verify` runs.
pub fn verify_receipt(
    sale: &SignedSale,
    commitment: &SignedCommitment,
    operator: &PublicKeyBytes,
) -> Report {
    verify_sale(sale, commitment, operator, &Expected::default())
}
