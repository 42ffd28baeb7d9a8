//! The state machine driven through whole tickets with genuine signed
//! sales of a tiny committed block.

use super::*;
use crate::fixtures::{self, FixtureBlock};
use crate::verification::parse_public_key;

fn started(block: &FixtureBlock, balance: u64) -> Game {
    let mut game = Game::new(vec![50, 100, 200]);
    let key = parse_public_key(&block.public_key_hex()).unwrap();
    game.start(key, balance, None);
    game
}

fn key() -> String {
    "key-0001".to_owned()
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
            key: key()
        }]
    );
    assert_eq!(game.button(), Button::Buying);
    assert!(
        game.press(|| unreachable!()).is_empty(),
        "no double purchase"
    );
    let commands = game.bought(block.response(0, 1, 5000));
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
    game.bought(block.response(0, 1, 5000));
    assert_eq!(game.extras_left(), Some(2));
    game.reveal_done(0);
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
    game.reveal_done(1);
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
    let commands = game.press(|| unreachable!());
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
    game.buy_failed(NetError::Timeout);
    assert_eq!(game.button(), Button::Retry);
    assert!(!game.choose_stake(200), "the retry buys the same stake");
    assert_eq!(
        game.press(|| unreachable!()),
        vec![Command::Buy {
            stake: 100,
            key: key()
        }]
    );
    game.buy_failed(NetError::Api {
        status: 402,
        code: "INSUFFICIENT_FUNDS".into(),
    });
    assert_eq!(game.phase(), &Phase::Ready);
}

#[test]
fn tampered_sale_shows_nothing() {
    let block = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    let mut game = started(&block, 5000);
    game.press(key);
    let mut response = block.response(0, 1, 5000);
    response.sale.signature.0[0] ^= 1;
    let commands = game.bought(response);
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
    game.start(key, response.balance_after_cents, Some(response));
    assert_eq!(game.notice(), Some(&Notice::ResumeOffer));
    let commands = game.resume(Some(100));
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
