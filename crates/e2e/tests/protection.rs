//! Player protection end to end (issue 12): limits and a self-exclusion set
//! from the page's « Limites de jeu » panel, enforced by the real
//! `eldorado serve` in the sale, and shown by the page in Chromium.
//!
//! Run with `scripts/e2e.sh protection`; ignored by a plain `cargo test`.

use eldorado_e2e::browser::{Browser, PageState};
use eldorado_e2e::expect::{money, Lang};
use eldorado_e2e::paths;
use eldorado_e2e::server::Server;
use eldorado_e2e::{POLL, STEP_TIMEOUT};
use serde_json::Value;
use std::time::Instant;

const SEED: u64 = 15;
const DEMO_TOKEN_KEY: &str = "eldorado.demo_token";
const PLAY: &str = "#eldorado > .eld-controls > .eld-play";
const HISTORY_SUMMARY: &str = "#eldorado > .eld-history > summary";

/// Text of the first element matching `css`, or null when there is none.
async fn text_of(browser: &Browser, css: &str) -> Value {
    browser
        .script(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
            vec![Value::from(css)],
        )
        .await
}

/// Polls the server's session until `ready` holds for it; on a timeout,
/// says what the panel and the page show.
async fn wait_session(
    server: &Server,
    browser: &Browser,
    token: &str,
    what: &str,
    ready: impl Fn(&eldorado_api::Session) -> bool,
) -> eldorado_api::Session {
    let started = Instant::now();
    loop {
        let session = server.api.session(token).await;
        if ready(&session) {
            return session;
        }
        if started.elapsed() > STEP_TIMEOUT {
            browser.screenshot("failed-protection-session").await;
            let message = text_of(browser, "#eldorado .eld-limits-message").await;
            panic!(
                "timed out waiting for {what}: {:?}\npanel message: {message}\npage: {:#?}",
                session.protection,
                browser.state().await
            );
        }
        tokio::time::sleep(POLL).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end to end in Chromium: run scripts/e2e.sh"]
async fn protection_limits_and_self_exclusion_from_the_page() {
    paths::check_web_bundle();
    let (server, browser) = tokio::join!(
        Server::start(SEED, "protection"),
        Browser::start("protection")
    );
    browser.open_game(&server.base).await;
    let token = browser
        .local_storage(DEMO_TOKEN_KEY)
        .await
        .expect("the page keeps its demo session");

    // The notices.
    assert_eq!(
        text_of(&browser, "#eldorado .eld-adults-text").await,
        "Interdit aux mineurs"
    );
    let warning = text_of(&browser, "#eldorado .eld-responsible").await;
    assert!(
        warning
            .as_str()
            .is_some_and(|w| w.starts_with("Jouer comporte des risques : ")
                && w.ends_with("Appelez le 09 74 75 13 13 (appel non surtaxé).")),
        "{warning}"
    );
    assert_eq!(
        text_of(&browser, "#eldorado .eld-play-money").await,
        "Argent fictif"
    );

    // A weekly stake limit of 1,50 €, typed in euros in the panel.
    browser.click("#eldorado .eld-limits-open").await;
    browser
        .script(
            "document.querySelector('#eld-stake-limit').value = '1,50';",
            Vec::new(),
        )
        .await;
    browser.click("#eldorado .eld-limits-save").await;
    wait_session(&server, &browser, &token, "the stake limit", |s| {
        s.protection.weekly_stake_limit_cents == Some(150)
    })
    .await;
    browser.screenshot("protection-panel").await;
    // The panel is a modal dialog: closed before playing.
    browser.click("#eldorado .eld-limits-close").await;

    // One 1 € ticket fits; the next would stake 2 € in the week.
    browser.click(PLAY).await;
    wait_session(&server, &browser, &token, "the first sale", |s| {
        s.protection.stake_used_cents == 100
    })
    .await;
    browser.wait("« Jouer »", PageState::ready_to_play).await;
    let before = server.api.session(&token).await.balance_cents;
    browser.click(PLAY).await;
    let state = browser.wait("the limit refusal", |s| s.told()).await;
    let notice = state.notice.expect("a notice");
    assert_eq!(notice.kind, "protection", "{}", notice.text);
    assert!(
        notice.text.contains(&money(150, Lang::Fr)) && notice.text.contains(&money(100, Lang::Fr)),
        "the limit and the amount used: {}",
        notice.text
    );
    assert!(
        notice.text.contains("de nouveau possible le "),
        "{}",
        notice.text
    );
    let after = server.api.session(&token).await;
    assert_eq!(after.balance_cents, before, "nothing sold");
    assert_eq!(after.protection.stake_used_cents, 100);
    let state = browser
        .wait("the balance read again", |s| {
            s.balance.as_deref() == Some(money(before, Lang::Fr).as_str())
        })
        .await;
    assert!(state.play_enabled, "a limit bars only what exceeds it");
    browser.screenshot("protection-limit-reached").await;

    // Self-exclusion: the panel, « 24 heures », which says until when and
    // that it is final, then its confirmation.
    browser.click("#eldorado .eld-limits-open").await;
    browser
        .click("#eldorado .eld-exclude[data-days=\"1\"]")
        .await;
    let preview = text_of(&browser, "#eldorado .eld-exclusion-confirm-text").await;
    assert!(
        preview
            .as_str()
            .is_some_and(|p| p.contains("jusqu'au ") && p.contains("ni annulée ni raccourcie")),
        "{preview}"
    );
    browser.screenshot("protection-exclusion-confirm").await;
    browser.click("#eldorado .eld-exclude-confirm").await;
    let session = wait_session(&server, &browser, &token, "the exclusion", |s| {
        s.protection.excluded_until_ms.is_some()
    })
    .await;
    let until = session.protection.excluded_until_ms.unwrap();
    let day = 24 * 3600 * 1000;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert!(until > now + day - 60_000 && until <= now + day, "24 hours");
    browser.wait("play barred", |s| !s.play_enabled).await;

    // Reloaded: still barred, saying until when; the history still opens.
    browser.refresh().await;
    browser
        .wait("the game to load again", |s| s.balance.is_some())
        .await;
    let state = browser.wait("play barred", |s| !s.play_enabled).await;
    assert_eq!(state.play.as_deref(), Some("Jouer"));
    let status = text_of(&browser, "#eldorado .eld-guard-status").await;
    assert!(
        status
            .as_str()
            .is_some_and(|s| s.starts_with("Vous êtes exclu du jeu jusqu'au ")),
        "{status}"
    );
    browser.screenshot("protection-excluded").await;
    browser.click(PLAY).await;
    let history = server.api.history(&token, 20).await;
    assert_eq!(history.len(), 1, "no sale while excluded");

    browser.click(HISTORY_SUMMARY).await;
    let state = browser
        .wait("the history", |s| {
            s.history_rows.first().is_some_and(|r| r.sale.is_some())
        })
        .await;
    let sale = state.history_rows[0].sale.unwrap();
    browser
        .click(&format!(
            "#eldorado .eld-history-open[data-sale=\"{sale}\"]"
        ))
        .await;
    let state = browser
        .wait("the past ticket", |s| {
            s.history_detail.verified.is_some() && !s.history_detail.grids.is_empty()
        })
        .await;
    assert_eq!(state.history_detail.verified.as_deref(), Some("✓ Vérifié"));
    assert_eq!(state.history_detail.error, None);
    browser.screenshot("protection-history").await;
    browser.close().await;
}
