//! Browser tests of player protection (issue 12): the notices in both
//! languages, the « Limites de jeu » panel and what it sends, refusals for
//! a limit or an exclusion, the reality check, and the history still open
//! to a refused or excluded player.
//! `wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver -- --test protection`

mod support;

use eldorado_engine::{ClientNonce, Money};
use eldorado_web::api::{
    ExclusionRequest, LimitKind, LimitReached, LimitsRequest, NetError, PendingLimit, Protection,
    RealityCheckRequest,
};
use eldorado_web::fixtures;
use eldorado_web::game::Phase;
use eldorado_web::i18n::Lang;
use eldorado_web::protection::{Exclusion, Refusal};
use std::cell::Cell;
use std::rc::Rc;
use support::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{HtmlButtonElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

const NBSP: char = '\u{A0}';

const FR_WARNINGS: [&str; 3] = [
    "Jouer comporte des risques : endettement, dépendance... Appelez le 09 74 75 13 13 (appel non surtaxé).",
    "Jouer comporte des risques : isolement, endettement... Appelez le 09 74 75 13 13 (appel non surtaxé).",
    "Jouer comporte des risques : dépendance, isolement... Appelez le 09 74 75 13 13 (appel non surtaxé).",
];

fn play_disabled(root: &web_sys::Element) -> bool {
    query(root, ".eld-play")
        .dyn_into::<HtmlButtonElement>()
        .unwrap()
        .disabled()
}

fn input(root: &web_sys::Element, selector: &str) -> HtmlInputElement {
    query(root, selector).dyn_into().unwrap()
}

/// Sells `count` tickets straight into the fake server, as if bought (and
/// revealed) in an earlier session.
fn sell_earlier(backend: &FakeBackend, count: u32) {
    let mut state = backend.state.borrow_mut();
    for position in 0..count {
        let sale_id = u64::from(position) + 1;
        let balance = state.balance;
        let response = state
            .block
            .response_to(position, sale_id, balance, ClientNonce([0; 16]));
        state.balance = response.balance_after_cents;
        state.revealed.insert(sale_id, 1);
        state.sales.push(response);
    }
    state.next_position = count;
}

/// Opens the history, then the first ticket listed, and waits for its
/// grid and its checks.
async fn reopen_first_ticket(root: &web_sys::Element, app: &eldorado_web::app::App) {
    app.load_history();
    wait_for("the history", || {
        root.query_selector(".eld-history-open").unwrap().is_some()
    })
    .await;
    click(root, ".eld-history-open");
    wait_for("the past ticket", || {
        root.query_selector(".eld-history-grid canvas")
            .unwrap()
            .is_some()
    })
    .await;
    // Every check a past sale allows (not the purchase's nonce, nor the
    // commitment seen before buying when this browser never saw it).
    assert!(
        root.query_selector_all(".eld-history-detail .eld-checks li")
            .unwrap()
            .length()
            >= 11,
        "re-opened with its verification"
    );
    assert!(text(root, ".eld-history-detail .eld-badge summary").starts_with('✓'));
}

// ---------------------------------------------------------------- notices

#[wasm_bindgen_test]
async fn notices_in_french() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE, fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert_eq!(text(&root, ".eld-adults-text"), "Interdit aux mineurs");
    assert_eq!(text(&root, ".eld-adults-badge"), "18+");
    let warning = text(&root, ".eld-responsible");
    let first = FR_WARNINGS
        .iter()
        .position(|w| *w == warning)
        .unwrap_or_else(|| panic!("not an official wording: {warning}"));
    assert_eq!(
        text(&root, ".eld-fixed"),
        "Le résultat de chaque ticket est fixé à l'achat : l'animation ne change rien."
    );
    assert!(!query(&root, ".eld-play-money").hidden());
    assert_eq!(text(&root, ".eld-play-money"), "Argent fictif");
    assert_eq!(text(&root, ".eld-limits-open"), "Limites de jeu");
    assert_eq!(text(&root, ".eld-clock-label"), "Temps de jeu");
    assert_eq!(
        query(&root, ".eld-clock-value")
            .get_attribute("role")
            .as_deref(),
        Some("timer")
    );

    // The next ticket brings the next official wording.
    click(&root, ".eld-play");
    wait_for("the end", || {
        app.game().phase() == &Phase::Ready && app.game().ticket().is_some()
    })
    .await;
    assert_eq!(
        text(&root, ".eld-responsible"),
        FR_WARNINGS[(first + 1) % 3]
    );
    assert!(
        !query(&root, ".eld-fixed").hidden(),
        "said on the ticket shown"
    );
}

#[wasm_bindgen_test]
async fn notices_in_english() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::En);
    ready(&app).await;
    assert_eq!(
        text(&root, ".eld-adults-text"),
        "Forbidden to minors: 18+ only"
    );
    let warning = text(&root, ".eld-responsible");
    assert!(
        warning.starts_with("Gambling involves risks:")
            && warning.ends_with("Call 09 74 75 13 13 (standard-rate call)."),
        "{warning}"
    );
    assert_eq!(
        text(&root, ".eld-fixed"),
        "Each ticket's result is fixed when it is bought: the animation changes nothing."
    );
    assert_eq!(text(&root, ".eld-play-money"), "Play money");
    assert_eq!(text(&root, ".eld-limits-open"), "Play limits");
    assert_eq!(text(&root, ".eld-clock-label"), "Time played");
}

#[wasm_bindgen_test]
async fn a_real_money_session_says_nothing_of_play_money() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    backend.state.borrow_mut().money = Money::Real;
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert!(query(&root, ".eld-play-money").hidden());
    assert_eq!(text(&root, ".eld-adults-text"), "Interdit aux mineurs");
}

// ---------------------------------------------------------------- the panel

#[wasm_bindgen_test]
async fn limits_panel_shows_limits_and_sends_the_right_body() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    backend.state.borrow_mut().protection = Protection {
        weekly_stake_limit_cents: Some(1000),
        stake_used_cents: 350,
        loss_used_cents: 150,
        pending_weekly_loss_limit: Some(PendingLimit {
            limit_cents: Some(5000),
            effective_at_ms: 1_767_225_600_000,
        }),
        ..Protection::default()
    };
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    // Staked since the session was read: the panel's fresh figures say so.
    backend.state.borrow_mut().protection.stake_used_cents = 400;
    let open = query(&root, ".eld-limits-open");
    assert!(!dialog_open(&root));
    assert_eq!(
        open.get_attribute("aria-expanded").as_deref(),
        Some("false")
    );
    open.click();
    assert!(dialog_open(&root), "a modal dialog");
    assert_eq!(open.get_attribute("aria-expanded").as_deref(), Some("true"));
    assert_eq!(input(&root, "#eld-stake-limit").value(), "10");
    // Typed before the fresh figures arrive: kept.
    input(&root, "#eld-stake-limit").set_value("7");
    wait_for("the limits read afresh", || {
        text(&root, ".eld-limit").contains(&format!("4,00{NBSP}€"))
    })
    .await;
    assert_eq!(backend.state.borrow().limits_reads, 1);
    assert_eq!(input(&root, "#eld-stake-limit").value(), "7");
    input(&root, "#eld-stake-limit").set_value("10");
    let blocks = root.query_selector_all(".eld-limit").unwrap();
    let stake = blocks.item(0).unwrap().text_content().unwrap();
    let loss = blocks.item(1).unwrap().text_content().unwrap();
    assert!(stake.contains(&format!("10,00{NBSP}€")), "{stake}");
    assert!(stake.contains(&format!("4,00{NBSP}€")), "{stake}");
    assert!(loss.contains("aucune limite"), "{loss}");
    assert!(loss.contains(&format!("1,50{NBSP}€")), "{loss}");
    assert!(
        loss.contains(&format!("Passera à 50,00{NBSP}€ le ")),
        "{loss}"
    );
    assert_eq!(input(&root, "#eld-stake-limit").value(), "10");
    assert_eq!(input(&root, "#eld-loss-limit").value(), "");

    // A typing slip sends nothing.
    input(&root, "#eld-stake-limit").set_value("dix");
    click(&root, ".eld-limits-save");
    assert_eq!(
        text(&root, ".eld-limits-message"),
        "Montant non valable : écrivez par exemple 20 ou 12,50 (ou laissez vide)."
    );
    assert_eq!(
        query(&root, "#eld-stake-limit")
            .get_attribute("aria-invalid")
            .as_deref(),
        Some("true")
    );
    assert!(backend.state.borrow().limits_requests.is_empty());

    // Euros shown, cents sent; an empty field asks for no limit.
    input(&root, "#eld-stake-limit").set_value("20,50");
    input(&root, "#eld-loss-limit").set_value("");
    click(&root, ".eld-limits-save");
    wait_for("the limits saved", || {
        text(&root, ".eld-limits-message") == "Limites enregistrées."
    })
    .await;
    let sent = backend.state.borrow().limits_requests.clone();
    assert_eq!(
        sent,
        vec![LimitsRequest {
            weekly_stake_limit_cents: Some(2050),
            weekly_loss_limit_cents: None,
        }]
    );
    // On the wire, the removed limit is named with null.
    assert_eq!(
        eldorado_web::net::to_json(&sent[0]).unwrap(),
        r#"{"weekly_stake_limit_cents":2050,"weekly_loss_limit_cents":null}"#
    );
    let stake = root
        .query_selector_all(".eld-limit")
        .unwrap()
        .item(0)
        .unwrap()
        .text_content()
        .unwrap();
    assert!(stake.contains(&format!("20,50{NBSP}€")), "{stake}");

    // The reality check's period.
    click(&root, ".eld-reality-choice[data-minutes=\"15\"]");
    wait_for("the period saved", || {
        !backend.state.borrow().reality_requests.is_empty()
    })
    .await;
    assert_eq!(
        backend.state.borrow().reality_requests,
        vec![RealityCheckRequest { minutes: 15 }]
    );
    wait_for("the period shown", || {
        query(&root, ".eld-reality-choice[data-minutes=\"15\"]")
            .get_attribute("aria-pressed")
            .as_deref()
            == Some("true")
    })
    .await;
    assert!(!play_disabled(&root), "limits alone bar nothing");
    drop(app);
}

#[wasm_bindgen_test]
async fn self_exclusion_says_what_it_will_do_and_waits_for_a_confirmation() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE, fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the first ticket", || {
        app.game().phase() == &Phase::Ready && app.game().ticket().is_some()
    })
    .await;
    assert!(!play_disabled(&root));

    // First click: the panel. Second: the choice, which says it is final.
    click(&root, ".eld-limits-open");
    let choice = query(&root, ".eld-exclude[data-days=\"1\"]");
    assert!(choice.text_content().unwrap().contains("24 heures"));
    assert!(choice
        .text_content()
        .unwrap()
        .contains("Irrévocable : ne peut être ni annulée ni raccourcie"));
    // Its name is its visible text: no aria-label that differs from it.
    assert_eq!(choice.get_attribute("aria-label"), None);
    // The choice only says what will happen; nothing is sent yet.
    choice.click();
    let confirm = query(&root, ".eld-exclusion-confirm");
    assert!(!confirm.hidden());
    let preview = text(&root, ".eld-exclusion-confirm-text");
    assert!(preview.contains("jusqu'au"), "{preview}");
    assert!(preview.contains("ni annulée ni raccourcie"), "{preview}");
    // « jusqu'au 09/12/2026 à 10:48 »: the day, then its time, as a
    // sentence says it.
    let moment = preview.split("jusqu'au ").nth(1).unwrap_or_default();
    let (day, time) = moment.split_once(" à ").expect("a day « à » a time");
    assert_eq!(day.matches('/').count(), 2, "{preview}");
    assert_eq!(time.get(2..3), Some(":"), "{preview}");
    assert!(backend.state.borrow().exclusion_requests.is_empty());
    // Cancelled: nothing sent, the focus back on the choice.
    click(&root, ".eld-exclude-cancel");
    assert!(confirm.hidden());
    let focused = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element()
        .unwrap();
    let chosen: &web_sys::Element = &choice;
    assert_eq!(&focused, chosen);
    // « Jusqu'à levée par l'opérateur » says so before it is confirmed.
    click(&root, ".eld-exclude[data-days=\"none\"]");
    let preview = text(&root, ".eld-exclusion-confirm-text");
    assert!(
        preview.contains("jusqu'à ce que l'opérateur lève"),
        "{preview}"
    );
    // Closing the panel drops the choice; reopened, nothing is pending.
    click(&root, ".eld-limits-close");
    click(&root, ".eld-limits-open");
    assert!(confirm.hidden());
    assert!(backend.state.borrow().exclusion_requests.is_empty());
    // Chosen again, then confirmed: sent once.
    choice.click();
    click(&root, ".eld-exclude-confirm");
    wait_for("the exclusion", || {
        !backend.state.borrow().exclusion_requests.is_empty()
    })
    .await;
    assert_eq!(
        backend.state.borrow().exclusion_requests,
        vec![ExclusionRequest { days: Some(1) }]
    );
    wait_for("play barred", || play_disabled(&root)).await;
    let status = query(&root, ".eld-guard-status");
    assert!(!status.hidden());
    let said = status.text_content().unwrap();
    assert!(said.contains("jusqu'au"), "{said}");
    assert!(said.contains("historique reste consultable"), "{said}");
    assert_eq!(
        query(&root, ".eld-play")
            .get_attribute("aria-describedby")
            .as_deref(),
        Some("eld-guard-status")
    );

    // No way around it: the keyboard shortcut and the game's own press.
    let keys_before = backend.state.borrow().buy_keys.len();
    let reads_before = backend.state.borrow().session_reads;
    app.press();
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(" ");
    init.set_bubbles(true);
    let event =
        web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .dispatch_event(&event)
        .unwrap();
    // A purchase leaves `Ready` at once, before its request goes out; the
    // balance read that precedes one on a short balance starts at once too.
    assert_eq!(app.game().phase(), &Phase::Ready);
    assert_eq!(backend.state.borrow().session_reads, reads_before);
    assert_eq!(backend.state.borrow().buy_keys.len(), keys_before);
    assert!(play_disabled(&root));

    // The history still re-opens a ticket with its grids and checks.
    reopen_first_ticket(&root, &app).await;
}

// ---------------------------------------------------------------- refusals

/// Every purchase refused: 9.50 € of a weekly stake limit of 10 € used.
fn refuse_for_the_weekly_limit(backend: &FakeBackend) {
    backend.state.borrow_mut().refuse_sales = Some(NetError::Protection(Refusal::Limit {
        limit: LimitReached {
            kind: LimitKind::WeeklyStake,
            limit_cents: 1000,
            used_cents: 950,
            frees_at_ms: 1_767_225_600_000,
        },
        stake_cents: None,
    }));
}

/// A limit's refusal, then a self-exclusion: the exclusion says why
/// nothing can be bought, the refusal is no longer shown under it, and no
/// stake can be chosen.
#[wasm_bindgen_test]
async fn an_exclusion_replaces_a_limits_refusal_and_bars_the_stakes() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    refuse_for_the_weekly_limit(&backend);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the refusal", || !query(&root, ".eld-notice").hidden()).await;
    assert!(query(&root, ".eld-stake[data-stake=\"100\"]")
        .get_attribute("disabled")
        .is_none());
    click(&root, ".eld-limits-open");
    click(&root, ".eld-exclude[data-days=\"1\"]");
    click(&root, ".eld-exclude-confirm");
    wait_for("play barred", || play_disabled(&root)).await;
    click(&root, ".eld-limits-close");
    assert!(!query(&root, ".eld-guard-status").hidden());
    assert!(
        query(&root, ".eld-notice").hidden(),
        "the old refusal is gone"
    );
    for stake in ["50", "100", "200"] {
        let button = query(&root, &format!(".eld-stake[data-stake=\"{stake}\"]"));
        assert!(button.get_attribute("disabled").is_some(), "stake {stake}");
    }
}

#[wasm_bindgen_test]
async fn limit_reached_says_the_limit_the_use_and_when_room_frees_up() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE, fixtures::LOSE, fixtures::LOSE], 5000);
    sell_earlier(&backend, 2);
    refuse_for_the_weekly_limit(&backend);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    let balance = text(&root, ".eld-balance-value");
    click(&root, ".eld-play");
    wait_for("the refusal", || !query(&root, ".eld-notice").hidden()).await;
    let notice = text(&root, ".eld-notice-text");
    assert!(notice.contains(&format!("10,00{NBSP}€")), "{notice}");
    assert!(notice.contains(&format!("9,50{NBSP}€")), "{notice}");
    assert!(notice.contains("de nouveau possible le "), "{notice}");
    assert!(notice.contains("2026"), "{notice}");
    assert_eq!(
        query(&root, ".eld-notice")
            .get_attribute("data-kind")
            .as_deref(),
        Some("protection")
    );
    assert_eq!(app.game().phase(), &Phase::Ready);
    assert!(app.game().ticket().is_none(), "nothing sold");
    assert_eq!(text(&root, ".eld-balance-value"), balance);
    assert!(!play_disabled(&root), "a smaller stake may still fit");

    // A stake above the limit itself is never "possible again".
    if let Some(NetError::Protection(Refusal::Limit { limit, .. })) =
        backend.state.borrow_mut().refuse_sales.as_mut()
    {
        limit.limit_cents = 80;
    }
    click(&root, ".eld-play");
    wait_for("the second refusal", || {
        text(&root, ".eld-notice-text").contains("0,80")
    })
    .await;
    let notice = text(&root, ".eld-notice-text");
    assert!(
        notice.ends_with(
            "Cette mise dépasse à elle seule votre limite : choisissez une mise plus petite."
        ),
        "{notice}"
    );

    // The refused player still recalls past tickets.
    reopen_first_ticket(&root, &app).await;
    let rows = root
        .query_selector_all(".eld-history-table tbody tr:not(.eld-history-detail-row)")
        .unwrap();
    assert_eq!(rows.length(), 2);
    let row = rows.item(0).unwrap().text_content().unwrap();
    assert!(row.contains("1 / 1"), "block / position: {row}");
}

#[wasm_bindgen_test]
async fn self_excluded_refusal_says_until_when_and_bars_play() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let until = now_ms() + 3 * DAY_MS;
    backend.state.borrow_mut().refuse_sales = Some(NetError::Protection(Refusal::Excluded(
        Exclusion::Until(until),
    )));
    let (root, app) = mount(&backend, Lang::En);
    ready(&app).await;
    // Excluded elsewhere (by the operator) since the session was read.
    backend.state.borrow_mut().protection.excluded_until_ms = Some(until);
    assert!(!play_disabled(&root));
    click(&root, ".eld-play");
    wait_for("the refusal", || !query(&root, ".eld-notice").hidden()).await;
    let notice = text(&root, ".eld-notice-text");
    assert!(
        notice.starts_with("You are excluded from play until "),
        "{notice}"
    );
    wait_for("play barred", || play_disabled(&root)).await;
    assert!(text(&root, ".eld-guard-status").contains("until"));
    assert_eq!(app.game().phase(), &Phase::Ready);
}

#[wasm_bindgen_test]
async fn an_excluded_player_sees_why_and_recalls_the_last_tickets() {
    let tickets = [fixtures::LOSE; 12];
    let backend = FakeBackend::new(100, &tickets, 5000);
    sell_earlier(&backend, 12);
    backend.state.borrow_mut().protection = Protection {
        excluded_indefinitely: true,
        ..Protection::default()
    };
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert!(play_disabled(&root), "no way to play");
    let status = text(&root, ".eld-guard-status");
    assert!(
        status.contains("jusqu'à ce que l'opérateur lève l'exclusion"),
        "{status}"
    );
    let reads_before = backend.state.borrow().session_reads;
    app.press();
    // A purchase leaves `Ready` at once, before its request goes out; the
    // balance read that precedes one on a short balance starts at once too.
    assert_eq!(app.game().phase(), &Phase::Ready);
    assert_eq!(backend.state.borrow().session_reads, reads_before);
    assert!(backend.state.borrow().buy_keys.is_empty());

    // Shortening is refused by the server, and said plainly.
    click(&root, ".eld-limits-open");
    assert!(!query(&root, ".eld-guard-excluded").hidden());
    click(&root, ".eld-exclude[data-days=\"7\"]");
    click(&root, ".eld-exclude-confirm");
    wait_for("the refusal", || {
        text(&root, ".eld-limits-message").contains("ne peut qu'être prolongée")
    })
    .await;
    assert!(play_disabled(&root));

    reopen_first_ticket(&root, &app).await;
    let rows = root
        .query_selector_all(".eld-history-table tbody tr:not(.eld-history-detail-row)")
        .unwrap();
    assert!(rows.length() >= 10, "at least the last 10 tickets");
    let newest = rows.item(0).unwrap().text_content().unwrap();
    assert!(newest.contains("1 / 11"), "block / position: {newest}");
    assert!(newest.contains(&format!("1,00{NBSP}€")), "stake: {newest}");
    assert!(newest.contains("Perdu"), "result: {newest}");
    assert!(
        text(&root, ".eld-history-detail").contains("fixé à l'achat"),
        "the re-opened ticket says its result was fixed"
    );
}

// ---------------------------------------------------------------- reality check

#[wasm_bindgen_test]
async fn the_reality_check_comes_before_the_next_ticket_and_stop_is_final() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2, fixtures::LOSE], 5000);
    backend.state.borrow_mut().protection.reality_check_minutes = 15;
    let (root, app) = mount(&backend, Lang::Fr);
    let now = Rc::new(Cell::new(1_767_225_600_000.0));
    let clock = now.clone();
    app.set_clock(Rc::new(move || clock.get()));
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the first ticket", || {
        app.game().phase() == &Phase::Ready && app.game().ticket().is_some()
    })
    .await;
    now.set(now.get() + 14.0 * 60_000.0);
    app.clock_tick();
    assert!(query(&root, ".eld-reality").hidden(), "not before 15 min");
    assert_eq!(text(&root, ".eld-clock-value"), "0:14:00");

    // 15 minutes: « Jouer » brings the check, not a ticket.
    now.set(now.get() + 60_000.0);
    let keys = backend.state.borrow().buy_keys.len();
    app.press();
    assert!(!query(&root, ".eld-reality").hidden());
    assert_eq!(backend.state.borrow().buy_keys.len(), keys);
    assert!(play_disabled(&root));
    let focused = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element()
        .map(|e| e.class_name());
    assert_eq!(focused.as_deref(), Some("eld-reality-continue"));
    let figure = |name: &str| text(&root, &format!(".eld-reality dd[data-figure=\"{name}\"]"));
    assert_eq!(figure("played"), "0:15:00");
    assert_eq!(figure("tickets"), "1");
    assert_eq!(figure("stakes"), format!("1,00{NBSP}€"));
    assert_eq!(figure("prizes"), format!("2,00{NBSP}€"));
    assert_eq!(figure("net"), format!("+1,00{NBSP}€"));
    assert_eq!(
        query(&root, ".eld-reality")
            .get_attribute("role")
            .as_deref(),
        Some("alertdialog")
    );

    // « Continuer »: play again, for another 15 minutes.
    click(&root, ".eld-reality-continue");
    assert!(query(&root, ".eld-reality").hidden());
    assert!(!play_disabled(&root));
    now.set(now.get() + 14.0 * 60_000.0);
    app.clock_tick();
    assert!(query(&root, ".eld-reality").hidden());
    now.set(now.get() + 60_000.0);
    app.clock_tick();
    assert!(!query(&root, ".eld-reality").hidden(), "between tickets");

    // « Arrêter de jouer »: no more tickets without a reload.
    click(&root, ".eld-reality-stop");
    assert!(query(&root, ".eld-reality").hidden());
    assert!(play_disabled(&root));
    assert!(text(&root, ".eld-guard-status").contains("Rechargez la page"));
    now.set(now.get() + 120.0 * 60_000.0);
    app.clock_tick();
    let reads_before = backend.state.borrow().session_reads;
    app.press();
    // A purchase leaves `Ready` at once, before its request goes out; the
    // balance read that precedes one on a short balance starts at once too.
    assert_eq!(app.game().phase(), &Phase::Ready);
    assert_eq!(backend.state.borrow().session_reads, reads_before);
    assert_eq!(backend.state.borrow().buy_keys.len(), keys);
    assert!(query(&root, ".eld-reality").hidden());
    assert!(play_disabled(&root));
}

// ---------------------------------------------------------------- layout

/// The page's own style sheet in the test page, removed when dropped.
struct StyleSheet(web_sys::Element);

impl StyleSheet {
    fn inject() -> StyleSheet {
        let doc = web_sys::window().unwrap().document().unwrap();
        let style = doc.create_element("style").unwrap();
        style.set_text_content(Some(include_str!("../www/style.css")));
        doc.body().unwrap().append_child(&style).unwrap();
        StyleSheet(style)
    }
}

impl Drop for StyleSheet {
    fn drop(&mut self) {
        self.0.remove();
    }
}

/// Every visible control under `selector` is at least 44 px high and
/// inside `root`'s width.
/// Whether « Limites de jeu » is open, as a modal dialog.
fn dialog_open(root: &web_sys::Element) -> bool {
    let dialog = root.query_selector(".eld-limits").unwrap().unwrap();
    let open = dialog.has_attribute("open");
    assert!(
        !open || dialog.matches(":modal").unwrap(),
        "open, but not modal"
    );
    open
}

/// The controls under `selector` are at least 44 px high and within the
/// game's `root` (a modal dialog: within the viewport).
fn assert_touchable(root: &web_sys::Element, selector: &str) {
    let modal = root
        .query_selector(&format!("{selector}:modal"))
        .unwrap()
        .is_some();
    let bounds = if modal {
        let html = web_sys::window()
            .unwrap()
            .document()
            .unwrap()
            .document_element()
            .unwrap();
        html.get_bounding_client_rect()
    } else {
        root.get_bounding_client_rect()
    };
    let controls = root
        .query_selector_all(&format!(
            "{selector} button, {selector} input, {selector} summary"
        ))
        .unwrap();
    assert!(controls.length() > 0, "no control under {selector}");
    for i in 0..controls.length() {
        let control: web_sys::Element = controls.item(i).unwrap().dyn_into().unwrap();
        let rect = control.get_bounding_client_rect();
        if rect.width() == 0.0 {
            continue;
        }
        let name = control.outer_html();
        assert!(rect.height() >= 44.0, "{} px high: {name}", rect.height());
        assert!(
            rect.right() <= bounds.right() + 0.5 && rect.left() >= bounds.left() - 0.5,
            "outside the 400 px: {name}"
        );
    }
}

#[wasm_bindgen_test]
async fn protection_fits_400_px_with_44_px_targets() {
    let _css = StyleSheet::inject();
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    backend.state.borrow_mut().protection = Protection {
        weekly_stake_limit_cents: Some(1000),
        pending_weekly_stake_limit: Some(PendingLimit {
            limit_cents: None,
            effective_at_ms: 1_767_225_600_000,
        }),
        reality_check_minutes: 15,
        ..Protection::default()
    };
    let (root, app) = mount(&backend, Lang::Fr);
    root.style().set_property("width", "400px").unwrap();
    let now = Rc::new(Cell::new(1_767_225_600_000.0));
    let clock = now.clone();
    app.set_clock(Rc::new(move || clock.get()));
    ready(&app).await;
    click(&root, ".eld-limits-open");
    assert!(
        root.scroll_width() <= root.client_width(),
        "no sideways scrolling: {} > {}",
        root.scroll_width(),
        root.client_width()
    );
    assert_touchable(&root, ".eld-guard");
    assert_touchable(&root, ".eld-limits");
    now.set(now.get() + 15.0 * 60_000.0);
    app.clock_tick();
    assert!(!query(&root, ".eld-reality").hidden());
    assert_touchable(&root, ".eld-reality");
    web_sys::console::log_1(&root.outer_html().into());
}

/// A reload does not reset the session clock: it counts from the session's
/// start as the server knows it, and a reality check due in that time
/// comes before the first ticket of the reloaded page.
#[wasm_bindgen_test]
async fn the_session_clock_counts_from_the_sessions_start_across_a_reload() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let started = 1_767_225_600_000u64;
    backend.state.borrow_mut().session_started_ms = started;
    backend.state.borrow_mut().protection.reality_check_minutes = 30;
    let (root, app) = mount(&backend, Lang::Fr);
    let now = Rc::new(Cell::new(started as f64 + 40.0 * 60_000.0));
    let clock = now.clone();
    app.set_clock(Rc::new(move || clock.get()));
    ready(&app).await;
    app.clock_tick();
    assert_eq!(text(&root, ".eld-clock-value"), "0:40:00");
    let keys = backend.state.borrow().buy_keys.len();
    app.press();
    assert!(!query(&root, ".eld-reality").hidden(), "the check was due");
    assert_eq!(backend.state.borrow().buy_keys.len(), keys);
    assert_eq!(
        text(&root, ".eld-reality dd[data-figure=\"played\"]"),
        "0:40:00"
    );
    drop(app);
}

/// « Limites de jeu » is a modal dialog (the browser keeps the page behind
/// it inert): focus goes inside, and however it closes (its button, Escape, which the
/// browser turns into `close`) focus returns to « Limites de jeu ».
#[wasm_bindgen_test]
async fn the_limits_dialog_keeps_focus_inside_and_gives_it_back() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    let document = web_sys::window().unwrap().document().unwrap();
    let dialog: web_sys::HtmlDialogElement = query(&root, ".eld-limits").dyn_into().unwrap();
    let opener = query(&root, ".eld-limits-open");
    opener.click();
    assert!(dialog_open(&root));
    let focused = document.active_element().unwrap();
    assert!(dialog.contains(Some(&focused)), "{}", focused.outer_html());
    // Closed as Escape closes it: by the dialog itself.
    dialog.close();
    wait_for("focus back on « Limites de jeu »", || {
        document.active_element().is_some_and(|e| {
            let opener: &web_sys::Element = &opener;
            &e == opener
        })
    })
    .await;
    assert_eq!(
        opener.get_attribute("aria-expanded").as_deref(),
        Some("false")
    );
    // Opened again: the close button does the same at once.
    opener.click();
    assert!(dialog_open(&root));
    click(&root, ".eld-limits-close");
    assert!(!dialog_open(&root));
    assert_eq!(
        opener.get_attribute("aria-expanded").as_deref(),
        Some("false")
    );
    drop(app);
}
