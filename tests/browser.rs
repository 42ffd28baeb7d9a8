//! Browser tests, run in headless Chromium:
//! `CHROMEDRIVER=/usr/bin/chromedriver wasm-pack test --headless --chrome`.

mod support;

use eldorado_engine::verify::{Check, CommitmentSeen};
use eldorado_engine::{ClientNonce, Money, Symbol};
use eldorado_web::api::SaleResponse;
use eldorado_web::fixtures::{self, FixtureBlock};
use eldorado_web::game::{Phase, Popup};
use eldorado_web::i18n::Lang;
use eldorado_web::launch::Launch;
use eldorado_web::layout::BoardLayout;
use eldorado_web::reveal::Timing;
use eldorado_web::verification::{parse_public_key, verify, Buyer, Rejection, VerifiedTicket};
use support::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const NBSP: char = '\u{A0}';

// ---------------------------------------------------------------- verification

fn genuine() -> (FixtureBlock, SaleResponse) {
    let block = FixtureBlock::new(
        7,
        100,
        &[fixtures::LOSE, fixtures::WIN_2, fixtures::EXTRA_1_WIN_2],
    );
    let response = block.response(1, 42, 5000);
    (block, response)
}

/// Verifies as the page does right after buying from `block` at `stake`.
fn check(
    block: &FixtureBlock,
    response: &SaleResponse,
    stake: u64,
) -> Result<VerifiedTicket, Rejection> {
    let key = parse_public_key(&block.public_key_hex()).unwrap();
    let buyer = Buyer {
        stake_cents: stake,
        player: fixtures::PLAYER,
        money: Money::Play,
        client_nonce: Some(ClientNonce([0; 16])),
        commitment_seen: CommitmentSeen::Seen(&block.commitment),
        beacon: None,
    };
    verify(response, &key, &buyer)
}

fn rejected_by(block: &FixtureBlock, response: &SaleResponse, stake: u64) -> Check {
    check(block, response, stake)
        .expect_err("tampering must be caught")
        .check
}

#[wasm_bindgen_test]
fn verification_accepts_genuine_sales() {
    let block = FixtureBlock::new(
        7,
        100,
        &[fixtures::LOSE, fixtures::WIN_2, fixtures::EXTRA_1_WIN_2],
    );
    for position in 0..3 {
        let response = block.response(position, 100 + u64::from(position), 5000);
        let ticket = check(&block, &response, 100).expect("genuine sale verifies");
        // Every check but the beacon's deal: these sales are dealt in order.
        let every: Vec<Check> = Check::ALL
            .into_iter()
            .filter(|c| *c != Check::FairDeal)
            .collect();
        assert_eq!(ticket.checks, every);
    }
    let ticket = check(&block, &block.response(2, 9, 5000), 100).unwrap();
    assert_eq!(
        (ticket.extras, ticket.prize_cents, ticket.grids.len()),
        (1, 200, 2)
    );
}

#[wasm_bindgen_test]
fn verification_rejects_a_forged_signature() {
    let (block, mut response) = genuine();
    response.sale.signature.0[5] ^= 1;
    assert_eq!(rejected_by(&block, &response, 100), Check::SaleSignature);

    let (block, mut response) = genuine();
    response.commitment.signature.0[0] ^= 1;
    assert_eq!(
        rejected_by(&block, &response, 100),
        Check::CommitmentSignature
    );

    // Signed by someone else entirely.
    let (block, response) = genuine();
    let mut forged = response.clone();
    let wrong = eldorado_engine::commit::signing_key_from_secret([9; 32]);
    forged.sale = forged.sale.sale.clone().sign(&wrong).unwrap();
    assert_eq!(rejected_by(&block, &forged, 100), Check::SaleSignature);
}

#[wasm_bindgen_test]
fn verification_rejects_a_bad_merkle_proof() {
    // The operator signs a ticket that is not in the committed block.
    let (block, response) = genuine();
    let mut sale = response.sale.sale.clone();
    sale.proof[0].0[0] ^= 1;
    let mut tampered = response.clone();
    tampered.sale = block.sign(sale);
    assert_eq!(rejected_by(&block, &tampered, 100), Check::MerkleProof);

    let mut sale = response.sale.sale.clone();
    sale.ticket.position = 0;
    tampered.sale = block.sign(sale);
    assert_eq!(rejected_by(&block, &tampered, 100), Check::MerkleProof);
}

#[wasm_bindgen_test]
fn verification_rejects_a_changed_grid_cell() {
    let (block, response) = genuine();
    // A cell changed after signing breaks the signature...
    let mut tampered = response.clone();
    let mut grids = tampered.sale.sale.ticket.grids.clone();
    grids[0] = "PPSDR/DRSCR/SDRRR".parse().unwrap();
    tampered.sale.sale.ticket.grids = grids.clone();
    assert_eq!(rejected_by(&block, &tampered, 100), Check::SaleSignature);
    // ...and re-signed, the grid is not the committed one.
    let mut sale = response.sale.sale.clone();
    sale.ticket.grids = grids;
    tampered.sale = block.sign(sale);
    assert_eq!(rejected_by(&block, &tampered, 100), Check::MerkleProof);
    // A cell that makes the grid pay more than claimed breaks the rules.
    let mut sale = response.sale.sale.clone();
    sale.ticket.grids[0] = "PPPDR/DRSCR/SDRMR".parse().unwrap();
    tampered.sale = block.sign(sale);
    assert_eq!(rejected_by(&block, &tampered, 100), Check::Rules);
}

#[wasm_bindgen_test]
fn verification_rejects_a_changed_prize() {
    let (block, response) = genuine();
    let mut sale = response.sale.sale.clone();
    sale.ticket.prize_cents = 1000;
    let mut tampered = response.clone();
    tampered.sale = block.sign(sale);
    assert_eq!(rejected_by(&block, &tampered, 100), Check::Rules);
}

#[wasm_bindgen_test]
fn verification_rejects_another_stake() {
    let (block, response) = genuine();
    assert_eq!(rejected_by(&block, &response, 200), Check::StakePlayed);
    assert_eq!(rejected_by(&block, &response, 50), Check::StakePlayed);
}

// ---------------------------------------------------------------- play

#[wasm_bindgen_test]
async fn play_win_debits_then_credits_after_the_reveal() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2, fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert_eq!(text(&root, ".eld-balance-value"), format!("50,00{NBSP}€"));
    assert_eq!(text(&root, ".eld-play"), "Jouer");
    assert!(
        query(&root, ".eld-badge").hidden(),
        "no badge before a ticket"
    );

    click(&root, ".eld-play");
    wait_for("the reveal", || {
        matches!(app.game().phase(), Phase::Revealing { .. })
    })
    .await;
    assert_eq!(
        text(&root, ".eld-balance-value"),
        format!("49,00{NBSP}€"),
        "stake debited at once"
    );
    assert!(
        !query(&root, ".eld-badge").hidden(),
        "verified before any symbol"
    );
    assert_eq!(
        root.query_selector_all(".eld-checks li").unwrap().length(),
        13,
        "every check ran, the buyer's side included"
    );
    assert!(!query(&root, ".eld-play-money").hidden());
    assert_eq!(text(&root, ".eld-play-money"), "Argent fictif");

    wait_for("the end", || app.game().phase() == &Phase::Ready).await;
    assert_eq!(app.game().popup(), Some(Popup::Win(200)));
    assert_eq!(
        text(&root, ".eld-popup-text"),
        format!("Vous gagnez 2,00{NBSP}€")
    );
    assert_eq!(
        text(&root, ".eld-balance-value"),
        format!("51,00{NBSP}€"),
        "prize shown once revealed"
    );
    // The outcome, then the symbols that made it.
    let live = text(&root, ".eld-live");
    assert!(live.contains("Gagné"), "{live}");
    assert!(
        live.contains("Ligne 1 : pyramide, pyramide, "),
        "the symbols are said too: {live}"
    );
    assert!(live.find("Gagné") < live.find("Ligne 1"), "{live}");
    assert_eq!(backend.state.borrow().revealed.get(&1), Some(&1));

    // A loss shows no window.
    click(&root, ".eld-popup-ok");
    click(&root, ".eld-play");
    wait_for("the second ticket", || {
        app.game().ticket().is_some_and(|t| t.sale_id == 2)
    })
    .await;
    wait_for("its end", || app.game().phase() == &Phase::Ready).await;
    assert_eq!(app.game().popup(), None);
    assert!(query(&root, ".eld-popup").hidden());
    assert_eq!(text(&root, ".eld-balance-value"), format!("50,00{NBSP}€"));
    assert!(text(&root, ".eld-live").contains("Perdu"));
}

#[wasm_bindgen_test]
async fn play_with_extras() {
    let backend = FakeBackend::new(100, &[fixtures::EXTRA_2_WIN_10], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the Extra offer", || {
        app.game().phase() == &Phase::AwaitingExtra { next: 1 }
    })
    .await;
    assert_eq!(app.game().popup(), Some(Popup::Extras(2)));
    assert_eq!(text(&root, ".eld-popup-text"), "Vous obtenez 2 Extras");
    assert_eq!(
        text(&root, ".eld-play"),
        "Extra",
        "« Extra » replaces « Jouer »"
    );
    assert!(!query(&root, ".eld-extra-zone").hidden());
    assert_eq!(text(&root, ".eld-extra-count"), "2");
    assert_eq!(text(&root, ".eld-balance-value"), format!("49,00{NBSP}€"));

    click(&root, ".eld-play");
    assert_eq!(text(&root, ".eld-extra-count"), "1");
    wait_for("the second Extra offer", || {
        app.game().phase() == &Phase::AwaitingExtra { next: 2 }
    })
    .await;
    assert_eq!(
        text(&root, ".eld-balance-value"),
        format!("49,00{NBSP}€"),
        "no stake for an Extra"
    );
    assert_eq!(
        text(&root, ".eld-caption"),
        format!("Grille Extra 1 / 2{NBSP}: rien gagné"),
        "an Extra grid that wins nothing says so"
    );

    click(&root, ".eld-play");
    assert_eq!(text(&root, ".eld-extra-count"), "0");
    assert_eq!(text(&root, ".eld-caption"), "Grille Extra 2 / 2");
    wait_for("the end", || app.game().phase() == &Phase::Ready).await;
    assert_eq!(
        text(&root, ".eld-caption"),
        format!("Grille Extra 2 / 2{NBSP}: 10,00{NBSP}€")
    );
    assert_eq!(app.game().popup(), Some(Popup::Win(1000)));
    assert_eq!(text(&root, ".eld-balance-value"), format!("59,00{NBSP}€"));
    assert_eq!(text(&root, ".eld-play"), "Jouer");
    assert_eq!(backend.state.borrow().revealed.get(&1), Some(&3));
    assert_eq!(
        backend.state.borrow().buy_keys.len(),
        1,
        "Extras buy nothing"
    );
}

#[wasm_bindgen_test]
async fn pressing_during_the_reveal_shows_everything() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    app.set_timing(Timing::NORMAL);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the reveal", || {
        matches!(app.game().phase(), Phase::Revealing { .. })
    })
    .await;
    assert_eq!(text(&root, ".eld-play"), "Tout montrer");
    click(&root, ".eld-play");
    assert_eq!(
        app.game().phase(),
        &Phase::Ready,
        "the press ends the reveal at once"
    );
    assert_eq!(app.game().popup(), Some(Popup::Win(200)));
}

#[wasm_bindgen_test]
async fn a_stake_above_the_balance_is_refused_before_any_purchase() {
    let backend = FakeBackend::new(200, &[fixtures::LOSE], 150);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-stake[data-stake=\"200\"]");
    assert_eq!(app.game().stake(), 200);
    click(&root, ".eld-play");
    // Refused against the balance read again, not the figure on screen.
    wait_for("the refusal", || app.game().notice().is_some()).await;
    assert_eq!(app.game().phase(), &Phase::Ready);
    assert!(
        backend.state.borrow().buy_keys.is_empty(),
        "no purchase sent"
    );
    let notice = text(&root, ".eld-notice-text");
    assert!(notice.contains("Mise refusée"), "{notice}");
    assert!(notice.contains(&format!("1,50{NBSP}€")), "{notice}");
    assert!(!query(&root, ".eld-notice").hidden());
    assert!(text(&root, ".eld-live").contains("Mise refusée"));
}

#[wasm_bindgen_test]
async fn a_tampered_sale_is_never_shown() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    backend.state.borrow_mut().tamper = Some(|_, r: &mut SaleResponse| {
        r.sale.sale.ticket.prize_cents = 70_000;
    });
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the verdict", || app.game().notice().is_some()).await;
    assert!(app.game().ticket().is_none());
    assert_eq!(app.game().phase(), &Phase::Ready);
    let notice = text(&root, ".eld-notice-text");
    assert!(notice.contains("vérification"), "{notice}");
    assert!(query(&root, ".eld-badge").hidden());
    assert_eq!(
        query(&root, ".eld-notice")
            .get_attribute("data-kind")
            .as_deref(),
        Some("rejected")
    );
}

#[wasm_bindgen_test]
async fn a_lost_answer_is_retried_with_the_same_key() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2, fixtures::LOSE], 5000);
    backend.state.borrow_mut().lose_next_response = true;
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the failure", || {
        matches!(app.game().phase(), Phase::BuyFailed { .. })
    })
    .await;
    assert!(!query(&root, ".eld-retry").hidden());
    assert!(text(&root, ".eld-notice-text").contains("pas répondu"));
    assert!(query(&root, ".eld-stake")
        .dyn_into::<web_sys::HtmlButtonElement>()
        .unwrap()
        .disabled());
    click(&root, ".eld-retry");
    wait_for("the end", || app.game().phase() == &Phase::Ready).await;
    let state = backend.state.borrow();
    assert_eq!(state.buy_keys.len(), 2);
    assert_eq!(state.buy_keys[0], state.buy_keys[1], "same idempotency key");
    assert!(state.nonces[0].is_some(), "a nonce is sent");
    assert_eq!(state.nonces[0], state.nonces[1], "and resent with the key");
    assert_eq!(state.sales.len(), 1, "one ticket bought");
    assert_eq!(state.balance, 5100);
    assert_eq!(text(&root, ".eld-balance-value"), format!("51,00{NBSP}€"));
}

// ---------------------------------------------------------------- canvas

fn pixel(canvas: &web_sys::HtmlCanvasElement, x: f64, y: f64) -> [u8; 3] {
    let ctx = eldorado_web::board::context_2d(canvas).unwrap();
    let data = ctx
        .get_image_data(x.round(), y.round(), 1.0, 1.0)
        .unwrap()
        .data();
    [data[0], data[1], data[2]]
}

fn hex(colour: &str) -> [u8; 3] {
    let v = u32::from_str_radix(&colour[1..], 16).unwrap();
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// What the board draws under the symbols' tiles: `TILES.len()`.
const COVER_FACE: usize = eldorado_web::symbols::TILES.len();

/// The index in `TILES` of the colour nearest to `at`, or [`COVER_FACE`].
fn nearest(at: [u8; 3]) -> usize {
    let distance = |c: &str| {
        let c = hex(c);
        (0..3)
            .map(|i| (i32::from(c[i]) - i32::from(at[i])).pow(2))
            .sum::<i32>()
    };
    eldorado_web::symbols::TILES
        .iter()
        .chain([&eldorado_web::symbols::COVER])
        .enumerate()
        .min_by_key(|(_, c)| distance(c))
        .map(|(i, _)| i)
        .unwrap_or(COVER_FACE)
}

#[wasm_bindgen_test]
async fn the_canvas_draws_covers_then_the_known_grid() {
    let grid_text = fixtures::LOSE[0];
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    let canvas: web_sys::HtmlCanvasElement = query(&root, "canvas").dyn_into().unwrap();
    let dpr = web_sys::window().unwrap().device_pixel_ratio();
    let css = canvas.get_bounding_client_rect();
    assert_eq!(
        canvas.width(),
        (css.width() * dpr).round() as u32,
        "backing store follows the CSS size"
    );
    let layout = BoardLayout::new(canvas.width(), canvas.height());
    // Sampled in the lower left, clear of the drawings and of the rims; the
    // tiles are lit (gradients), so the nearest reference colour decides.
    let face = |row: usize, col: usize| {
        let cell = layout.cell_rect(row, col);
        nearest(pixel(
            &canvas,
            cell.x + cell.w * 0.12,
            cell.y + cell.h * 0.88,
        ))
    };
    for (row, col) in [(0, 0), (2, 4)] {
        assert_eq!(face(row, col), COVER_FACE, "cover at {row},{col}");
    }
    click(&root, ".eld-play");
    wait_for("the end", || app.game().phase() == &Phase::Ready).await;
    let grid: eldorado_engine::Grid = grid_text.parse().unwrap();
    for row in 0..3 {
        for col in 0..5 {
            let symbol: Symbol = grid.cell(row, col);
            assert_eq!(face(row, col), symbol.index(), "{symbol:?} at {row},{col}");
        }
    }
    // The six tiles differ in lightness, not only in hue.
    let mut lightness: Vec<u32> = eldorado_web::symbols::TILES
        .iter()
        .map(|c| {
            let [r, g, b] = hex(c);
            (299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b)) / 1000
        })
        .collect();
    lightness.sort_unstable();
    assert!(
        lightness.windows(2).all(|w| w[1] - w[0] >= 12),
        "{lightness:?}"
    );
}

// ---------------------------------------------------------------- resume

#[wasm_bindgen_test]
async fn an_interrupted_ticket_is_offered_and_finished() {
    let backend = FakeBackend::new(100, &[fixtures::EXTRA_1_WIN_2], 5000);
    backend.interrupt_first_ticket(5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert!(!query(&root, ".eld-resume").hidden(), "the offer shows");
    assert_eq!(text(&root, ".eld-resume-btn"), "Terminer la partie");
    click(&root, ".eld-resume-btn");
    wait_for("the Extra", || {
        app.game().phase() == &Phase::AwaitingExtra { next: 1 }
    })
    .await;
    assert!(query(&root, ".eld-resume").hidden());
    assert_eq!(text(&root, ".eld-balance-value"), format!("49,00{NBSP}€"));
    click(&root, ".eld-play");
    wait_for("the end", || app.game().phase() == &Phase::Ready).await;
    assert_eq!(text(&root, ".eld-balance-value"), format!("51,00{NBSP}€"));
    assert_eq!(backend.state.borrow().revealed.get(&1), Some(&2));
    assert_eq!(
        backend.state.borrow().buy_keys.len(),
        0,
        "resuming buys nothing"
    );
}

#[wasm_bindgen_test]
async fn history_redraws_a_past_ticket_and_its_checks() {
    let backend = FakeBackend::new(100, &[fixtures::EXTRA_1_WIN_2], 5000);
    let (root, app) = mount(&backend, Lang::En);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the Extra", || {
        app.game().phase() == &Phase::AwaitingExtra { next: 1 }
    })
    .await;
    click(&root, ".eld-play");
    wait_for("the end", || app.game().phase() == &Phase::Ready).await;
    app.load_history();
    wait_for("the history", || {
        root.query_selector(".eld-history-open").unwrap().is_some()
    })
    .await;
    let row = text(&root, ".eld-history-table tbody tr");
    assert!(
        row.contains("€1.00") && row.contains("Won €2.00") && row.contains("revealed"),
        "{row}"
    );
    click(&root, ".eld-history-open");
    wait_for("the detail", || {
        root.query_selector(".eld-history-grid canvas")
            .unwrap()
            .is_some()
    })
    .await;
    assert_eq!(
        root.query_selector_all(".eld-history-grid canvas")
            .unwrap()
            .length(),
        2
    );
    // All but the nonce, which is not kept once the ticket is over.
    assert_eq!(
        root.query_selector_all(".eld-history-detail .eld-checks li")
            .unwrap()
            .length(),
        12
    );
}

// ---------------------------------------------------------------- languages

#[wasm_bindgen_test]
async fn french_and_english_texts() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 12_345);
    let (fr, app_fr) = mount(&backend, Lang::Fr);
    ready(&app_fr).await;
    assert_eq!(fr.get_attribute("lang").as_deref(), Some("fr"));
    assert_eq!(text(&fr, ".eld-balance-label"), "Disponibilités");
    assert_eq!(text(&fr, ".eld-balance-value"), format!("123,45{NBSP}€"));
    assert_eq!(
        text(&fr, ".eld-stake[data-stake=\"50\"]"),
        format!("0,50{NBSP}€")
    );
    open_rules(&fr).await;
    assert!(text(&fr, ".eld-info-body").contains("1 ticket gagnant sur 6,62"));
    assert!(text(&fr, ".eld-info-body").contains(&format!("70{NBSP}%")));
    assert!(text(&fr, ".eld-footer").contains("l'animation ne change rien"));

    let (en, app_en) = mount(&backend, Lang::En);
    ready(&app_en).await;
    assert_eq!(en.get_attribute("lang").as_deref(), Some("en"));
    assert_eq!(text(&en, ".eld-balance-label"), "Balance");
    assert_eq!(text(&en, ".eld-balance-value"), "€123.45");
    assert_eq!(text(&en, ".eld-play"), "Play");
    assert_eq!(text(&en, ".eld-stake[data-stake=\"50\"]"), "€0.50");
    open_rules(&en).await;
    assert!(text(&en, ".eld-info-body").contains("€14,000"));
    assert!(text(&en, ".eld-footer").contains("the animation changes nothing"));

    // Any other language falls back to French, never to broken text.
    let launch = Launch::from_query([("lang", "de")]);
    assert_eq!(launch.lang, Lang::Fr);
}

/// A purchase whose public draw is not published yet (`DEAL_PENDING`) is a
/// calm wait, not a failure: the draw is said to be awaited, the stake is
/// shown paid, no « Réessayer » is offered, and the page asks again by
/// itself, under the same key, until the ticket comes: sold once.
#[wasm_bindgen_test]
async fn a_pending_draw_waits_calmly_then_shows_the_ticket() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    backend.state.borrow_mut().pending_draws = 2;
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the wait for the draw", || {
        query(&root, ".eld-notice")
            .get_attribute("data-kind")
            .as_deref()
            == Some("draw")
    })
    .await;
    assert!(!query(&root, ".eld-notice").hidden());
    let notice = text(&root, ".eld-notice-text");
    assert!(notice.starts_with("Tirage public en attente"), "{notice}");
    assert!(
        query(&root, ".eld-retry").hidden(),
        "nothing to retry by hand"
    );
    assert_eq!(
        query(&root, ".eld-play")
            .get_attribute("data-action")
            .as_deref(),
        Some("buying")
    );
    assert_eq!(text(&root, ".eld-balance-value"), format!("49,00{NBSP}€"));
    wait_for("the ticket", || app.game().ticket().is_some()).await;
    wait_for("its end", || app.game().phase() == &Phase::Ready).await;
    assert!(query(&root, ".eld-notice").hidden(), "the wait is over");
    let keys = backend.state.borrow().buy_keys.clone();
    assert_eq!(keys.len(), 3, "asked three times");
    assert!(keys.iter().all(|k| *k == keys[0]), "under one key");
    assert_eq!(backend.state.borrow().sales.len(), 1, "sold once");
    assert_eq!(text(&root, ".eld-balance-value"), format!("49,00{NBSP}€"));
}
