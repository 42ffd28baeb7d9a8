//! The operator's console (`/operator/`) in Chromium, on the real
//! `eldorado serve` after it sold 300 tickets: sign-in, each page with the
//! figures of those sales, a limit changed, a block closed after its
//! confirmation, sign-out. Its screenshots go to target/e2e/, and to
//! `ELDORADO_SCREENSHOTS_DIR` (docs/ with scripts/screenshots.sh) for
//! docs/OPERATOR.md.
//!
//! Run with `scripts/e2e.sh console`; ignored by a plain `cargo test`.

use eldorado_e2e::browser::{Browser, Screen};
use eldorado_e2e::server::Server;
use eldorado_e2e::{paths, POLL, STEP_TIMEOUT};
use fantoccini::Locator;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Instant;

const PLAYERS: usize = 3;
/// Each demo player's 50 € at 0.50 € a ticket.
const TICKETS_EACH: usize = 100;
const STAKE: u64 = 50;

async fn text_of(browser: &Browser, css: &str) -> String {
    browser
        .script(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';",
            vec![Value::from(css)],
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

async fn attribute(browser: &Browser, css: &str, name: &str) -> String {
    browser
        .script(
            "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
            vec![Value::from(css), Value::from(name)],
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Waits until the page at a path whose `h1` says `title` is shown.
async fn wait_page(browser: &Browser, path: &str, title: &str) {
    let started = Instant::now();
    loop {
        let url = browser.client.current_url().await.expect("the URL");
        if url.path() == path && text_of(browser, "h1").await.contains(title) {
            return;
        }
        if started.elapsed() > STEP_TIMEOUT {
            browser.screenshot("failed-console").await;
            panic!(
                "timed out waiting for {path} « {title} »: at {url}, h1 « {} »",
                text_of(browser, "h1").await
            );
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Waits until the element `css` holds `part` in its text.
async fn wait_text(browser: &Browser, css: &str, part: &str) {
    let started = Instant::now();
    while !text_of(browser, css).await.contains(part) {
        if started.elapsed() > STEP_TIMEOUT {
            browser.screenshot("failed-console").await;
            panic!(
                "timed out waiting for « {part} » in {css}: « {} »",
                text_of(browser, css).await
            );
        }
        tokio::time::sleep(POLL).await;
    }
}

async fn fill(browser: &Browser, css: &str, text: &str) {
    let field = browser
        .client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("find {css}: {e}"));
    field.clear().await.expect("clear the field");
    field.send_keys(text).await.expect("type in the field");
}

fn docs_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("ELDORADO_SCREENSHOTS_DIR")?);
    Some(if dir.is_relative() {
        paths::repo_root().join(dir)
    } else {
        dir
    })
}

async fn shoot(browser: &Browser, name: &str) {
    let path = browser.screenshot(name).await;
    if let Some(dir) = docs_dir() {
        std::fs::create_dir_all(&dir).expect("the screenshots directory");
        std::fs::copy(&path, dir.join(format!("{name}.png"))).expect("copy the screenshot");
    }
}

/// Sells `TICKETS_EACH` tickets to each of `PLAYERS` demo players over the
/// API: their ids, the tickets sold and the prizes paid.
async fn sell(server: &Server) -> (Vec<String>, u64, u64) {
    let (mut ids, mut sold, mut prizes) = (Vec::new(), 0, 0);
    for p in 0..PLAYERS {
        let (status, body) = server
            .api
            .post_raw("/api/demo/players", None, &json!({}))
            .await
            .expect("create a demo player");
        assert!(status.is_success(), "{status}");
        let player: Value = serde_json::from_slice(&body).unwrap();
        let token = player["token"].as_str().unwrap().to_owned();
        ids.push(player["player_id"].as_str().unwrap().to_owned());
        for i in 0..TICKETS_EACH {
            let request =
                json!({"stake_cents": STAKE, "idempotency_key": format!("console-{p}-{i:04}")});
            let (status, body) = server
                .api
                .post_raw("/api/sales", Some(&token), &request)
                .await
                .expect("a sale");
            assert!(
                status.is_success(),
                "{status}: {}",
                String::from_utf8_lossy(&body)
            );
            let sale: Value = serde_json::from_slice(&body).unwrap();
            sold += 1;
            let (before, after) = (
                sale["balance_before_cents"].as_u64().unwrap(),
                sale["balance_after_cents"].as_u64().unwrap(),
            );
            prizes += after + STAKE - before;
        }
    }
    (ids, sold, prizes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end to end in Chromium: run scripts/e2e.sh"]
async fn the_console_runs_a_day_of_the_game() {
    paths::check_web_bundle();
    let flags = vec![
        "--demo".to_owned(),
        "--demo-seed".to_owned(),
        "31".to_owned(),
        "--sales-per-second".to_owned(),
        "1000".to_owned(),
    ];
    let (server, browser) = tokio::join!(
        Server::start_with("console", |_| flags.clone(), &[]),
        Browser::start_on("console", Screen::DESKTOP)
    );
    let (players, sold, prizes) = sell(&server).await;
    let key = std::fs::read_to_string(server.data_dir().join("operator-api.key")).unwrap();
    let base = &server.base;

    // A stranger is sent to the sign-in.
    browser.goto(&format!("{base}/operator/players")).await;
    wait_page(&browser, "/operator/sign-in", "Eldorado").await;
    // French, whatever the browser asks for.
    browser
        .goto(&format!(
            "{base}/operator/lang?to=fr&back=/operator/sign-in"
        ))
        .await;
    wait_text(&browser, "label[for=key]", "Clé").await;
    fill(&browser, "#key", "not the key").await;
    browser.click("form button[type=submit]").await;
    wait_page(&browser, "/operator/sign-in", "Eldorado").await;
    wait_text(&browser, ".alert", "clé").await;
    fill(&browser, "#key", key.trim()).await;
    browser.click("form button[type=submit]").await;
    wait_page(&browser, "/operator/", "Vue d'ensemble").await;
    let cookie = browser
        .client
        .get_named_cookie("eldorado_console")
        .await
        .expect("the session cookie");
    assert_eq!(cookie.http_only(), Some(true));
    assert_eq!(cookie.secure(), Some(true));
    // fantoccini does not re-export the cookie crate's SameSite.
    assert_eq!(format!("{:?}", cookie.same_site()), "Some(Strict)");
    assert!(!cookie.value().contains(key.trim()));
    let script_sees = browser.script("return document.cookie;", vec![]).await;
    assert!(
        !script_sees.as_str().unwrap().contains("eldorado_console="),
        "HttpOnly"
    );

    // The overview: today's figures are those of the sales.
    assert_eq!(
        attribute(&browser, "#today-total [data-tickets]", "data-tickets").await,
        sold.to_string()
    );
    let cells = browser
        .script(
            "return [...document.querySelectorAll('#today-total [data-cents]')].map(e => e.dataset.cents);",
            vec![],
        )
        .await;
    assert_eq!(
        cells,
        json!([(sold * STAKE).to_string(), prizes.to_string()])
    );
    assert_eq!(
        text_of(&browser, "#live-sessions").await,
        PLAYERS.to_string()
    );
    let charts = browser
        .script(
            "return document.querySelectorAll('.charts svg').length;",
            vec![],
        )
        .await;
    assert_eq!(charts, json!(2));
    shoot(&browser, "console-overview").await;

    // Blocks: the 0.50 € block shows its 300 tickets sold; close it.
    browser.goto(&format!("{base}/operator/blocks")).await;
    wait_page(&browser, "/operator/blocks", "Blocs").await;
    let open = server
        .api
        .open_block(STAKE)
        .await
        .commitment
        .commitment
        .block;
    let row = format!("#block-{open}");
    assert_eq!(
        attribute(&browser, &format!("{row} progress"), "value").await,
        sold.to_string()
    );
    shoot(&browser, "console-blocks").await;
    browser.click(&format!("{row} a.danger")).await;
    wait_page(
        &browser,
        &format!("/operator/blocks/{open}/close"),
        "Fermer le bloc",
    )
    .await;
    browser.click("#confirm-close").await;
    wait_page(&browser, "/operator/blocks", "Blocs").await;
    assert_eq!(
        text_of(&browser, &format!("{row} .status")).await.trim(),
        "fermé"
    );
    assert!(matches!(
        server.api.block(open).await.status,
        eldorado_api::BlockStatus::Closed
    ));

    // A player: a first limit at once, a higher one pending for 48 h.
    browser.goto(&format!("{base}/operator/players?q=")).await;
    wait_page(&browser, "/operator/players", "Joueurs").await;
    browser
        .click(&format!("a[href='/operator/players/{}']", players[0]))
        .await;
    let path = format!("/operator/players/{}", players[0]);
    wait_page(&browser, &path, &players[0]).await;
    assert_eq!(text_of(&browser, "#sessions").await, "1");
    fill(&browser, "#weekly_stake", "20").await;
    browser.click("#save-limits").await;
    wait_page(&browser, &path, &players[0]).await;
    let started = Instant::now();
    while !text_of(&browser, "#stake-limit").await.starts_with("20,00") {
        assert!(
            started.elapsed() < STEP_TIMEOUT,
            "{}",
            text_of(&browser, "#stake-limit").await
        );
        tokio::time::sleep(POLL).await;
    }
    fill(&browser, "#weekly_stake", "50").await;
    browser.click("#save-limits").await;
    let started = Instant::now();
    while !text_of(&browser, "#stake-limit .pending")
        .await
        .contains("50,00")
    {
        assert!(
            started.elapsed() < STEP_TIMEOUT,
            "{}",
            text_of(&browser, "#stake-limit").await
        );
        tokio::time::sleep(POLL).await;
    }
    assert!(text_of(&browser, "#stake-limit").await.starts_with("20,00"));
    let rows = browser
        .script(
            "return document.querySelectorAll('#audit-trail tbody tr').length;",
            vec![],
        )
        .await;
    assert_eq!(rows, json!(2));
    shoot(&browser, "console-player").await;

    browser.goto(&format!("{base}/operator/wallet")).await;
    wait_page(&browser, "/operator/wallet", "Portefeuille").await;
    assert!(!text_of(&browser, "#no-wallet").await.is_empty());

    // Signing out ends the session.
    browser.click("form.sign-out button").await;
    wait_page(&browser, "/operator/sign-in", "Eldorado").await;
    browser.goto(&format!("{base}/operator/")).await;
    wait_page(&browser, "/operator/sign-in", "Eldorado").await;
    browser.close().await;
}
