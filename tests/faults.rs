//! The faults of issue 13, each as the player met it, in headless Chromium:
//! `wasm-pack test --headless --chrome -- --test faults`.

mod support;

use eldorado_web::fixtures;
use eldorado_web::game::Phase;
use eldorado_web::i18n::Lang;
use eldorado_web::reveal::Timing;
use support::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const NBSP: char = '\u{A0}';

fn euros(text: &str) -> String {
    format!("{text}{NBSP}€")
}

fn fire(target: &web_sys::EventTarget, kind: &str) {
    let event = web_sys::Event::new(kind).unwrap();
    target.dispatch_event(&event).unwrap();
}

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

fn canvas_width(root: &web_sys::Element) -> f64 {
    query(root, "canvas").get_bounding_client_rect().width()
}

// ------------------------------------------------------------------ F1

#[wasm_bindgen_test]
async fn after_a_reload_the_prize_waits_for_the_end_of_the_reveal() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    // Settled at sale: the session's balance includes the prize.
    backend.interrupt_first_ticket(5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert!(!query(&root, ".eld-resume").hidden(), "the offer shows");
    assert_eq!(
        text(&root, ".eld-balance-value"),
        euros("49,00"),
        "the stake is gone, the prize not yet shown"
    );
    // The session read again (page shown again) still holds it back: 10 €
    // credited meanwhile show, the prize does not.
    backend.state.borrow_mut().balance += 1000;
    fire(&document(), "visibilitychange");
    wait_for("the balance read on showing", || {
        text(&root, ".eld-balance-value") != euros("49,00")
    })
    .await;
    assert_eq!(text(&root, ".eld-balance-value"), euros("59,00"));

    click(&root, ".eld-resume-btn");
    wait_for("the reveal", || {
        matches!(app.game().phase(), Phase::Revealing { .. })
    })
    .await;
    assert_eq!(text(&root, ".eld-balance-value"), euros("59,00"));
    wait_for("the end", || app.game().phase() == &Phase::Ready).await;
    assert_eq!(text(&root, ".eld-balance-value"), euros("61,00"));
}

// ------------------------------------------------------------------ F2

#[wasm_bindgen_test]
async fn extras_stay_unsaid_until_the_main_grid_shows_them() {
    style_page();
    let backend = FakeBackend::new(100, &[fixtures::EXTRA_2_WIN_10], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    app.set_timing(Timing::NORMAL);
    ready(&app).await;
    let width = canvas_width(&root);
    assert!(width > 100.0);

    click(&root, ".eld-play");
    wait_for("the main grid's reveal", || {
        app.game().phase() == &Phase::Revealing { grid: 0 }
    })
    .await;
    assert!(
        query(&root, ".eld-extra-zone").hidden(),
        "no Extra zone while the cells are covered"
    );
    assert_eq!(text(&root, ".eld-caption"), "", "no « Grille principale »");
    assert_eq!(canvas_width(&root), width, "the board keeps its size");

    wait_for("the Extra offer", || {
        app.game().phase() == &Phase::AwaitingExtra { next: 1 }
    })
    .await;
    assert!(!query(&root, ".eld-extra-zone").hidden());
    assert_eq!(text(&root, ".eld-extra-count"), "2");
    assert_eq!(text(&root, ".eld-caption"), "Grille principale");
    assert_eq!(
        canvas_width(&root),
        width,
        "no shrinking when the Extras show"
    );
}

// ------------------------------------------------------------------ F3

#[wasm_bindgen_test]
async fn the_balance_is_read_again_when_shown_focused_or_idle() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert_eq!(text(&root, ".eld-balance-value"), euros("50,00"));

    // Credited by the operator while the page was in the background.
    backend.state.borrow_mut().balance = 9000;
    fire(&document(), "visibilitychange");
    wait_for("the balance read on showing", || {
        text(&root, ".eld-balance-value") == euros("90,00")
    })
    .await;

    // Spent in another tab.
    backend.state.borrow_mut().balance = 8000;
    fire(&web_sys::window().unwrap(), "focus");
    wait_for("the balance read on focus", || {
        text(&root, ".eld-balance-value") == euros("80,00")
    })
    .await;

    backend.state.borrow_mut().balance = 7000;
    app.idle_tick();
    wait_for("the balance read while idle", || {
        text(&root, ".eld-balance-value") == euros("70,00")
    })
    .await;
}

#[wasm_bindgen_test]
async fn a_stake_is_not_refused_against_a_stale_balance() {
    let backend = FakeBackend::new(200, &[fixtures::LOSE], 150);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-stake[data-stake=\"200\"]");
    // Credited since the page loaded; the page still shows 1,50 €.
    backend.state.borrow_mut().balance = 500;
    click(&root, ".eld-play");
    wait_for("the ticket", || app.game().ticket().is_some()).await;
    wait_for("its end", || app.game().phase() == &Phase::Ready).await;
    assert_eq!(backend.state.borrow().buy_keys.len(), 1, "bought");
    assert_eq!(text(&root, ".eld-balance-value"), euros("3,00"));
    assert!(query(&root, ".eld-notice").hidden(), "no refusal shown");
}

#[wasm_bindgen_test]
async fn a_refusal_for_funds_shows_the_servers_balance() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    // Spent in another tab: the page still shows 50 €.
    backend.state.borrow_mut().balance = 40;
    click(&root, ".eld-play");
    wait_for("the balance read again", || {
        text(&root, ".eld-balance-value") == euros("0,40")
    })
    .await;
    assert_eq!(app.game().phase(), &Phase::Ready);
    assert!(app.game().ticket().is_none());
    assert!(!query(&root, ".eld-notice").hidden(), "the refusal is said");
}

// ------------------------------------------------------------------ F4

fn assert_fits(root: &web_sys::Element, width: u32) {
    let stakes = root.query_selector_all(".eld-stake").unwrap();
    for i in 0..stakes.length() {
        let button: web_sys::HtmlElement = stakes.item(i).unwrap().dyn_into().unwrap();
        assert!(
            button.scroll_width() <= button.client_width(),
            "at {width} px, « {} » overflows its button ({} > {})",
            button.text_content().unwrap_or_default(),
            button.scroll_width(),
            button.client_width()
        );
    }
}

#[wasm_bindgen_test]
async fn phones_get_fitting_labels_and_big_targets() {
    style_page();
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-stake[data-stake=\"50\"]");
    for width in (320..=480).step_by(10) {
        root.style()
            .set_property("width", &format!("{width}px"))
            .unwrap();
        assert_fits(&root, width);
    }
    for selector in [".eld-mute", ".eld-history > summary", ".eld-rules-open"] {
        let height = query(&root, selector).get_bounding_client_rect().height();
        assert!(height >= 44.0, "{selector} is {height} px high");
    }
}

#[wasm_bindgen_test]
async fn the_extra_zone_is_spoken() {
    let backend = FakeBackend::new(100, &[fixtures::EXTRA_1_WIN_2], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the Extra offer", || {
        app.game().phase() == &Phase::AwaitingExtra { next: 1 }
    })
    .await;
    let zone = query(&root, ".eld-extra-zone");
    let role = zone.get_attribute("role").unwrap_or_default();
    assert!(
        ["img", "group", "status"].contains(&role.as_str()),
        "a role that carries aria-label: {role:?}"
    );
    assert_eq!(
        zone.get_attribute("aria-label").as_deref(),
        Some("1 Extra restant")
    );
}

#[wasm_bindgen_test]
async fn a_ticket_opened_from_the_history_shows_where_the_player_looks() {
    style_page();
    let backend = FakeBackend::new(100, &[fixtures::WIN_2, fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    play_then_open_history(&root, &app, 2).await;
    // The older ticket: the second row.
    let button = query(&root, "[data-sale=\"1\"]");
    let row = button.closest("tr").unwrap().unwrap();
    button.click();
    wait_for("the detail", || {
        root.query_selector(".eld-history-detail canvas")
            .unwrap()
            .is_some()
    })
    .await;
    let detail = query(&root, ".eld-history-detail");
    let detail_row = detail.closest("tr").unwrap().expect("shown in the table");
    assert_eq!(
        row.next_element_sibling().as_ref(),
        Some(&detail_row),
        "right under the row opened"
    );
    let rect = detail.get_bounding_client_rect();
    let viewport = web_sys::window()
        .unwrap()
        .inner_height()
        .unwrap()
        .as_f64()
        .unwrap();
    assert!(
        rect.top() < viewport && rect.bottom() > 0.0,
        "in view: {} .. {} of {viewport}",
        rect.top(),
        rect.bottom()
    );
    // Reloading the list keeps the detail element alive.
    app.load_history();
    wait_for("the history again", || {
        root.query_selector_all(".eld-history-open")
            .unwrap()
            .length()
            == 2
    })
    .await;
    assert!(root.contains(Some(&detail)));
}

// ------------------------------------------------- verification, remembered

/// The page remembers a block's verified commitment (budget 10): what it
/// remembers is that exact commitment, so any tampering is still caught.
#[wasm_bindgen_test]
fn a_remembered_commitment_still_refuses_tampering() {
    use eldorado_engine::verify::{Check, CommitmentSeen};
    use eldorado_engine::{ClientNonce, Money};
    use eldorado_web::fixtures::FixtureBlock;
    use eldorado_web::verification::{parse_public_key, verify, Buyer};

    let block = FixtureBlock::new(9, 100, &[fixtures::LOSE, fixtures::WIN_2]);
    let key = parse_public_key(&block.public_key_hex()).unwrap();
    let check = |response: &eldorado_web::api::SaleResponse| {
        let buyer = Buyer {
            stake_cents: 100,
            player: fixtures::PLAYER,
            money: Money::Play,
            client_nonce: Some(ClientNonce([0; 16])),
            // Seen as itself: only the signature tells a change apart.
            commitment_seen: CommitmentSeen::Seen(&response.commitment),
            beacon: None,
        };
        verify(response, &key, &buyer)
    };
    let genuine = block.response(1, 1, 5000);
    for _ in 0..3 {
        let ticket = check(&genuine).expect("verifies, again and again");
        // Every check but the beacon's deal: these sales are dealt in order.
        let every: Vec<Check> = Check::ALL
            .into_iter()
            .filter(|c| *c != Check::FairDeal)
            .collect();
        assert_eq!(ticket.checks, every, "every check ran");
    }
    let mut signature = genuine.clone();
    signature.commitment.signature.0[1] ^= 1;
    let mut root = genuine.clone();
    root.commitment.commitment.root.0[0] ^= 1;
    let mut stake = genuine.clone();
    stake.commitment.commitment.stake_cents = 200;
    for tampered in [signature, root, stake] {
        assert_eq!(
            check(&tampered).unwrap_err().check,
            Check::CommitmentSignature
        );
    }
    let mut sale = genuine.clone();
    sale.sale.signature.0[2] ^= 1;
    assert_eq!(check(&sale).unwrap_err().check, Check::SaleSignature);
    let mut prize = genuine.clone();
    prize.sale.sale.ticket.prize_cents += 100;
    assert_eq!(check(&prize).unwrap_err().check, Check::SaleSignature);
    assert!(check(&genuine).is_ok());
}
