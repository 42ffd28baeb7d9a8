//! Browser tests of the page's layout as players judge it: nothing they aim
//! at moves during play, and the board, the stakes and « Jouer » fit the
//! first viewport, from a 320×640 phone to a desktop and the portal's
//! frame. The page lays itself out by the game's own width (container
//! queries), so a game mounted that wide, with the page's own style sheet,
//! is the game on that screen. Run
//! like tests/browser.rs:
//! `wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver -- --test layout`.

mod support;

use eldorado_web::app::App;
use eldorado_web::fixtures;
use eldorado_web::game::{Phase, Popup};
use eldorado_web::i18n::Lang;
use eldorado_web::reveal::Timing;
use support::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Column 0 shows at once, the others wait: the reveal stays in progress
/// until « Tout montrer » is pressed.
const BY_HAND_ONLY: Timing = Timing {
    column_ms: 0.0,
    stagger_ms: 100_000.0,
};

/// The screens of the issue: phones, a tablet, a desktop, and the example
/// portal's frame (968 px wide, 700 px high).
const SCREENS: [(u32, u32); 6] = [
    (320, 640),
    (360, 740),
    (412, 915),
    (768, 1024),
    (1280, 900),
    (968, 700),
];

/// A game `width` px wide, styled as players see it. The page lays itself
/// out by its own width (container queries), so this is the game on a
/// screen that wide.
fn mount_at(backend: &FakeBackend, width: u32) -> (web_sys::HtmlElement, App) {
    style_page();
    let root = host();
    root.style()
        .set_property("width", &format!("{width}px"))
        .unwrap();
    let app = mount_in(&root, backend, Lang::Fr, None);
    app.set_timing(BY_HAND_ONLY);
    (root, app)
}

/// Where something is, in CSS pixels from the game's top left corner (the
/// window's, on the real page): left, top, width, height.
type Place = [f64; 4];

fn place(root: &web_sys::Element, selector: &str) -> Place {
    let origin = root.get_bounding_client_rect();
    let b = query(root, selector).get_bounding_client_rect();
    [
        b.left() - origin.left(),
        b.top() - origin.top(),
        b.width(),
        b.height(),
    ]
}

/// What a player aims at: « Jouer », the stakes and the board.
const AIMED_AT: [&str; 3] = [".eld-play", ".eld-stakes", ".eld-board"];

fn places(root: &web_sys::Element) -> Vec<Place> {
    AIMED_AT.iter().map(|s| place(root, s)).collect()
}

fn assert_unmoved(root: &web_sys::Element, first: &[Place], width: u32, when: &str) {
    let now = places(root);
    for ((selector, was), is) in AIMED_AT.iter().zip(first).zip(&now) {
        assert!(
            was.iter().zip(is).all(|(a, b)| (a - b).abs() <= 1.0),
            "at {width} px, {selector} moved {when}: {was:?} then {is:?}"
        );
    }
    let play = query(root, ".eld-play");
    assert!(
        play.scroll_width() <= play.client_width(),
        "at {width} px, « {} » does not fit its button {when}",
        play.text_content().unwrap_or_default()
    );
}

/// Presses « Jouer » (or « Extra », or « Tout montrer ») and waits until
/// the game has moved on from `phase`.
async fn press_play(root: &web_sys::Element, app: &App) {
    let before = app.game().phase().clone();
    click(root, ".eld-play");
    wait_for("the button's effect", || app.game().phase() != &before).await;
}

/// A reveal in progress shown whole at once, as « TOUT MONTRER » does.
async fn reveal_all(root: &web_sys::Element, app: &App) {
    if matches!(app.game().phase(), Phase::Revealing { .. }) {
        press_play(root, app).await;
    }
}

/// Past the result window, « Jouer » again: sale `sale_id`, shown whole.
async fn play_next(root: &web_sys::Element, app: &App, sale_id: u64, what: &str) {
    click(root, ".eld-popup-ok");
    click(root, ".eld-play");
    wait_for(what, || {
        app.game().ticket().is_some_and(|t| t.sale_id == sale_id)
    })
    .await;
    reveal_all(root, app).await;
}

#[wasm_bindgen_test]
async fn nothing_a_player_aims_at_moves_during_play() {
    for width in [320, 412, 768, 1280] {
        let backend = FakeBackend::new(
            100,
            &[fixtures::WIN_2, fixtures::EXTRA_1_WIN_2, fixtures::LOSE],
            5000,
        );
        let (root, app) = mount_at(&backend, width);
        ready(&app).await;
        frames_rendered().await;
        let first = places(&root);

        // A win on the main grid: the reveal, then its window.
        click(&root, ".eld-play");
        wait_for("the reveal", || {
            matches!(app.game().phase(), Phase::Revealing { .. })
        })
        .await;
        frames_rendered().await;
        assert_unmoved(&root, &first, width, "during the reveal");
        press_play(&root, &app).await;
        wait_for("the win", || app.game().popup() == Some(Popup::Win(200))).await;
        frames_rendered().await;
        assert!(!query(&root, ".eld-popup").hidden());
        assert_unmoved(&root, &first, width, "with the win's window open");

        // An Extra: its window, the Extra grid's reveal, its win.
        play_next(&root, &app, 2, "the second ticket").await;
        wait_for("the Extra offer", || {
            app.game().phase() == &Phase::AwaitingExtra { next: 1 }
        })
        .await;
        frames_rendered().await;
        assert!(!query(&root, ".eld-extra-zone").hidden());
        assert_unmoved(&root, &first, width, "with the Extra's window open");
        press_play(&root, &app).await;
        frames_rendered().await;
        assert_unmoved(&root, &first, width, "during the Extra grid's reveal");
        reveal_all(&root, &app).await;
        wait_for("the Extra's win", || {
            app.game().popup() == Some(Popup::Win(200))
        })
        .await;
        frames_rendered().await;
        assert_unmoved(&root, &first, width, "after the Extra's win");

        // The next ticket, which loses.
        play_next(&root, &app, 3, "the third ticket").await;
        wait_for("its end", || app.game().phase() == &Phase::Ready).await;
        frames_rendered().await;
        assert_unmoved(&root, &first, width, "on the next ticket");
        drop(app);
        root.remove();
    }
}

#[wasm_bindgen_test]
async fn the_board_stakes_and_play_fit_the_first_viewport_centred() {
    for (width, height) in SCREENS {
        let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
        let (root, app) = mount_at(&backend, width);
        ready(&app).await;
        frames_rendered().await;
        for selector in AIMED_AT {
            let [left, top, w, h] = place(&root, selector);
            assert!(
                left >= 0.0
                    && top >= 0.0
                    && left + w <= f64::from(width)
                    && top + h <= f64::from(height),
                "at {width}×{height}, {selector} is out of the first viewport: {:?}",
                [left, top, w, h]
            );
        }
        // Centred: as much room on either side of the board.
        let [left, _, w, _] = place(&root, ".eld-board");
        let right = root.get_bounding_client_rect().width() - left - w;
        assert!(
            (left - right).abs() <= 1.0,
            "at {width} px the board is off centre: {left} left, {right} right"
        );
        // One header row: no part of it below its first.
        let header = place(&root, ".eld-top");
        let help = place(&root, ".eld-help");
        assert!(
            header[3] <= help[3] + 12.0,
            "at {width} px the header takes more than a row: {} px",
            header[3]
        );
        drop(app);
        root.remove();
    }
}

#[wasm_bindgen_test]
async fn the_historys_buttons_line_up_on_phones() {
    for width in [320, 360, 412] {
        let backend = FakeBackend::new(100, &[fixtures::WIN_2, fixtures::LOSE], 5000);
        let (root, app) = mount_at(&backend, width);
        app.set_timing(Timing::REDUCED);
        ready(&app).await;
        play_then_open_history(&root, &app, 2).await;
        app.open_history(2);
        wait_for("the ticket opened", || {
            root.query_selector(".eld-history-detail canvas")
                .unwrap()
                .is_some()
        })
        .await;
        frames_rendered().await;
        let history = query(&root, ".eld-history");
        assert!(
            history.scroll_width() <= history.client_width(),
            "at {width} px the history scrolls sideways: {} > {}",
            history.scroll_width(),
            history.client_width()
        );
        let rows = root.query_selector_all(".eld-history-actions").unwrap();
        assert_eq!(rows.length(), 2);
        for i in 0..rows.length() {
            let cell: web_sys::Element = rows.get(i).unwrap().unchecked_into();
            let top = |selector: &str| {
                cell.query_selector(selector)
                    .unwrap()
                    .unwrap()
                    .get_bounding_client_rect()
                    .top()
            };
            assert!(
                (top(".eld-history-open") - top(".eld-history-receipt")).abs() <= 1.0,
                "at {width} px a row's buttons are not side by side"
            );
        }
        drop(app);
        root.remove();
    }
}
