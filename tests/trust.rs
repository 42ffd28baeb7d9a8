//! Browser tests of what the page refuses to believe (issue 8): sales that
//! are genuine yet not for this purchase, this player, this kind of money or
//! an announced 400,000-ticket block; commitments signed twice; a key that
//! is not the pinned one; figures that contradict the rules; results of
//! tickets not revealed yet.

mod support;

use eldorado_engine::verify::Check;
use eldorado_engine::Money;
use eldorado_web::api::SaleResponse;
use eldorado_web::fixtures::{self, FixtureBlock};
use eldorado_web::game::{Notice, Phase};
use eldorado_web::i18n::Lang;
use eldorado_web::operator_key::fingerprint;
use eldorado_web::verification::parse_public_key;
use support::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const NBSP: char = '\u{A0}';

/// Plays once and waits for the page's verdict; returns the check that
/// refused the sale.
async fn play_refused(root: &web_sys::HtmlElement, app: &eldorado_web::app::App) -> Check {
    click(root, ".eld-play");
    wait_for("the verdict", || {
        app.game().phase() == &Phase::Ready && app.game().notice().is_some()
    })
    .await;
    assert!(app.game().ticket().is_none(), "nothing of it is shown");
    assert!(query(root, ".eld-badge").hidden());
    assert_eq!(
        query(root, ".eld-notice")
            .get_attribute("data-kind")
            .as_deref(),
        Some("rejected")
    );
    match app.game().notice() {
        Some(Notice::Rejected(rejection)) => rejection.check,
        other => panic!("not refused: {other:?}"),
    }
}

/// The balance on screen once the session has been read again.
async fn balance_settles(root: &web_sys::HtmlElement, expected: &str) {
    wait_for("the balance read again", || {
        text(root, ".eld-balance-value") == expected
    })
    .await;
}

#[wasm_bindgen_test]
async fn a_signed_one_ticket_block_is_refused_and_the_balance_is_not_believed() {
    // Correctly signed, announced before the purchase, and made for one
    // buyer: a block of one winning ticket.
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    {
        let mut state = backend.state.borrow_mut();
        state.block = FixtureBlock::padded(1, 100, &[fixtures::WIN_2], 1);
        state.keep_balance = true;
    }
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert_eq!(play_refused(&root, &app).await, Check::BlockSize);
    assert_eq!(backend.state.borrow().sales.len(), 1, "the server did sell");
    // The refused sale says 51,00 €; the session still says 50,00 €.
    balance_settles(&root, &format!("50,00{NBSP}€")).await;
    let notice = text(&root, ".eld-notice-text");
    assert!(notice.contains("relu auprès du serveur"), "{notice}");
}

#[wasm_bindgen_test]
async fn a_replayed_genuine_sale_is_refused() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2, fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the first ticket", || {
        app.game().ticket().is_some() && app.game().phase() == &Phase::Ready
    })
    .await;
    assert_eq!(text(&root, ".eld-balance-value"), format!("51,00{NBSP}€"));
    click(&root, ".eld-popup-ok");
    // The server answers the next purchase with the first, genuine sale.
    backend.state.borrow_mut().replay = true;
    assert_eq!(play_refused(&root, &app).await, Check::ClientNonce);
    let nonces = backend.state.borrow().nonces.clone();
    assert_eq!(nonces.len(), 2);
    assert_ne!(nonces[0], nonces[1], "a fresh nonce per purchase");
    balance_settles(&root, &format!("51,00{NBSP}€")).await;
}

#[wasm_bindgen_test]
async fn a_sale_for_another_player_is_refused() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    {
        let mut state = backend.state.borrow_mut();
        state.keep_balance = true;
        state.tamper = Some(|block: &FixtureBlock, r: &mut SaleResponse| {
            let mut sale = r.sale.sale.clone();
            sale.player = "someone-else".to_owned();
            r.sale = block.sign(sale);
        });
    }
    let (root, app) = mount(&backend, Lang::En);
    ready(&app).await;
    assert_eq!(play_refused(&root, &app).await, Check::Player);
    balance_settles(&root, "€50.00").await;
}

#[wasm_bindgen_test]
async fn a_sale_under_another_commitment_than_the_announced_one_is_an_equivocation() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    {
        let mut state = backend.state.borrow_mut();
        // Block 1 announced with one root, sold from another.
        let announced = FixtureBlock::new(1, 100, &[fixtures::LOSE]);
        state.announced = Some(vec![announced.commitment]);
        state.keep_balance = true;
    }
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert_eq!(play_refused(&root, &app).await, Check::CommitmentSeen);
    let notice = text(&root, ".eld-notice-text");
    assert!(notice.contains("deux engagements différents"), "{notice}");
    balance_settles(&root, &format!("50,00{NBSP}€")).await;
}

#[wasm_bindgen_test]
async fn an_equivocating_announcement_stops_the_purchase_before_it_is_sent() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE, fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::En);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the first ticket", || {
        app.game().ticket().is_some() && app.game().phase() == &Phase::Ready
    })
    .await;
    // Block 1 announced again, with another root.
    let other = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    backend.state.borrow_mut().announced = Some(vec![other.commitment]);
    click(&root, ".eld-play");
    wait_for("the refusal", || app.game().notice().is_some()).await;
    assert_eq!(backend.state.borrow().buy_keys.len(), 1, "nothing bought");
    let notice = text(&root, ".eld-notice-text");
    assert!(
        notice.contains("two different commitments for the same block"),
        "{notice}"
    );
}

#[wasm_bindgen_test]
async fn a_block_announced_only_after_the_purchase_is_refused() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    backend.state.borrow_mut().announced = Some(Vec::new());
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert_eq!(play_refused(&root, &app).await, Check::CommitmentSeen);
    assert_eq!(
        backend.state.borrow().block_lists,
        1,
        "listed before buying"
    );
}

#[wasm_bindgen_test]
async fn a_play_money_ticket_for_a_real_money_player_is_refused() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    backend.state.borrow_mut().money = Money::Real;
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert_eq!(play_refused(&root, &app).await, Check::MoneyKind);
    assert!(query(&root, ".eld-play-money").hidden());
}

#[wasm_bindgen_test]
async fn a_pinned_key_that_differs_stops_the_game_before_any_purchase() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    let other = eldorado_engine::commit::signing_key_from_secret([9; 32]);
    let other_hex = eldorado_engine::commit::public_key_of(&other).to_hex();
    let (root, app) = mount_pinned(&backend, Lang::Fr, Some(&other_hex));
    wait_for("the stop", || {
        text(&root, ".eld-notice-text").contains("ne correspond pas")
    })
    .await;
    assert_eq!(app.game().phase(), &Phase::Loading);
    assert!(query(&root, ".eld-retry").hidden(), "retrying cannot help");
    click(&root, ".eld-play");
    app.press();
    assert!(backend.state.borrow().buy_keys.is_empty(), "nothing bought");
    assert_eq!(backend.state.borrow().block_lists, 0);
}

/// Waits for the game to stop with `says` and checks nothing can be bought.
async fn stopped_before_any_purchase(
    root: &web_sys::HtmlElement,
    app: &eldorado_web::app::App,
    backend: &FakeBackend,
    says: &str,
) {
    wait_for("the stop", || text(root, ".eld-notice-text").contains(says)).await;
    assert_eq!(app.game().phase(), &Phase::Loading);
    assert!(query(root, ".eld-retry").hidden(), "retrying cannot help");
    click(root, ".eld-play");
    app.press();
    assert!(backend.state.borrow().buy_keys.is_empty(), "nothing bought");
    assert_eq!(backend.state.borrow().block_lists, 0);
}

#[wasm_bindgen_test]
async fn a_server_naming_a_witness_of_its_own_stops_the_game() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    // The server announces, and would get cosignatures from, a witness the
    // page's policy does not name.
    backend.state.borrow_mut().config_tamper = Some(|config| {
        config.log.witnesses = vec![fixtures::other_witness_vkey()];
    });
    let (root, app) = mount(&backend, Lang::Fr);
    stopped_before_any_purchase(&root, &app, &backend, "d'autres témoins").await;
}

#[wasm_bindgen_test]
async fn a_page_built_without_a_policy_stops_the_game() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    backend.state.borrow_mut().policy = None;
    let (root, app) = mount(&backend, Lang::En);
    stopped_before_any_purchase(&root, &app, &backend, "does not say which witnesses").await;
}

#[wasm_bindgen_test]
async fn a_beacon_other_than_the_policys_stops_the_game() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    // The policy deals in order; the server announces a beacon of its own.
    backend.state.borrow_mut().config_tamper = Some(|config| {
        config.dealing = Some(eldorado_api::beacon::Dealing {
            beacon_url: "http://beacon.test".to_owned(),
            public_key: "ab".repeat(96),
            genesis_time_ms: 0,
            period_ms: 500,
            lead_ms: 1000,
            demo: true,
        });
    });
    let (root, app) = mount(&backend, Lang::Fr);
    stopped_before_any_purchase(&root, &app, &backend, "balise").await;
}

/// The page's policy and the server name the same beacon: a demo's (any
/// key but a public drand network's) is said to be one; quicknet is not.
#[wasm_bindgen_test]
async fn a_beacon_that_is_not_a_public_network_is_called_a_demo_draw() {
    use eldorado_api::beacon::{
        Dealing, QUICKNET_GENESIS_MS, QUICKNET_PERIOD_MS, QUICKNET_PUBLIC_KEY,
    };
    for (key, genesis, period, demo) in [
        ("ab".repeat(96), 0, 500, true),
        (
            QUICKNET_PUBLIC_KEY.to_owned(),
            QUICKNET_GENESIS_MS,
            QUICKNET_PERIOD_MS,
            false,
        ),
    ] {
        let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
        let mut policy = fixtures::page_policy();
        policy.beacon = Some(eldorado_api::BeaconPin {
            public_key: key.clone(),
            genesis_time_ms: genesis,
            period_ms: period,
        });
        backend.state.borrow_mut().policy = Some(policy);
        backend.state.borrow_mut().dealing = Some(Dealing {
            beacon_url: "http://beacon.test".to_owned(),
            public_key: key,
            genesis_time_ms: genesis,
            period_ms: period,
            lead_ms: 1000,
            demo,
        });
        let (root, app) = mount(&backend, Lang::Fr);
        ready(&app).await;
        let line = text(&root, ".eld-key");
        assert_eq!(line.contains("tirage de démonstration"), demo, "{line}");
    }
}

#[wasm_bindgen_test]
async fn a_pinned_key_that_agrees_is_shown_by_its_fingerprint() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let hex = backend.state.borrow().block.public_key_hex();
    let (root, app) = mount_pinned(&backend, Lang::En, Some(&hex));
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the end", || {
        app.game().ticket().is_some() && app.game().phase() == &Phase::Ready
    })
    .await;
    let line = text(&root, ".eld-key");
    let key = parse_public_key(&hex).unwrap();
    assert!(line.contains(&fingerprint(&key)), "{line}");
    assert!(line.contains("launch address"), "{line}");
    // The build the server serves, by its fingerprint's first digits.
    assert!(line.ends_with(" · page: fb5feaa94ed927ec"), "{line}");
}

#[wasm_bindgen_test]
async fn an_unrevealed_tickets_prize_is_not_in_the_history() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    backend.interrupt_first_ticket(5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    app.load_history();
    wait_for("the history", || {
        root.query_selector(".eld-history-open").unwrap().is_some()
    })
    .await;
    let row = text(&root, ".eld-history-table tbody tr");
    assert!(!row.contains("Gagné") && !row.contains("2,00"), "{row}");
    assert!(row.contains("Résultat caché"), "{row}");
    click(&root, ".eld-history-open");
    wait_for("the detail", || {
        text(&root, ".eld-history-detail").contains("pas encore dévoilé")
    })
    .await;
    assert!(root
        .query_selector(".eld-history-grid canvas")
        .unwrap()
        .is_none());
}

#[wasm_bindgen_test]
async fn a_revealed_ticket_bought_elsewhere_shows_its_result_once_verified() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    {
        let mut state = backend.state.borrow_mut();
        let mut response = state.block.response(0, 1, 5000);
        response.revealed = 1;
        state.sales.push(response);
        state.revealed.insert(1, 1);
        state.next_position = 1;
    }
    let (root, app) = mount(&backend, Lang::En);
    ready(&app).await;
    app.load_history();
    wait_for("the history", || {
        root.query_selector(".eld-history-result")
            .unwrap()
            .is_some()
    })
    .await;
    wait_for("the verified result", || {
        text(&root, ".eld-history-result") == "Won €2.00"
    })
    .await;
    click(&root, ".eld-history-receipt");
    wait_for("the receipt", || {
        !backend.state.borrow().receipts.is_empty()
    })
    .await;
    assert_eq!(backend.state.borrow().receipts, vec![1]);
}

#[wasm_bindgen_test]
async fn a_paytable_unlike_the_rules_is_a_failed_check() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    backend.state.borrow_mut().config_tamper = Some(|config| {
        config.prize_table[0].multiple = 9000;
        config.rtp_basis_points = 9500;
    });
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    let failure = text(&root, ".eld-config-mismatch");
    assert!(failure.contains("Échec de la vérification"), "{failure}");
    assert!(
        failure.contains("table des gains, taux de retour"),
        "{failure}"
    );
    // The failed check opens the rules, whose page then comes.
    rules_shown(&root).await;
    let info = text(&root, ".eld-info-body");
    // The engine's figures, not the server's.
    assert!(info.contains(&format!("70{NBSP}%")), "{info}");
    assert!(!info.contains(&format!("95{NBSP}%")), "{info}");
    assert!(info.contains("14\u{202F}000"), "{info}");
    assert!(!info.contains("18\u{202F}000"), "{info}");
}

#[wasm_bindgen_test]
async fn the_commitments_seen_survive_a_reload() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE, fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::En);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the first ticket", || {
        app.game().ticket().is_some() && app.game().phase() == &Phase::Ready
    })
    .await;
    drop(app);
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    let key = format!(
        "eldorado.commitments.{}",
        backend.state.borrow().block.public_key_hex()
    );
    let saved = storage.get_item(&key).unwrap().expect("the book is saved");

    // After the reload the server announces block 1 with another root.
    let other = FixtureBlock::new(1, 100, &[fixtures::WIN_2]);
    backend.state.borrow_mut().announced = Some(vec![other.commitment]);
    let (root, app) = mount(&backend, Lang::En);
    // `mount` starts from an empty storage; the reloaded browser still has
    // its book (set before the session loads, which is asynchronous).
    storage.set_item(&key, &saved).unwrap();
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the refusal", || app.game().notice().is_some()).await;
    assert_eq!(backend.state.borrow().buy_keys.len(), 1, "nothing bought");
    assert!(text(&root, ".eld-notice-text").contains("two different commitments"));
}
