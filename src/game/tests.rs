//! The state machine driven through whole tickets with genuine signed
//! sales of a tiny committed block.

use super::*;
use crate::fixtures::{self, FixtureBlock};
use crate::verification::{parse_public_key, OffRecord};
use eldorado_engine::verify::Check;

const NONCE: ClientNonce = ClientNonce([9; 16]);

fn player() -> Player {
    Player {
        id: fixtures::PLAYER.to_owned(),
        money: Money::Play,
    }
}

fn started(block: &FixtureBlock, balance: u64) -> Game {
    started_as(block, balance, player())
}

fn started_as(block: &FixtureBlock, balance: u64, player: Player) -> Game {
    let mut game = Game::new(vec![50, 100, 200]);
    let key = parse_public_key(&block.public_key_hex()).unwrap();
    game.start(key, None, player, balance, None);
    game
}

fn key() -> Purchase {
    Purchase {
        key: "key-0001".to_owned(),
        nonce: NONCE,
    }
}

/// The book after `/api/blocks` announced `block`.
fn book(block: &FixtureBlock) -> CommitmentBook {
    let mut book = CommitmentBook::default();
    let operator = parse_public_key(&block.public_key_hex()).unwrap();
    book.remember(&block.commitment, &operator).unwrap();
    book
}

/// The answer to the purchase `key()` started.
fn sold(block: &FixtureBlock, position: u32, sale_id: u64, balance: u64) -> SaleResponse {
    block.response_to(position, sale_id, balance, NONCE)
}

#[test]
fn win_reveals_then_credits() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    assert_eq!(game.button(), Button::Play);
    let commands = game.press(key);
    assert_eq!(
        commands,
        vec![Command::Buy {
            stake: 100,
            purchase: key()
        }]
    );
    assert_eq!(game.button(), Button::Buying);
    assert!(
        game.press(|| unreachable!()).is_empty(),
        "no double purchase"
    );
    let commands = game.bought(sold(&block, 0, 1, 5000), &book(&block), true);
    assert_eq!(
        commands,
        vec![Command::Reveal {
            grid: 0,
            instant: false
        }]
    );
    assert_eq!(game.balance(), 4900);
    assert_eq!(game.press(|| unreachable!()), vec![Command::FinishReveal]);
    let commands = game.reveal_done(0);
    assert!(commands.contains(&Command::ReportRevealed {
        sale_id: 1,
        revealed: 1
    }));
    assert!(commands.contains(&Command::Sound(Cue::Win)));
    assert_eq!(game.popup(), Some(Popup::Win(200)));
    assert_eq!(game.balance(), 5100);
    assert_eq!(game.phase(), &Phase::Ready);
}

#[test]
fn extras_take_one_press_each() {
    let block = FixtureBlock::new(1, 100, &[fixtures::EXTRA_2_WIN_10]);
    let mut game = started(&block, 5000);
    game.press(key);
    game.bought(sold(&block, 0, 1, 5000), &book(&block), true);
    assert_eq!(
        game.extras_left(),
        None,
        "nothing tells of Extras while the main grid is covered"
    );
    game.reveal_done(0);
    assert_eq!(game.extras_left(), Some(2));
    assert_eq!(game.popup(), Some(Popup::Extras(2)));
    assert_eq!(game.button(), Button::Extra);
    assert_eq!(
        game.press(|| unreachable!()),
        vec![Command::Reveal {
            grid: 1,
            instant: false
        }]
    );
    assert_eq!(game.extras_left(), Some(1));
    let commands = game.reveal_done(1);
    assert!(
        commands.contains(&Command::Announce(Announcement::ExtraGrid {
            grid: 1,
            of: 2,
            cents: 0
        })),
        "an Extra grid that wins nothing says so: {commands:?}"
    );
    assert_eq!(game.phase(), &Phase::AwaitingExtra { next: 2 });
    assert_eq!(game.balance(), 4900);
    game.press(|| unreachable!());
    game.reveal_done(2);
    assert_eq!(game.extras_left(), Some(0));
    assert_eq!(game.popup(), Some(Popup::Win(1000)));
    assert_eq!(game.balance(), 5900);
}

#[test]
fn refusals() {
    let block = FixtureBlock::new(1, 200, &[fixtures::LOSE]);
    let mut game = started(&block, 150);
    assert!(!game.choose_stake(75));
    assert!(game.choose_stake(200));
    assert_eq!(
        game.press(|| unreachable!()),
        vec![Command::RefreshBalance],
        "the balance shown may be stale: read again first"
    );
    let commands = game.session_refreshed(game.refresh_mark(), 150, None, || unreachable!());
    assert!(matches!(
        commands[0],
        Command::Announce(Announcement::Refused {
            stake: 200,
            balance: 150
        })
    ));
    assert_eq!(game.phase(), &Phase::Ready);
    assert!(game.choose_stake(50), "a smaller stake is still allowed");
    assert_eq!(game.notice(), None);
}

#[test]
fn uncertain_failures_keep_the_key_definite_ones_drop_it() {
    let block = FixtureBlock::new(1, 100, &[fixtures::LOSE]);
    let mut game = started(&block, 5000);
    game.press(key);
    let commands = game.buy_failed(NetError::Timeout);
    assert!(
        !commands.contains(&Command::RefreshBalance),
        "the retry may still sell: the balance waits for it"
    );
    assert_eq!(game.button(), Button::Retry);
    assert!(!game.choose_stake(200), "the retry buys the same stake");
    assert_eq!(
        game.press(|| unreachable!()),
        vec![Command::Buy {
            stake: 100,
            purchase: key()
        }]
    );
    let commands = game.buy_failed(NetError::Api {
        status: 402,
        code: "INSUFFICIENT_FUNDS".into(),
    });
    assert_eq!(game.phase(), &Phase::Ready);
    assert_eq!(
        commands.last(),
        Some(&Command::RefreshBalance),
        "a refusal by the server reads the balance again"
    );
}

#[test]
fn a_pending_draw_is_a_calm_wait_asked_again_with_the_same_key() {
    let block = FixtureBlock::new(1, 100, &[fixtures::LOSE]);
    let mut game = started(&block, 5000);
    game.press(key);
    let pending = || NetError::Api {
        status: 503,
        code: "DEAL_PENDING".into(),
    };
    // Paid, not failed: no refusal sound, no retry button, the purchase
    // still under way and the stake shown paid.
    assert_eq!(
        game.buy_failed(pending()),
        vec![Command::RetryPurchase {
            after_ms: DRAW_RETRY_MS
        }]
    );
    assert_eq!(game.button(), Button::Buying);
    assert_eq!(game.notice(), Some(&Notice::AwaitingDraw { asked: false }));
    assert_eq!((game.balance(), game.shown_balance()), (5000, 4900));
    let again = vec![Command::Buy {
        stake: 100,
        purchase: key(),
    }];
    assert_eq!(game.retry_purchase(), again);
    // Asked already: once per answer is enough, and the wait is still said.
    assert!(game.retry_purchase().is_empty());
    assert_eq!(game.notice(), Some(&Notice::AwaitingDraw { asked: true }));
    // Still pending: asked again after the next wait.
    game.buy_failed(pending());
    assert_eq!(game.retry_purchase(), again);
    // Another failure, of another kind: the error look, no automatic retry.
    let commands = game.buy_failed(NetError::Timeout);
    assert!(!commands
        .iter()
        .any(|c| matches!(c, Command::RetryPurchase { .. })));
    assert_eq!(game.button(), Button::Retry);
    assert_eq!(game.shown_balance(), 5000);
}

#[test]
fn tampered_sale_shows_nothing() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    game.press(key);
    let mut response = sold(&block, 0, 1, 5000);
    response.sale.signature.0[0] ^= 1;
    let commands = game.bought(response, &book(&block), true);
    assert!(matches!(
        commands[0],
        Command::Announce(Announcement::Rejected(_))
    ));
    assert!(game.ticket().is_none());
    assert!(
        matches!(game.notice(), Some(Notice::Rejected(r)) if r.check == eldorado_engine::verify::Check::SaleSignature)
    );
}

#[test]
fn resume_continues_where_the_player_stopped() {
    let block = FixtureBlock::new(1, 100, &[fixtures::EXTRA_2_WIN_10]);
    let mut game = Game::new(vec![50, 100, 200]);
    let mut response = block.response(0, 1, 5000);
    response.revealed = 2;
    let key = parse_public_key(&block.public_key_hex()).unwrap();
    game.start(
        key,
        None,
        player(),
        response.balance_after_cents,
        Some(response),
    );
    assert_eq!(game.notice(), Some(&Notice::ResumeOffer));
    let commands = game.resume(Some(100), None, &CommitmentBook::default());
    assert_eq!(
        commands,
        vec![Command::Reveal {
            grid: 1,
            instant: true
        }]
    );
    game.reveal_done(1);
    assert_eq!(game.phase(), &Phase::AwaitingExtra { next: 2 });
    assert_eq!(game.balance(), 4900);
    assert!(!game.has_resume());
}

/// Buys with `response` as the server's answer; returns what refused it.
fn refused(game: &mut Game, response: SaleResponse, book: &CommitmentBook) -> Rejection {
    game.press(key);
    let commands = game.bought(response, book, true);
    assert!(
        commands.contains(&Command::RefreshBalance),
        "the balance is read again: {commands:?}"
    );
    assert!(game.ticket().is_none());
    assert_eq!(game.phase(), &Phase::Ready);
    match game.notice() {
        Some(Notice::Rejected(rejection)) => rejection.clone(),
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn a_refused_sale_leaves_the_balance_to_the_server() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    let mut response = sold(&block, 0, 1, 5000);
    response.sale.signature.0[0] ^= 1;
    refused(&mut game, response.clone(), &book(&block));
    assert_eq!(game.balance(), 5000, "not the refused sale's 5100");
    game.set_balance(4900);
    assert_eq!(game.balance(), 4900, "the session's balance, read again");
}

#[test]
fn a_replayed_sale_is_refused_by_its_nonce() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    // Genuine, but the answer to an earlier purchase.
    let replay = block.response_to(0, 1, 5000, ClientNonce([1; 16]));
    let rejection = refused(&mut game, replay, &book(&block));
    assert_eq!(rejection.check, Check::ClientNonce);
}

#[test]
fn a_sale_to_another_player_is_refused() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let other = Player {
        id: "someone-else".to_owned(),
        money: Money::Play,
    };
    let mut game = started_as(&block, 5000, other);
    let rejection = refused(&mut game, sold(&block, 0, 1, 5000), &book(&block));
    assert_eq!(rejection.check, Check::Player);
}

#[test]
fn a_play_money_ticket_for_a_real_money_player_is_refused() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let real = Player {
        id: fixtures::PLAYER.to_owned(),
        money: Money::Real,
    };
    let mut game = started_as(&block, 5000, real);
    let rejection = refused(&mut game, sold(&block, 0, 1, 5000), &book(&block));
    assert_eq!(rejection.check, Check::MoneyKind);
}

#[test]
fn a_balance_that_does_not_add_up_is_refused() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    let mut response = sold(&block, 0, 1, 5000);
    response.balance_after_cents += 1;
    let rejection = refused(&mut game, response, &book(&block));
    assert_eq!(rejection.check, Check::Balance);
}

#[test]
fn a_block_not_announced_before_the_purchase_is_refused() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    let rejection = refused(
        &mut game,
        sold(&block, 0, 1, 5000),
        &CommitmentBook::default(),
    );
    assert_eq!(rejection.check, Check::CommitmentSeen);
    assert!(!rejection.equivocation);
}

#[test]
fn a_commitment_unlike_the_announced_one_is_an_equivocation() {
    let announced = FixtureBlock::new(1, 100, &[fixtures::LOSE]);
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    let rejection = refused(&mut game, sold(&block, 0, 1, 5000), &book(&announced));
    assert_eq!(rejection.check, Check::CommitmentSeen);
    assert!(rejection.equivocation);
}

#[test]
fn an_equivocation_before_buying_buys_nothing() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    game.press(key);
    let commands = game.refuse_purchase(Rejection::equivocation(1));
    assert!(matches!(&commands[0], Command::Announce(Announcement::Rejected(r)) if r.equivocation));
    assert_eq!(game.phase(), &Phase::Ready);
    assert_eq!(game.balance(), 5000);
    assert!(game.refuse_purchase(Rejection::equivocation(1)).is_empty());
}

#[test]
fn a_genuine_sale_runs_every_check() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    game.press(key);
    game.bought(sold(&block, 0, 1, 5000), &book(&block), true);
    let ticket = game.ticket().expect("verified");
    // A server that deals in order: no deal to check (crates/e2e's
    // fair_dealing plays a server that deals by a beacon).
    let every: Vec<Check> = Check::ALL
        .into_iter()
        .filter(|c| *c != Check::FairDeal)
        .collect();
    assert_eq!(ticket.checks, every);
    assert_eq!(ticket.money, Money::Play);
}

#[test]
fn a_short_balance_read_again_may_be_enough() {
    let block = FixtureBlock::new(1, 200, &[fixtures::LOSE]);
    let mut game = started(&block, 150);
    assert!(game.choose_stake(200));
    assert_eq!(game.press(|| unreachable!()), vec![Command::RefreshBalance]);
    // Credited by the operator meanwhile.
    let commands = game.session_refreshed(game.refresh_mark(), 500, None, key);
    assert_eq!(
        commands,
        vec![Command::Buy {
            stake: 200,
            purchase: key()
        }]
    );
    assert_eq!(game.balance(), 500);
}

#[test]
fn a_press_left_to_the_server_when_the_session_cannot_be_read() {
    let block = FixtureBlock::new(1, 200, &[fixtures::LOSE]);
    let mut game = started(&block, 150);
    assert!(game.choose_stake(200));
    game.press(|| unreachable!());
    assert!(matches!(
        game.refresh_failed(key)[..],
        [Command::Buy { .. }]
    ));
    let commands = game.buy_failed(NetError::Api {
        status: 402,
        code: "INSUFFICIENT_FUNDS".into(),
    });
    assert!(commands.contains(&Command::RefreshBalance));
}

#[test]
fn a_purchase_refused_for_an_ended_session_is_noticed_and_not_retried() {
    let block = FixtureBlock::new(1, 100, &[fixtures::LOSE]);
    let mut game = started(&block, 5000);
    game.press(key);
    let ended = NetError::Api {
        status: 401,
        code: "TOO_MANY_SESSIONS".into(),
    };
    let commands = game.buy_failed(ended.clone());
    // Nothing was bought: no retry of the same purchase is offered.
    assert_eq!(game.phase(), &Phase::Ready);
    assert_eq!(game.notice(), Some(&Notice::Net(ended.clone())));
    assert!(commands.contains(&Command::Announce(Announcement::Failed(ended))));
}

#[test]
fn the_prize_of_an_interrupted_ticket_shows_only_at_its_end() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = Game::new(vec![50, 100, 200]);
    let response = block.response(0, 1, 5000);
    let key = parse_public_key(&block.public_key_hex()).unwrap();
    // The session's balance already includes the prize.
    game.start(key, None, player(), 5100, Some(response.clone()));
    assert_eq!(game.balance(), 4900, "stake taken, prize held back");
    // Read again while the offer stands, after an operator credit of 10 €.
    game.session_refreshed(
        game.refresh_mark(),
        6100,
        Some(response.clone()),
        || unreachable!(),
    );
    assert_eq!(game.balance(), 5900);
    game.resume(Some(100), None, &CommitmentBook::default());
    assert_eq!(game.balance(), 5900, "still held back during the reveal");
    game.reveal_done(0);
    assert_eq!(game.balance(), 6100, "shown once revealed");
    // The server may not have recorded the reveal yet: not offered again.
    game.session_refreshed(game.refresh_mark(), 6100, Some(response), || unreachable!());
    assert!(!game.has_resume());
    assert_eq!(game.balance(), 6100);
}

#[test]
fn a_session_read_from_before_a_ticket_is_dropped() {
    let block = FixtureBlock::new(1, 100, &[fixtures::LOSE]);
    let mut game = started(&block, 5000);
    let mark = game.refresh_mark();
    game.press(key);
    game.bought(sold(&block, 0, 1, 5000), &book(&block), true);
    game.reveal_done(0);
    assert_eq!(game.balance(), 4900);
    // Sent before the purchase, answered after the ticket ended.
    game.session_refreshed(mark, 5000, None, || unreachable!());
    assert_eq!(game.balance(), 4900, "not the older 50 €");
    game.session_refreshed(game.refresh_mark(), 4900, None, || unreachable!());
    assert_eq!(game.balance(), 4900);
}

#[test]
fn a_sale_from_a_block_not_proved_on_the_record_is_refused() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    game.press(key);
    assert!(game.awaiting_record());
    assert_eq!(game.notice(), Some(&Notice::AwaitingRecord));
    let commands = game.bought(sold(&block, 0, 1, 5000), &book(&block), false);
    assert!(game.ticket().is_none(), "nothing of it is shown");
    let Some(Notice::Rejected(rejection)) = game.notice() else {
        panic!("refused: {:?}", game.notice());
    };
    assert_eq!(
        rejection.record,
        Some(OffRecord {
            sale: false,
            problem: RecordProblem::Missing
        })
    );
    assert!(commands.contains(&Command::RefreshBalance));
    assert_eq!(game.phase(), &Phase::Ready);
}

#[test]
fn a_sale_shown_is_marked_on_the_record_it_was_proved_on() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2, fixtures::LOSE]);
    let mut game = started(&block, 5000);
    game.press(key);
    game.bought(sold(&block, 0, 1, 5000), &book(&block), true);
    assert_eq!(game.ticket().unwrap().record, RecordState::Pending);
    game.record_checked(99);
    assert_eq!(
        game.ticket().unwrap().record,
        RecordState::Pending,
        "another sale"
    );
    game.record_checked(1);
    assert_eq!(game.ticket().unwrap().record, RecordState::OnRecord);
}

#[test]
fn a_sale_the_record_does_not_prove_is_refused_before_anything_shows() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    game.press(key);
    let commands = game.refuse_purchase(Rejection::off_record(true, RecordProblem::DealtEarly));
    assert!(game.ticket().is_none());
    assert_eq!(game.phase(), &Phase::Ready);
    assert!(commands.contains(&Command::RefreshBalance));
    assert!(matches!(
        &commands[0],
        Command::Announce(Announcement::Rejected(r)) if r.record.is_some_and(|o| o.sale)
    ));
}
