//! Headless Chromium through chromedriver, and what the game page shows,
//! read from the DOM in one script call per look.

use crate::paths;
use crate::process::{free_port, ChildGuard};
use crate::{POLL, STEP_TIMEOUT};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde::Deserialize;
use serde_json::{json, Value};
use std::fs::File;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// A Chromium window driven over WebDriver. `close()` ends it cleanly; if a
/// test fails first, dropping it kills chromedriver's whole process group.
pub struct Browser {
    pub client: Client,
    out: PathBuf,
    // The profile directory outlives the processes that write into it.
    _driver: ChildGuard,
    _profile: TempDir,
}

/// A screen Chromium emulates (chromedriver's `mobileEmulation`): the
/// page's viewport in CSS pixels, its device pixels per CSS pixel, and
/// whether it is a phone (touch, mobile viewport rules).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Screen {
    pub width: u32,
    pub height: u32,
    pub pixel_ratio: f64,
    pub mobile: bool,
}

impl Screen {
    /// The README's desktop: a 1280 px wide window.
    pub const DESKTOP: Screen = Screen {
        width: 1280,
        height: 900,
        pixel_ratio: 1.0,
        mobile: false,
    };
    /// The README's phone: 412×915 CSS px at 2.625 device pixels per CSS px.
    pub const PHONE: Screen = Screen {
        width: 412,
        height: 915,
        pixel_ratio: 2.625,
        mobile: true,
    };
}

impl Browser {
    /// A plain headless window of 1000×900 px.
    pub async fn start(tag: &str) -> Browser {
        Browser::launch(tag, None).await
    }

    /// A headless window that emulates `screen`: its screenshots have the
    /// screen's size in device pixels.
    pub async fn start_on(tag: &str, screen: Screen) -> Browser {
        Browser::launch(tag, Some(screen)).await
    }

    async fn launch(tag: &str, screen: Option<Screen>) -> Browser {
        let out = paths::out_dir();
        let profile = tempfile::Builder::new()
            .prefix("eldorado-e2e-chromium-")
            .tempdir()
            .expect("temporary Chromium profile");
        // An emulated screen gets a window of its size in CSS pixels.
        let window_size = screen.map_or_else(
            || "--window-size=1000,900".to_owned(),
            |s| format!("--window-size={},{}", s.width, s.height),
        );
        for _ in 0..3 {
            let port = free_port();
            let log = out.join(format!("chromedriver-{tag}.log"));
            let log_file = File::create(&log).expect("chromedriver log file");
            let mut command = Command::new(paths::chromedriver_bin());
            command
                .arg(format!("--port={port}"))
                .stdin(Stdio::null())
                .stdout(log_file.try_clone().expect("log handle"))
                .stderr(log_file);
            let mut driver = ChildGuard::spawn("chromedriver", command);
            let url = format!("http://127.0.0.1:{port}");
            if !wait_driver_ready(&mut driver, &url).await {
                continue;
            }
            let mut capabilities = json!({
                "browserName": "chrome",
                "goog:chromeOptions": {
                    "binary": paths::chromium_bin(),
                    "args": [
                        "--headless=new",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-dev-shm-usage",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--no-first-run",
                        "--no-default-browser-check",
                        &window_size,
                        format!("--user-data-dir={}", profile.path().display()),
                    ],
                },
            });
            if let Some(screen) = screen {
                capabilities["goog:chromeOptions"]["mobileEmulation"] = json!({
                    "deviceMetrics": {
                        "width": screen.width,
                        "height": screen.height,
                        "pixelRatio": screen.pixel_ratio,
                        "mobile": screen.mobile,
                        "touch": screen.mobile,
                    },
                });
            }
            let Value::Object(capabilities) = capabilities else {
                unreachable!("capabilities are an object")
            };
            let client = ClientBuilder::new(HttpConnector::new())
                .capabilities(capabilities)
                .connect(&url)
                .await
                .unwrap_or_else(|e| {
                    panic!(
                        "cannot open a Chromium session: {e}; log: {}",
                        log.display()
                    )
                });
            return Browser {
                client,
                out,
                _driver: driver,
                _profile: profile,
            };
        }
        panic!("chromedriver could not start on a free port three times");
    }

    /// Ends the WebDriver session, which quits Chromium.
    pub async fn close(self) {
        let Browser {
            client,
            _driver,
            _profile,
            ..
        } = self;
        client.close().await.expect("close the Chromium session");
    }

    /// Opens the game served at `base` (a server or a proxy in front of
    /// one) and waits until it can be played: a player and a balance.
    pub async fn open_game(&self, base: &str) -> PageState {
        self.goto(&format!("{base}/")).await;
        self.wait("the game to load", |s| {
            s.ready_to_play() && s.balance.is_some()
        })
        .await
    }

    pub async fn goto(&self, url: &str) {
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("open {url}: {e}"));
    }

    pub async fn refresh(&self) {
        self.client.refresh().await.expect("reload the page");
    }

    /// Clicks the element matched by `css`.
    pub async fn click(&self, css: &str) {
        let element = self
            .client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("find {css}: {e}"));
        element
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {css}: {e}"));
    }

    pub async fn script(&self, body: &str, args: Vec<Value>) -> Value {
        self.client
            .execute(body, args)
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}\n{body}"))
    }

    /// What the page shows now.
    pub async fn state(&self) -> PageState {
        let value = self.script(STATE_SCRIPT, Vec::new()).await;
        serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("page state {value}: {e}"))
    }

    /// Polls the page until `ready` holds; fails with the last state seen.
    /// Waits for the page's refusal of a purchase (the game ready to play
    /// again, nothing shown) and returns its words.
    pub async fn refusal(&self) -> String {
        self.refusal_notice().await.text
    }

    /// As [`Browser::refusal`], with why the check failed.
    pub async fn refusal_notice(&self) -> Notice {
        let state = self
            .wait("the refusal", |s| {
                s.notice.as_ref().is_some_and(|n| n.kind == "rejected") && s.ready_to_play()
            })
            .await;
        assert_eq!(state.verified, None, "no ticket shown");
        state.notice.expect("a notice")
    }

    pub async fn wait(&self, what: &str, ready: impl Fn(&PageState) -> bool) -> PageState {
        self.wait_within(what, STEP_TIMEOUT, ready).await
    }

    pub async fn wait_within(
        &self,
        what: &str,
        timeout: Duration,
        ready: impl Fn(&PageState) -> bool,
    ) -> PageState {
        let started = Instant::now();
        loop {
            let state = self.state().await;
            if ready(&state) {
                return state;
            }
            if started.elapsed() > timeout {
                self.screenshot(&format!("failed-{}", slug(what))).await;
                panic!(
                    "timed out after {timeout:?} waiting for {what}; the page shows:\n{state:#?}"
                );
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The main grid's pixels as a PNG data URL.
    pub async fn canvas_png(&self) -> String {
        let value = self
            .script(
                "return document.querySelector('#eldorado .eld-canvas').toDataURL('image/png');",
                Vec::new(),
            )
            .await;
        value.as_str().expect("data URL").to_owned()
    }

    /// A value the page keeps in localStorage.
    pub async fn local_storage(&self, key: &str) -> Option<String> {
        let value = self
            .script(
                "return localStorage.getItem(arguments[0]);",
                vec![json!(key)],
            )
            .await;
        value.as_str().map(str::to_owned)
    }

    /// Scrolls the element matched by `css` into view, aligned at `block`
    /// (`start`, `center` or `end` of the window).
    pub async fn scroll_to(&self, css: &str, block: &str) {
        self.script(
            "document.querySelector(arguments[0]).scrollIntoView({block: arguments[1]});",
            vec![json!(css), json!(block)],
        )
        .await;
    }

    /// Waits (2 s at most) for the page's finite animations and transitions,
    /// such as a window fading in, to end.
    pub async fn settle(&self) {
        self.settle_within(Duration::from_secs(2)).await;
    }

    /// Waits, `limit` at most, for the finite animations and transitions
    /// that are playing to end (a paused one is left as it is).
    pub async fn settle_within(&self, limit: Duration) {
        let millis = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
        let _ = self
            .client
            .execute_async(SETTLE_SCRIPT, vec![json!(millis)])
            .await;
    }

    /// Saves the visible part of the page, once still, as `<out>/<name>.png`.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        self.settle().await;
        let path = self.out.join(format!("{name}.png"));
        match self.client.screenshot().await {
            Ok(png) => {
                std::fs::write(&path, png)
                    .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
            }
            // A failure screenshot must not hide the failure it illustrates.
            Err(e) => eprintln!("screenshot {name} failed: {e}"),
        }
        path
    }
}

async fn wait_driver_ready(driver: &mut ChildGuard, url: &str) -> bool {
    let http = crate::api::Api::new(url);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if driver.exited().is_some() {
            return false;
        }
        if let Ok((status, body)) = http.get_raw("/status", None).await {
            let ready = serde_json::from_slice::<Value>(&body)
                .ok()
                .and_then(|v| v["value"]["ready"].as_bool())
                .unwrap_or(false);
            if status.is_success() && ready {
                return true;
            }
        }
        tokio::time::sleep(POLL * 2).await;
    }
    panic!("chromedriver (pid {}) did not become ready", driver.id());
}

fn slug(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(60)
        .collect()
}

/// One history row: its cells' texts and the sale its « open » button shows.
#[derive(Clone, Debug, Deserialize)]
pub struct HistoryRow {
    pub cells: Vec<String>,
    pub sale: Option<u64>,
}

/// A ticket opened from the history.
#[derive(Clone, Debug, Deserialize)]
pub struct HistoryDetail {
    pub title: Option<String>,
    /// Caption and spoken description of each grid drawn.
    pub grids: Vec<(String, String)>,
    pub error: Option<String>,
    pub verified: Option<String>,
}

/// A window over the grid.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Popup {
    pub kind: String,
    pub text: String,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Notice {
    pub kind: String,
    pub text: String,
    /// Why the check failed, when a sale was refused (else empty).
    pub reason: String,
}

/// Everything the test looks at, as the page shows it (`None`: not shown).
#[derive(Clone, Debug, Deserialize)]
pub struct PageState {
    pub lang: String,
    pub title: String,
    pub balance_label: Option<String>,
    pub balance: Option<String>,
    pub play: Option<String>,
    pub play_action: Option<String>,
    pub play_enabled: bool,
    pub stake_pressed: Option<String>,
    pub popup: Option<Popup>,
    /// « Dernier gain »: counts up to a new prize when its window opens.
    pub last_win: Option<String>,
    /// How the board celebrates the outcome shown: `small`, `big`, `top`
    /// (empty when there is nothing to celebrate).
    pub celebrate: Option<String>,
    pub extra_zone: Option<String>,
    pub extra_label: Option<String>,
    pub caption: Option<String>,
    pub notice: Option<Notice>,
    pub resume: Option<String>,
    pub resume_button: Option<String>,
    pub verified: Option<String>,
    pub live: Option<String>,
    /// The board's accessible name: « Grille de jeu » and the grid
    /// revealed last.
    pub board_label: Option<String>,
    pub history_summary: Option<String>,
    pub history_open: bool,
    /// The rules panel's page has come (it is fetched when first opened).
    pub rules_shown: bool,
    pub history_rows: Vec<HistoryRow>,
    pub history_detail: HistoryDetail,
}

impl PageState {
    /// A notice other than the wait for the public record (which only says
    /// that the purchase goes on): a refusal, a limit, a failure.
    pub fn told(&self) -> bool {
        self.notice.as_ref().is_some_and(|n| n.kind != "record")
    }

    /// The game waits for « Jouer » (or « Play »).
    pub fn ready_to_play(&self) -> bool {
        self.play_action.as_deref() == Some("play") && self.play_enabled
    }

    /// A grid is turning over (the button offers to show it all).
    pub fn revealing(&self) -> bool {
        self.play_action.as_deref() == Some("reveal-all")
    }

    /// The next Extra grid waits for « Extra ».
    pub fn awaiting_extra(&self) -> bool {
        self.play_action.as_deref() == Some("extra") && self.play_enabled
    }
}

const SETTLE_SCRIPT: &str = r#"
const done = arguments[arguments.length - 1];
const finite = document.getAnimations().filter((a) => a.playState === 'running' &&
  a.effect && a.effect.getComputedTiming().endTime !== Infinity);
const all = Promise.all(finite.map((a) => a.finished.catch(() => null)));
const limit = new Promise((resolve) => setTimeout(resolve, arguments[0]));
Promise.race([all, limit]).then(() => requestAnimationFrame(() => done(true)));
"#;

/// Reads the page. Elements count as shown only when neither they nor an
/// ancestor carry `hidden`.
const STATE_SCRIPT: &str = r#"
const root = document.getElementById('eldorado');
const q = (css) => root ? root.querySelector(css) : null;
const shown = (e) => !!e && !e.closest('[hidden]');
const text = (e) => shown(e) ? e.textContent : null;
const play = q(':scope > .eld-controls > .eld-play');
const popup = q('.eld-popup');
const notice = q(':scope > .eld-notice');
const history = q(':scope > .eld-history');
const detail = q('.eld-history-detail');
const pressed = q('.eld-stake[aria-pressed="true"]');
const badge = q(':scope > .eld-badge');
return {
  lang: document.documentElement.lang,
  title: document.title,
  balance_label: text(q('.eld-balance-label')),
  balance: text(q('.eld-balance-value')),
  play: text(play),
  play_action: play ? play.dataset.action || null : null,
  play_enabled: !!play && shown(play) && !play.disabled,
  stake_pressed: pressed ? pressed.dataset.stake : null,
  popup: shown(popup) ? { kind: popup.dataset.kind || '', text: q('.eld-popup-text').textContent } : null,
  last_win: text(q('.eld-last-win-value')),
  celebrate: q('.eld-board') ? q('.eld-board').dataset.celebrate ?? null : null,
  extra_zone: text(q('.eld-extra-count')),
  extra_label: text(q('.eld-extra-label')),
  caption: text(q(':scope > .eld-status > .eld-caption')),
  notice: shown(notice) ? { kind: notice.dataset.kind || '', text: q('.eld-notice-text').textContent,
                           reason: notice.dataset.reason || '' } : null,
  resume: text(q(':scope > .eld-resume > p')),
  resume_button: text(q('.eld-resume-btn')),
  verified: shown(badge) ? badge.querySelector('.eld-badge-label').textContent : null,
  live: q('.eld-live') ? q('.eld-live').textContent : null,
  board_label: q('.eld-board') ? q('.eld-board').getAttribute('aria-label') : null,
  history_summary: history ? history.querySelector('summary').textContent : null,
  history_open: !!history && history.open,
  rules_shown: !!q('.eld-info .eld-facts'),
  history_rows: history ? Array.from(history.querySelectorAll('tbody tr')).map((tr) => {
    const open = tr.querySelector('[data-sale]');
    return {
      cells: Array.from(tr.querySelectorAll('td')).map((td) => td.textContent),
      sale: open ? Number(open.dataset.sale) : null,
    };
  }) : [],
  history_detail: {
    title: detail && detail.querySelector('h2') ? detail.querySelector('h2').textContent : null,
    grids: detail ? Array.from(detail.querySelectorAll('figure')).map((f) => [
      f.querySelector('figcaption') ? f.querySelector('figcaption').textContent : '',
      f.querySelector('.eld-sr') ? f.querySelector('.eld-sr').textContent : '',
    ]) : [],
    error: detail && detail.querySelector('.eld-error') ? detail.querySelector('.eld-error').textContent : null,
    verified: detail && detail.querySelector('summary') ? detail.querySelector('summary').textContent : null,
  },
};
"#;
