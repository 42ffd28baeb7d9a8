//! The README's screenshots (issue 13), taken by the end-to-end run: the
//! real server on a seeded block, the real page, played as a player plays,
//! on a desktop and on a phone. Each shot is taken only once the page shows
//! what the README says it shows, checked against the tickets the test
//! knows in advance: a big win, a ticket with Extras, the history with a
//! past ticket opened in place, and the rules scrolled to the paytable;
//! and the top ranks' celebration, from the page's own browser test.
//!
//! The shots go to target/e2e/ with the others; when
//! `ELDORADO_SCREENSHOTS_DIR` is set (scripts/screenshots.sh sets it to
//! docs/), they are also written there under the README's names.

use eldorado_e2e::browser::{Browser, PageState, Popup, Screen};
use eldorado_e2e::expect::{self, money, seeded_block, Lang};
use eldorado_e2e::process::{self, ChildGuard};
use eldorado_e2e::server::Server;
use eldorado_e2e::{paths, POLL, STEP_TIMEOUT};
use eldorado_engine::{Stake, Ticket};
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Chosen (by a search over seeds with `expect::demo_block`) so that a
/// ticket with three Extras and a direct win of 10 stakes come within the
/// first three tickets of the 2 € block: few tickets to play, a short
/// history.
const SEED: u64 = 25;
const STAKE: Stake = Stake::TWO_EUROS;
/// How far into the block the test looks for them.
const MAX_PLAYS: usize = 15;
const DEMO_BALANCE: u64 = 5000;

const PLAY: &str = "#eldorado > .eld-controls > .eld-play";
const HISTORY_SUMMARY: &str = "#eldorado > .eld-history > summary";
const HELP: &str = "#eldorado .eld-help";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end to end in Chromium: run scripts/e2e.sh (or scripts/screenshots.sh)"]
async fn readme_screenshots_on_a_desktop() {
    take_screenshots(Screen::DESKTOP, "").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end to end in Chromium: run scripts/e2e.sh (or scripts/screenshots.sh)"]
async fn readme_screenshots_on_a_phone() {
    take_screenshots(Screen::PHONE, "-phone").await;
}

/// The top ranks' celebration, which no seeded block reaches within a few
/// tickets: shot from the page's own browser test
/// `a_top_rank_win_takes_the_whole_screen` (tests/look.rs), which plays a
/// fixture ticket against its fake backend, never from a server made to
/// deal a chosen ticket. The test runner serves that test (`NO_HEADLESS`)
/// and this browser opens it with `?keep`, which leaves the game on screen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end to end in Chromium: run scripts/e2e.sh (or scripts/screenshots.sh)"]
async fn readme_screenshots_of_a_top_rank_celebration() {
    const TEST: &str = "a_top_rank_win_takes_the_whole_screen";
    let wasm = paths::wasm_test("look");
    for (screen, suffix) in [(Screen::DESKTOP, ""), (Screen::PHONE, "-phone")] {
        let tag = format!("celebration{suffix}");
        let port = process::free_port();
        let log = std::fs::File::create(paths::out_dir().join(format!("runner-{tag}.log")))
            .expect("the runner's log");
        let mut command = std::process::Command::new(paths::wasm_test_runner());
        command
            .arg(&wasm)
            .arg(TEST)
            .env("NO_HEADLESS", "1")
            .env("WASM_BINDGEN_TEST_ONLY_WEB", "1")
            .env("WASM_BINDGEN_TEST_ADDRESS", format!("127.0.0.1:{port}"))
            .stdout(log.try_clone().expect("the runner's log"))
            .stderr(log);
        let _runner = ChildGuard::spawn("wasm-bindgen-test-runner", command);
        let started = Instant::now();
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(
                started.elapsed() < STEP_TIMEOUT,
                "the test runner did not listen (target/e2e/runner-{tag}.log)"
            );
            tokio::time::sleep(POLL).await;
        }
        let browser = Browser::start_on(&tag, screen).await;
        browser
            .goto(&format!("http://127.0.0.1:{port}/?keep"))
            .await;
        let report = loop {
            let report = browser
                .script(
                    "const out = document.getElementById('output'); \
                     return out ? out.textContent : '';",
                    Vec::new(),
                )
                .await;
            let report = report.as_str().unwrap_or_default().to_owned();
            if report.contains("test result:") || started.elapsed() > STEP_TIMEOUT * 2 {
                break report;
            }
            tokio::time::sleep(POLL).await;
        };
        assert!(
            report.contains(&format!("test {TEST} ... ok")) && report.contains("1 passed"),
            "the celebration's test did not pass:\n{report}"
        );
        let shooter = Shooter {
            browser: &browser,
            suffix,
            readme: readme_dir(),
        };
        shooter.shoot("celebration").await;
        browser.close().await;
    }
}

/// A win on the main grid that the board celebrates with at least a
/// golden pulse (rank 7 and up): more than 5 stakes.
fn big_win(ticket: &Ticket) -> bool {
    ticket.extras == 0 && ticket.prize_cents > 5 * ticket.stake_cents
}

/// Where the README's shots are copied, if anywhere: a relative path is
/// taken from the repository root (cargo runs the test in crates/e2e).
fn readme_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("ELDORADO_SCREENSHOTS_DIR")?);
    let dir = if dir.is_relative() {
        paths::repo_root().join(dir)
    } else {
        dir
    };
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
    Some(dir)
}

struct Shooter<'a> {
    browser: &'a Browser,
    /// `""` on the desktop, `"-phone"` on the phone.
    suffix: &'a str,
    readme: Option<PathBuf>,
}

impl Shooter<'_> {
    /// Saves `screenshot-<what><suffix>.png` in target/e2e/, and in the
    /// README's directory when there is one.
    async fn shoot(&self, what: &str) {
        let name = format!("screenshot-{what}{}", self.suffix);
        self.browser.settle().await;
        let path = self.browser.screenshot(&name).await;
        assert!(path.is_file(), "{} was not written", path.display());
        if let Some(dir) = &self.readme {
            let target = dir.join(format!("{name}.png"));
            std::fs::copy(&path, &target)
                .unwrap_or_else(|e| panic!("copy {} to {}: {e}", path.display(), target.display()));
        }
    }

    /// Whether the whole of the element matched by `css` is in the window.
    async fn in_view(&self, css: &str) -> bool {
        self.browser
            .script(
                "const r = document.querySelector(arguments[0]).getBoundingClientRect(); \
                 return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight \
                   && r.left >= 0 && r.right <= window.innerWidth;",
                vec![json!(css)],
            )
            .await
            .as_bool()
            .expect("a boolean")
    }

    async fn assert_in_view(&self, css: &str, what: &str) {
        assert!(
            self.in_view(css).await,
            "{what} ({css}) is not wholly in the {} window",
            if self.suffix.is_empty() {
                "desktop"
            } else {
                "phone"
            }
        );
    }
}

async fn take_screenshots(screen: Screen, suffix: &str) {
    paths::check_web_bundle();
    let started = Instant::now();
    let tag = format!("screenshots{suffix}");
    let (server, browser) =
        tokio::join!(Server::start(SEED, &tag), Browser::start_on(&tag, screen));
    let shooter = Shooter {
        browser: &browser,
        suffix,
        readme: readme_dir(),
    };
    let stake = STAKE.cents();

    // The tickets on sale, known before the first sale.
    let open = server.api.open_block(stake).await;
    let block = seeded_block(&open, SEED, STAKE).await;
    let tickets = &block.tickets[..MAX_PLAYS];
    let (Some(big), Some(extra)) = (
        tickets.iter().position(big_win),
        tickets.iter().position(|t| t.extras > 0),
    ) else {
        panic!(
            "seed {SEED}: no direct win above 5 stakes or no Extras in the first \
             {MAX_PLAYS} tickets at {stake} cents; choose another seed"
        );
    };
    let played = big.max(extra) + 1;
    assert!(
        played as u64 * stake <= DEMO_BALANCE,
        "the demo balance pays for the tickets to play"
    );

    browser.open_game(&server.base).await;
    // The page sees the emulated screen (its layout follows the width).
    let seen = browser
        .script(
            "return [window.innerWidth, window.innerHeight, window.devicePixelRatio];",
            Vec::new(),
        )
        .await;
    let seen: Vec<f64> = serde_json::from_value(seen).expect("three numbers");
    assert_eq!(
        seen,
        [
            f64::from(screen.width),
            f64::from(screen.height),
            screen.pixel_ratio
        ],
        "the page's viewport"
    );
    browser
        .click(&format!("#eldorado .eld-stake[data-stake=\"{stake}\"]"))
        .await;
    assert_eq!(browser.state().await.stake_pressed, Some(stake.to_string()));

    let mut balance = DEMO_BALANCE;
    for (index, ticket) in tickets[..played].iter().enumerate() {
        browser.wait("« Jouer »", PageState::ready_to_play).await;
        browser.click(PLAY).await;
        let state = browser
            .wait("the sale", |s| !s.ready_to_play() || s.told())
            .await;
        assert!(!state.told(), "purchase refused: {state:#?}");
        if index == extra {
            shoot_extras(&shooter, ticket).await;
        }
        let end = finish_ticket(&browser).await;
        balance = balance - stake + ticket.prize_cents;
        assert_eq!(
            end.balance.as_deref(),
            Some(money(balance, Lang::Fr).as_str()),
            "balance after ticket {index} ({} cents won): another ticket was sold",
            ticket.prize_cents
        );
        if index == big {
            shoot_big_win(&shooter, ticket).await;
        }
    }

    // The history: every ticket played, the big win opened in place.
    browser.click(HISTORY_SUMMARY).await;
    let state = browser
        .wait("the history", |s| {
            s.history_open && s.history_rows.len() == played
        })
        .await;
    for (row, ticket) in state
        .history_rows
        .iter()
        .zip(tickets[..played].iter().rev())
    {
        assert_eq!(
            row.cells[1..3],
            [
                money(stake, Lang::Fr),
                expect::history_result(ticket.prize_cents, Lang::Fr)
            ],
            "history row of ticket {}",
            ticket.position
        );
    }
    let sale = state.history_rows[played - 1 - big]
        .sale
        .expect("the row opens its ticket");
    browser
        .click(&format!(
            "#eldorado .eld-history-open[data-sale=\"{sale}\"]"
        ))
        .await;
    let title = format!(
        "#{sale} — {} — {}",
        money(stake, Lang::Fr),
        expect::you_win(tickets[big].prize_cents, Lang::Fr)
    );
    let state = browser
        .wait("the big win opened from the history", |s| {
            s.history_detail.title.as_deref() == Some(title.as_str())
                && s.history_detail.grids.len() == 1
        })
        .await;
    assert_eq!(state.history_detail.error, None);
    assert_eq!(state.history_detail.verified.as_deref(), Some("✓ Vérifié"));
    let in_place = browser
        .script(
            "const d = document.querySelector('#eldorado .eld-history-detail'); \
             const row = d.closest('tr.eld-history-detail-row'); \
             const opened = row && row.previousElementSibling; \
             return opened ? opened.querySelector('[data-sale]').dataset.sale : null;",
            Vec::new(),
        )
        .await;
    assert_eq!(
        in_place,
        json!(sale.to_string()),
        "the ticket opens right under its row"
    );
    browser.scroll_to("#eldorado > .eld-history", "start").await;
    shooter
        .assert_in_view(
            "#eldorado .eld-history-detail .eld-history-grid",
            "the past ticket's grid",
        )
        .await;
    shooter.shoot("history").await;

    // « ? » opens the rules at their top; the player scrolls to the paytable.
    browser.click(HISTORY_SUMMARY).await;
    browser
        .wait("the history closed", |s| !s.history_open)
        .await;
    browser.scroll_to("#eldorado", "start").await;
    browser.click(HELP).await;
    browser
        .wait("the rules page, fetched when first opened", |s| {
            s.rules_shown
        })
        .await;
    let rules = browser
        .script(
            "const info = document.querySelector('#eldorado .eld-info'); \
             const opened_at = info.scrollTop; \
             const table = document.getElementById('eld-combos'); \
             table.scrollIntoView(); \
             const r = table.getBoundingClientRect(); \
             const body = info.querySelector('.eld-info-body'); \
             return { open: info.open, opened_at, top: r.top, rows: table.querySelectorAll('tr').length, \
                      pictures: table.querySelectorAll('.eld-sym').length, \
                      sideways: body.scrollWidth - body.clientWidth };",
            Vec::new(),
        )
        .await;
    assert_eq!(rules["open"], json!(true), "the rules are open: {rules}");
    assert_eq!(rules["opened_at"], json!(0), "opened at their top: {rules}");
    assert_eq!(
        rules["sideways"],
        json!(0),
        "the paytable fits, no sideways scroll: {rules}"
    );
    let top = rules["top"].as_f64().expect("the paytable's top");
    assert!(
        // Half a pixel above is the rounding of scrollIntoView.
        (-1.0..f64::from(screen.height) / 2.0).contains(&top),
        "the window is scrolled to the paytable: {rules}"
    );
    assert!(
        rules["rows"].as_u64().unwrap_or(0) > 1
            && rules["pictures"] == json!(rules["rows"].as_u64().unwrap_or(0) - 1),
        "the paytable, a picture per combination: {rules}"
    );
    shooter.shoot("rules").await;

    browser.close().await;
    eprintln!(
        "screenshots{suffix}: seed {SEED}, {played} tickets at {stake} cents, \
         big win at {big}, Extras at {extra}; {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// Turns the ticket's grids over at once (« Tout montrer ») and takes its
/// Extras, until « Jouer » is back; returns the page then.
async fn finish_ticket(browser: &Browser) -> PageState {
    advance(
        browser,
        "the end of the ticket",
        &["reveal-all", "extra"],
        |s| s.ready_to_play(),
    )
    .await
}

/// Presses the play button whenever it offers one of `actions`, until
/// `done` holds; returns the page then.
async fn advance(
    browser: &Browser,
    what: &str,
    actions: &[&str],
    done: impl Fn(&PageState) -> bool,
) -> PageState {
    let started = Instant::now();
    loop {
        let state = browser.state().await;
        if done(&state) {
            return state;
        }
        assert!(
            !state.told(),
            "the ticket did not go on normally: {state:#?}"
        );
        // One script both checks and clicks, so a step that ends in between
        // can never turn this click into another one (or a purchase).
        browser
            .script(
                "const b = document.querySelector(arguments[0]); \
                 if (!b.disabled && arguments[1].includes(b.dataset.action)) b.click();",
                vec![json!(PLAY), json!(actions)],
            )
            .await;
        assert!(
            started.elapsed() < STEP_TIMEOUT,
            "timed out waiting for {what}: {state:#?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// The ticket with Extras, at its first Extra step: the window, the Extra
/// zone and the « Extra » button.
async fn shoot_extras(shooter: &Shooter<'_>, ticket: &Ticket) {
    let b = shooter.browser;
    let extras = ticket.extras.to_string();
    let state = advance(b, "the first « Extra » step", &["reveal-all"], |s| {
        s.awaiting_extra() && s.extra_zone.as_deref() == Some(extras.as_str())
    })
    .await;
    assert_eq!(
        state.popup,
        Some(Popup {
            kind: "extras".into(),
            text: expect::you_get_extras(ticket.extras)
        })
    );
    assert_eq!(state.play.as_deref(), Some("Extra"));
    assert_eq!(state.extra_label.as_deref(), Some("Extra"));
    assert_eq!(state.caption.as_deref(), Some("Grille principale"));
    shooter
        .assert_in_view("#eldorado .eld-stage", "the board and the Extra zone")
        .await;
    shooter.assert_in_view(PLAY, "the « Extra » button").await;
    shooter.shoot("extra").await;
}

/// The big win's end: the window with the prize, « Dernier gain » counted
/// up to it, the board's celebration.
async fn shoot_big_win(shooter: &Shooter<'_>, ticket: &Ticket) {
    let b = shooter.browser;
    let prize = money(ticket.prize_cents, Lang::Fr);
    let state = b.state().await;
    assert_eq!(
        state.popup,
        Some(Popup {
            kind: "win".into(),
            text: expect::you_win(ticket.prize_cents, Lang::Fr)
        })
    );
    let celebrate = state.celebrate.clone().unwrap_or_default();
    assert!(
        ["medium", "big", "top"].contains(&celebrate.as_str()),
        "a prize of {} stakes is celebrated with a pulse at least: {state:#?}",
        ticket.prize_cents / ticket.stake_cents
    );
    // The board pulses a few times, then rests; the shot holds it at its
    // brightest, as a player sees it, rather than after it has gone out.
    let held = b
        .script(
            "const pulses = document.querySelector('#eldorado .eld-board').getAnimations() \
               .filter((a) => a.animationName === 'eld-pulse'); \
             for (const a of pulses) { \
               a.pause(); \
               a.currentTime = a.effect.getComputedTiming().duration / 2; \
             } \
             return pulses.length;",
            Vec::new(),
        )
        .await;
    assert_eq!(held, json!(1), "the board pulses for a big win");
    b.wait_within(
        "« Dernier gain » counted up to the prize",
        Duration::from_secs(5),
        |s| s.last_win.as_deref() == Some(prize.as_str()),
    )
    .await;
    shooter
        .assert_in_view("#eldorado .eld-board", "the board and its window")
        .await;
    shooter.shoot("win").await;
}
