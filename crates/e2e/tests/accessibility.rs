//! axe-core over the real page in Chromium, in the states a player meets:
//! loaded, a ticket revealed, the history open, the rules open, « Limites
//! de jeu » open with a self-exclusion waiting for its confirmation. No
//! violation of any impact in any of them.
//!
//! Run with `scripts/e2e.sh accessibility`; ignored by a plain `cargo test`.

use eldorado_e2e::browser::Browser;
use eldorado_e2e::paths;
use eldorado_e2e::server::Server;
use serde_json::Value;

const SEED: u64 = 15;
const MAX_PLAYS: usize = 40;
const PLAY: &str = "#eldorado > .eld-controls > .eld-play";
const HISTORY_SUMMARY: &str = "#eldorado > .eld-history > summary";

/// Runs axe-core on the whole document; returns its violations of every
/// impact, one line each (rule, impact, first offending element).
async fn violations(browser: &Browser) -> Vec<String> {
    let axe = std::fs::read_to_string(paths::axe_script()).expect("axe-core's script");
    browser.script(&axe, Vec::new()).await;
    let result = browser
        .script(
            // Measured as players see the state once its animations (the
            // result window fading in) have ended, not halfway through.
            "return Promise.all(document.getAnimations().map(a => a.finished.catch(() => null))) \
               .then(() => axe.run(document, { resultTypes: ['violations'] })).then(r => \
               r.violations.map(v => v.id + ' (' + v.impact + '): ' + v.nodes.length + ' × ' \
                      + v.nodes[0].html.slice(0, 160)));",
            Vec::new(),
        )
        .await;
    match result {
        Value::Array(items) => items
            .into_iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect(),
        other => panic!("axe answered {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end to end in Chromium: run scripts/e2e.sh"]
async fn no_accessibility_violation_in_any_state() {
    paths::check_web_bundle();
    let (server, browser) = tokio::join!(
        Server::start(SEED, "accessibility"),
        Browser::start("accessibility")
    );
    browser.open_game(&server.base).await;
    let mut found = Vec::new();
    let mut check = |state: &str, violations: Vec<String>| {
        for v in violations {
            found.push(format!("{state}: {v}"));
        }
    };
    check("loaded", violations(&browser).await);

    // Tickets until a win is shown and an Extra waits (seed 15 has both
    // within its first tickets, as the game's own test knows).
    let (mut win, mut extra) = (false, false);
    for _ in 0..MAX_PLAYS {
        let state = browser
            .wait("« Jouer » or « Extra »", |s| {
                s.ready_to_play() || s.awaiting_extra()
            })
            .await;
        if state.awaiting_extra() && !extra {
            check("an Extra waiting", violations(&browser).await);
            extra = true;
        }
        if state.popup.as_ref().is_some_and(|p| p.kind == "win") && !win {
            check("a win shown", violations(&browser).await);
            win = true;
        }
        if win && extra {
            break;
        }
        browser.click(PLAY).await;
        browser
            .wait("the grid turning", |s| s.revealing() || s.told())
            .await;
    }
    assert!(
        win && extra,
        "seed {SEED}: no win or no Extra in {MAX_PLAYS} tickets"
    );
    // The ticket's remaining Extras, to its end.
    while browser
        .wait("« Jouer » or « Extra »", |s| {
            s.ready_to_play() || s.awaiting_extra()
        })
        .await
        .awaiting_extra()
    {
        browser.click(PLAY).await;
        browser
            .wait("the Extra grid turning", |s| s.revealing())
            .await;
    }

    browser.click(HISTORY_SUMMARY).await;
    let state = browser
        .wait("the history", |s| {
            s.history_rows.first().is_some_and(|r| r.sale.is_some())
        })
        .await;
    check("the history open", violations(&browser).await);
    let sale = state.history_rows[0].sale.expect("a sale");
    browser
        .click(&format!(
            "#eldorado .eld-history-open[data-sale=\"{sale}\"]"
        ))
        .await;
    browser
        .wait("the past ticket", |s| s.history_detail.title.is_some())
        .await;
    check("a past ticket open", violations(&browser).await);

    browser.click("#eldorado .eld-help").await;
    browser.settle().await;
    check("the rules open", violations(&browser).await);
    browser.click("#eldorado .eld-info-close").await;

    browser.click("#eldorado .eld-limits-open").await;
    browser
        .click("#eldorado .eld-exclude[data-days=\"7\"]")
        .await;
    check("a self-exclusion to confirm", violations(&browser).await);
    browser.click("#eldorado .eld-exclude-cancel").await;
    browser.click("#eldorado .eld-limits-close").await;

    // The check finds what it looks for: a button without a name, added
    // here, is reported.
    browser
        .script(
            "document.body.insertAdjacentHTML('beforeend', '<button id=\"nameless\"></button>');",
            Vec::new(),
        )
        .await;
    let planted = violations(&browser).await;
    assert!(
        planted.iter().any(|v| v.starts_with("button-name")),
        "{planted:?}"
    );

    assert!(found.is_empty(), "axe-core:\n{}", found.join("\n"));
    browser.close().await;
}
