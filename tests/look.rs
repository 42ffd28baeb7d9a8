//! Browser tests of the board's feel: uncovering columns by hand (tap,
//! drag, keyboard), the remembered Turbo choice, the amounts on winning
//! lines. Run like tests/browser.rs:
//! `wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver -- --test look`.

mod support;

use eldorado_web::app::App;
use eldorado_web::fixtures;
use eldorado_web::game::Phase;
use eldorado_web::i18n::Lang;
use eldorado_web::launch::Launch;
use eldorado_web::layout::BoardLayout;
use eldorado_web::reveal::Timing;
use eldorado_web::symbols::{COVER, TILES};
use std::rc::Rc;
use support::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Column 0 shows at once; every other column would wait 100 s on its own:
/// whatever shows sooner was uncovered by hand.
const BY_HAND_ONLY: Timing = Timing {
    column_ms: 0.0,
    stagger_ms: 100_000.0,
};

fn rgb(colour: &str) -> [i32; 3] {
    let v = i32::from_str_radix(&colour[1..], 16).unwrap();
    [v >> 16, (v >> 8) & 0xff, v & 0xff]
}

/// Which face a cell shows: the index in `TILES` of the nearest tile
/// colour, or `TILES.len()` for the cover (sampled in the lower left,
/// clear of every symbol's drawing, of the cover's sun and bevel and of
/// the rims, where the cover's gradient passes through `COVER`).
fn face_at(canvas: &web_sys::HtmlCanvasElement, row: usize, col: usize) -> usize {
    let layout = BoardLayout::new(canvas.width(), canvas.height());
    let cell = layout.cell_rect(row, col);
    let ctx = eldorado_web::board::context_2d(canvas).unwrap();
    let data = ctx
        .get_image_data(
            (cell.x + cell.w * 0.12).round(),
            (cell.y + cell.h * 0.88).round(),
            1.0,
            1.0,
        )
        .unwrap()
        .data();
    let at = [i32::from(data[0]), i32::from(data[1]), i32::from(data[2])];
    let distance = |c: &str| {
        let c = rgb(c);
        (0..3).map(|i| (c[i] - at[i]).pow(2)).sum::<i32>()
    };
    TILES
        .iter()
        .chain([&COVER])
        .enumerate()
        .min_by_key(|(_, c)| distance(c))
        .map(|(i, _)| i)
        .unwrap()
}

fn covered(canvas: &web_sys::HtmlCanvasElement, row: usize, col: usize) -> bool {
    face_at(canvas, row, col) == TILES.len()
}

async fn revealing_by_hand(backend: &FakeBackend) -> (web_sys::HtmlElement, App) {
    let (root, app) = mount(backend, Lang::Fr);
    app.set_timing(BY_HAND_ONLY);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the reveal", || {
        matches!(app.game().phase(), Phase::Revealing { .. })
    })
    .await;
    (root, app)
}

fn canvas_of(root: &web_sys::HtmlElement) -> web_sys::HtmlCanvasElement {
    query(root, "canvas").dyn_into().unwrap()
}

fn pointer(root: &web_sys::HtmlElement, kind: &str, col: usize, buttons: u16) {
    let canvas = canvas_of(root);
    let layout = BoardLayout::new(canvas.width(), canvas.height());
    let box_ = canvas.get_bounding_client_rect();
    let scale = box_.width() / f64::from(canvas.width());
    let cell = layout.cell_rect(1, col);
    let init = web_sys::PointerEventInit::new();
    init.set_bubbles(true);
    init.set_client_x(((cell.x + cell.w / 2.0) * scale + box_.left()).round() as i32);
    init.set_client_y(((cell.y + cell.h / 2.0) * scale + box_.top()).round() as i32);
    init.set_buttons(buttons);
    let event = web_sys::PointerEvent::new_with_event_init_dict(kind, &init).unwrap();
    canvas.dispatch_event(&event).unwrap();
}

#[wasm_bindgen_test]
async fn a_tap_uncovers_that_column_and_no_other() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let (root, app) = revealing_by_hand(&backend).await;
    let canvas = canvas_of(&root);
    wait_for("column 0, on its own", || !covered(&canvas, 0, 0)).await;
    assert!(covered(&canvas, 0, 3) && covered(&canvas, 0, 4));

    pointer(&root, "pointerdown", 3, 1);
    wait_for("the tapped column", || !covered(&canvas, 2, 3)).await;
    let grid: eldorado_engine::Grid = fixtures::LOSE[0].parse().unwrap();
    for row in 0..3 {
        assert_eq!(face_at(&canvas, row, 3), grid.cell(row, 3).index());
    }
    assert!(covered(&canvas, 0, 1) && covered(&canvas, 0, 2) && covered(&canvas, 0, 4));
    assert!(app.is_revealing(), "the other columns still wait");

    // A drag across the rest uncovers them all, and the reveal ends.
    for col in [1, 2, 4] {
        pointer(&root, "pointermove", col, 1);
    }
    wait_for("the end", || app.game().phase() == &Phase::Ready).await;
    for col in 0..5 {
        assert!(!covered(&canvas, 1, col), "column {col}");
    }
}

#[wasm_bindgen_test]
async fn a_hover_without_a_button_uncovers_nothing() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let (root, app) = revealing_by_hand(&backend).await;
    let canvas = canvas_of(&root);
    wait_for("column 0, on its own", || !covered(&canvas, 0, 0)).await;
    pointer(&root, "pointermove", 2, 0);
    // Column 3 tapped after the hover: once it shows, a frame after the
    // hover has been drawn, and column 2 must still be covered.
    pointer(&root, "pointerdown", 3, 1);
    wait_for("the tapped column", || !covered(&canvas, 0, 3)).await;
    assert!(covered(&canvas, 0, 2));
    assert!(app.is_revealing());
}

#[wasm_bindgen_test]
async fn the_keyboard_uncovers_the_next_column() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    let (root, app) = revealing_by_hand(&backend).await;
    let canvas = canvas_of(&root);
    let board = query(&root, ".eld-board");
    assert_eq!(board.get_attribute("tabindex").as_deref(), Some("0"));
    board.focus().unwrap();
    let key = |k: &str| {
        let init = web_sys::KeyboardEventInit::new();
        init.set_key(k);
        init.set_bubbles(true);
        init.set_cancelable(true);
        let event =
            web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
        board.dispatch_event(&event).unwrap();
        event.default_prevented()
    };
    assert!(
        key("ArrowRight"),
        "the arrow is the board's, not the page's"
    );
    wait_for("column 1", || !covered(&canvas, 0, 1)).await;
    assert!(covered(&canvas, 0, 2));
    assert!(key(" "), "Space uncovers, it does not end the reveal");
    wait_for("column 2", || !covered(&canvas, 0, 2)).await;
    assert!(covered(&canvas, 0, 3));
    assert!(
        matches!(app.game().phase(), Phase::Revealing { .. }),
        "Space on the board is not « Tout montrer »"
    );
    key("ArrowDown");
    key("ArrowRight");
    wait_for("the end", || app.game().phase() == &Phase::Ready).await;
}

fn mount_kept(backend: &FakeBackend) -> (web_sys::HtmlElement, App) {
    // Unlike `mount`, keeps what the page stored before.
    let doc = web_sys::window().unwrap().document().unwrap();
    let div: web_sys::HtmlElement = doc.create_element("div").unwrap().dyn_into().unwrap();
    doc.body().unwrap().append_child(&div).unwrap();
    let launch = Launch {
        code: None,
        lang: Lang::En,
        key: None,
    };
    let app = App::mount(&div, launch, Rc::new(backend.clone())).expect("mounts");
    (div, app)
}

#[wasm_bindgen_test]
async fn turbo_is_remembered() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    let turbo = query(&root, ".eld-turbo");
    assert_eq!(turbo.text_content().as_deref(), Some("Turbo"));
    assert_eq!(
        turbo.get_attribute("aria-pressed").as_deref(),
        Some("false")
    );
    turbo.click();
    assert_eq!(turbo.get_attribute("aria-pressed").as_deref(), Some("true"));
    drop(app);

    let (again, app) = mount_kept(&backend);
    ready(&app).await;
    assert_eq!(
        query(&again, ".eld-turbo")
            .get_attribute("aria-pressed")
            .as_deref(),
        Some("true"),
        "a new visit keeps Turbo on"
    );
    query(&again, ".eld-turbo").click();
    drop(app);
    let (third, app) = mount_kept(&backend);
    ready(&app).await;
    assert_eq!(
        query(&third, ".eld-turbo")
            .get_attribute("aria-pressed")
            .as_deref(),
        Some("false")
    );
}

#[wasm_bindgen_test]
async fn a_winning_line_carries_its_amount() {
    style_page();
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the end", || app.game().phase() == &Phase::Ready).await;
    let canvas = canvas_of(&root);
    let layout = BoardLayout::new(canvas.width(), canvas.height());
    // The gold plate sits in the rail beside the top (winning) line; the
    // other lines' slots stay empty; the line's last symbol is not covered
    // (where the plates used to sit, over its lower part).
    let ctx = eldorado_web::board::context_2d(&canvas).unwrap();
    let pale_gold = |x: f64, y: f64| {
        let data = ctx
            .get_image_data(x.round(), y.round(), 1.0, 1.0)
            .unwrap()
            .data();
        // Strong red and green, little blue.
        data[0] > 200 && data[1] > 150 && data[2] < 140
    };
    let plate = |row: usize| {
        let r = layout.plate_rect(row);
        // Inside the plate's rounded left end, clear of its text.
        pale_gold(r.x + r.h * 0.5, r.y + r.h * 0.5)
    };
    assert!(plate(0), "the winning line's plate");
    assert!(
        !plate(1) && !plate(2),
        "no plate on a line that won nothing"
    );
    let last = layout.cell_rect(0, 4);
    assert!(
        !pale_gold(last.x + last.w * 0.5, last.y + last.h * 0.93),
        "no plate over the line's last symbol"
    );
    // The result window overlays the grid, inside the board: it pushes
    // nothing down.
    let popup = query(&root, ".eld-popup").get_bounding_client_rect();
    let grid = canvas.get_bounding_client_rect();
    let board = query(&root, ".eld-board").get_bounding_client_rect();
    assert!(
        popup.top() < grid.bottom() && popup.bottom() <= board.bottom() + 1.0,
        "the window {}–{} is not over the grid {}–{}",
        popup.top(),
        popup.bottom(),
        grid.top(),
        grid.bottom()
    );
}

#[wasm_bindgen_test]
async fn help_opens_the_paytable_with_the_symbol_pictures() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    let info = query(&root, ".eld-info");
    assert!(!info.has_attribute("open"));
    let help = query(&root, ".eld-help");
    assert_eq!(
        help.get_attribute("aria-label").as_deref(),
        Some("Aide : règles et gains")
    );
    assert!(
        backend.state.borrow().rules_requests.is_empty(),
        "the rules' page is not part of the first download"
    );
    help.click();
    assert!(info.has_attribute("open"), "« ? » opens the rules");
    rules_shown(&root).await;
    let rows = root.query_selector_all(".eld-combos tr").unwrap();
    let mut pictures = 0;
    for i in 1..rows.length() {
        let row: web_sys::Element = rows.get(i).unwrap().dyn_into().unwrap();
        let picture: web_sys::HtmlCanvasElement = row
            .query_selector("canvas.eld-sym")
            .unwrap()
            .unwrap_or_else(|| panic!("row {i} has its picture"))
            .dyn_into()
            .unwrap();
        assert_eq!(
            picture.get_attribute("aria-hidden").as_deref(),
            Some("true")
        );
        // The picture is the symbol the row names: its tile colour.
        let text = row.text_content().unwrap_or_default();
        let symbol = eldorado_engine::Symbol::ALL
            .into_iter()
            .find(|s| {
                *s != eldorado_engine::Symbol::Chance && text.contains(Lang::Fr.symbol_name(*s))
            })
            .unwrap_or_else(|| panic!("a symbol named in {text}"));
        let ctx = eldorado_web::board::context_2d(&picture).unwrap();
        let side = f64::from(picture.width());
        let data = ctx
            .get_image_data(side * 0.12, side * 0.88, 1.0, 1.0)
            .unwrap()
            .data();
        let at = [i32::from(data[0]), i32::from(data[1]), i32::from(data[2])];
        let nearest = TILES
            .iter()
            .enumerate()
            .min_by_key(|(_, c)| {
                let c = rgb(c);
                (0..3).map(|k| (c[k] - at[k]).pow(2)).sum::<i32>()
            })
            .map(|(k, _)| k);
        assert_eq!(nearest, Some(symbol.index()), "{text}");
        pictures += 1;
    }
    assert!(pictures >= 15, "{pictures}");
}

/// The platform's own way to close a dialog as Escape does (a `cancel`,
/// then `close`): a key event a test dispatches is not trusted, and the
/// browser does not close a dialog on it.
fn request_close(dialog: &web_sys::HtmlElement) {
    let request: js_sys::Function = js_sys::Reflect::get(dialog, &"requestClose".into())
        .unwrap()
        .dyn_into()
        .unwrap();
    request.call0(dialog).unwrap();
}

#[wasm_bindgen_test]
async fn the_rules_are_a_modal_dialog_opened_at_their_top() {
    style_page();
    // A dialog another test left open would make this game inert.
    let doc = web_sys::window().unwrap().document().unwrap();
    let open = doc.query_selector_all("dialog[open]").unwrap();
    for i in 0..open.length() {
        open.get(i)
            .unwrap()
            .unchecked_into::<web_sys::HtmlDialogElement>()
            .close();
    }
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    let info = query(&root, ".eld-info");
    let help = query(&root, ".eld-help");
    help.focus().unwrap();
    help.click();
    rules_shown(&root).await;
    assert!(
        info.matches(":modal").unwrap(),
        "a modal dialog: the game behind is inert"
    );
    let focused = || {
        web_sys::window()
            .unwrap()
            .document()
            .unwrap()
            .active_element()
            .unwrap()
    };
    assert!(info.contains(Some(&focused())), "the focus is inside");
    assert_eq!(info.scroll_top(), 0, "« ? » opens the rules at their top");
    assert!(
        info.scroll_height() > info.client_height(),
        "the page scrolls inside the dialog"
    );

    // Keys inside the dialog never play.
    let init = web_sys::KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_bubbles(true);
    let enter =
        web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    focused().dispatch_event(&enter).unwrap();
    assert_eq!(app.game().phase(), &Phase::Ready);
    assert!(backend.state.borrow().sales.is_empty());

    // Escape closes it, and the focus goes back to « ? ».
    info.set_scroll_top(400);
    request_close(&info);
    wait_for("the focus back on « ? »", || {
        focused().is_same_node(Some(&help))
    })
    .await;
    assert!(!info.has_attribute("open"));

    // Opened again, by its own button: at the top again, whatever was
    // scrolled; closed by « Fermer », the focus goes back to that button.
    let open = query(&root, ".eld-rules-open");
    open.focus().unwrap();
    open.click();
    assert_eq!(info.scroll_top(), 0);
    assert!(info.contains(Some(&focused())));
    click(&root, ".eld-info-close");
    wait_for("the focus back on the rules' button", || {
        focused().is_same_node(Some(&open))
    })
    .await;
    assert_eq!(backend.state.borrow().rules_requests.len(), 1);
}

#[wasm_bindgen_test]
async fn the_rules_page_comes_once_when_first_opened_and_again_after_a_failure() {
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    backend.state.borrow_mut().rules_fail = true;
    let (root, app) = mount(&backend, Lang::En);
    ready(&app).await;
    assert!(backend.state.borrow().rules_requests.is_empty());

    let open = query(&root, ".eld-rules-open");
    let close = query(&root, ".eld-info-close");
    open.click();
    wait_for("the failure", || {
        text(&root, ".eld-info-body").contains("The rules could not be loaded")
    })
    .await;
    assert!(root.query_selector(".eld-combos").unwrap().is_none());

    // Closed and opened again: asked again, shown this time.
    close.click();
    open.click();
    rules_shown(&root).await;
    assert_eq!(
        backend.state.borrow().rules_requests,
        vec![Lang::En, Lang::En]
    );
    let info = text(&root, ".eld-info-body");
    assert!(info.contains("Prizes per block of tickets"), "{info}");
    assert!(!info.contains("could not be loaded"), "{info}");
    assert!(
        root.query_selector("canvas[data-symbol]")
            .unwrap()
            .is_none(),
        "every symbol drawn"
    );

    // Shown from now on: never asked for again, by « ? » or by the
    // rules' own button.
    let info = query(&root, ".eld-info");
    close.click();
    assert!(!info.has_attribute("open"));
    query(&root, ".eld-help").click();
    assert!(info.has_attribute("open"));
    close.click();
    open.click();
    assert!(info.has_attribute("open"));
    assert_eq!(backend.state.borrow().rules_requests.len(), 2);
    assert_eq!(root.query_selector_all(".eld-combos").unwrap().length(), 1);
}

#[wasm_bindgen_test]
async fn the_last_win_shows_once_the_reveal_has_ended() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2, fixtures::LOSE], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    assert_eq!(
        text(&root, ".eld-last-win .eld-balance-label"),
        "Dernier gain"
    );
    assert_eq!(text(&root, ".eld-last-win-value"), "–");
    app.set_timing(Timing::NORMAL);
    click(&root, ".eld-play");
    wait_for("the reveal", || {
        matches!(app.game().phase(), Phase::Revealing { .. })
    })
    .await;
    assert_eq!(
        text(&root, ".eld-last-win-value"),
        "–",
        "not before the end"
    );
    assert_eq!(
        query(&root, ".eld-board")
            .get_attribute("data-celebrate")
            .as_deref(),
        Some("")
    );
    click(&root, ".eld-play"); // « Tout montrer »
    assert_ne!(
        text(&root, ".eld-last-win-value"),
        "2,00\u{A0}€",
        "counted up on the next frames, not set at once"
    );
    wait_for("the count to land on the prize", || {
        text(&root, ".eld-last-win-value") == "2,00\u{A0}€"
    })
    .await;
    assert_eq!(
        query(&root, ".eld-board")
            .get_attribute("data-celebrate")
            .as_deref(),
        Some("small"),
        "2 stakes: the small celebration"
    );
    // A loss afterwards keeps the last prize and celebrates nothing.
    app.set_timing(Timing::REDUCED);
    click(&root, ".eld-popup-ok");
    click(&root, ".eld-play");
    wait_for("the second ticket", || {
        app.game().ticket().is_some_and(|t| t.sale_id == 2)
    })
    .await;
    wait_for("its end", || app.game().phase() == &Phase::Ready).await;
    assert_eq!(text(&root, ".eld-last-win-value"), "2,00\u{A0}€");
    assert_eq!(
        query(&root, ".eld-board")
            .get_attribute("data-celebrate")
            .as_deref(),
        Some("")
    );
}

#[wasm_bindgen_test]
async fn the_celebration_grows_with_the_prizes_rank() {
    style_page();
    let backend = FakeBackend::new(
        100,
        &[
            fixtures::WIN_2,
            fixtures::WIN_10,
            fixtures::WIN_50,
            fixtures::WIN_7000,
        ],
        5000,
    );
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    let board = query(&root, ".eld-board");
    let popup = query(&root, ".eld-popup");
    let window = web_sys::window().unwrap();
    let coins = || {
        window
            .get_computed_style_with_pseudo_elt(&popup, "::before")
            .unwrap()
            .unwrap()
            .get_property_value("background-image")
            .unwrap()
    };
    for (sale, celebration, prize) in [
        (1, "small", 200),
        (2, "medium", 1_000),
        (3, "big", 5_000),
        (4, "top", 700_000),
    ] {
        click(&root, ".eld-play");
        wait_for("the win", || {
            app.game().ticket().is_some_and(|t| t.sale_id == sale)
                && app.game().popup() == Some(eldorado_web::game::Popup::Win(prize))
        })
        .await;
        assert_eq!(
            board.get_attribute("data-celebrate").as_deref(),
            Some(celebration),
            "sale {sale}"
        );
        // Gold coins from rank 5 up.
        assert_eq!(
            coins().contains("radial-gradient"),
            celebration == "big" || celebration == "top",
            "sale {sale}: {}",
            coins()
        );
        let shown = popup.get_bounding_client_rect();
        // The top ranks' window is the whole viewport, the others stay
        // over the board.
        let viewport = window.document().unwrap().document_element().unwrap();
        let over_the_screen = shown.left() == 0.0
            && shown.top() == 0.0
            && shown.width() == f64::from(viewport.client_width())
            && shown.height() == f64::from(viewport.client_height());
        assert_eq!(
            over_the_screen,
            celebration == "top",
            "sale {sale}: the window at {:?}",
            [shown.left(), shown.top(), shown.width(), shown.height()]
        );
        click(&root, ".eld-popup-ok");
    }
}

/// The top ranks' celebration on a page as wide as the window, from a
/// fixture ticket: the README's shot of it is taken from this test
/// (crates/e2e/tests/screenshots.rs opens it with `?keep`, and the game
/// then stays on screen), never from a server made to deal a chosen ticket.
#[wasm_bindgen_test]
async fn a_top_rank_win_takes_the_whole_screen() {
    style_page();
    // As index.html: a phone lays the page out at its own width.
    let doc = web_sys::window().unwrap().document().unwrap();
    if doc.query_selector("meta[name=viewport]").unwrap().is_none() {
        let meta = doc.create_element("meta").unwrap();
        meta.set_attribute("name", "viewport").unwrap();
        meta.set_attribute("content", "width=device-width, initial-scale=1")
            .unwrap();
        doc.query_selector("head")
            .unwrap()
            .unwrap()
            .append_child(&meta)
            .unwrap();
    }
    let backend = FakeBackend::new(200, &[fixtures::WIN_7000], 5000);
    let root = host();
    root.style().remove_property("width").unwrap();
    let app = mount_in(&root, &backend, Lang::Fr, None);
    ready(&app).await;
    click(&root, ".eld-stake[data-stake=\"200\"]");
    click(&root, ".eld-play");
    wait_for("the top prize", || {
        app.game().popup() == Some(eldorado_web::game::Popup::Win(1_400_000))
    })
    .await;
    let window = web_sys::window().unwrap();
    let viewport = window.document().unwrap().document_element().unwrap();
    let shown = query(&root, ".eld-popup").get_bounding_client_rect();
    let whole = [
        0.0,
        0.0,
        f64::from(viewport.client_width()),
        f64::from(viewport.client_height()),
    ];
    let at = [shown.left(), shown.top(), shown.width(), shown.height()];
    assert!(
        at.iter().zip(whole).all(|(a, b)| (a - b).abs() <= 1.0),
        "the window at {at:?}, the viewport {whole:?}"
    );
    assert_eq!(
        text(&root, ".eld-popup-text"),
        "Vous gagnez 14\u{202F}000,00\u{A0}€"
    );
    if window.location().search().unwrap_or_default() == "?keep" {
        // Left on screen for the shot, alone (the runner's report would
        // widen a phone's page); the page is thrown away after it.
        if let Some(report) = doc.get_element_by_id("output") {
            report.set_attribute("hidden", "").unwrap();
        }
        std::mem::forget(app);
    } else {
        drop(app);
        root.remove();
    }
}
