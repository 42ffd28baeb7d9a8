//! Fair dealing seen by the page (issue 22), end to end: the real server
//! dealing every sale from the real `eldorado beacon`, the real page in
//! Chromium. A genuine deal is verified and shown, and « on the record »
//! once its sale is proved there and its purchase proved cosigned before
//! its round; a deal whose beacon value is forged (another round's genuine
//! signature) or whose evidence is missing is refused before a single
//! symbol is drawn.
//!
//! Run with scripts/e2e.sh (it builds the server and the wasm bundle).

use eldorado_api::beacon::BeaconRound;
use eldorado_api::BeaconPin;
use eldorado_e2e::browser::Browser;
use eldorado_e2e::expect::{money, Lang, ON_RECORD};
use eldorado_e2e::paths;
use eldorado_e2e::process::{free_port, ChildGuard};
use eldorado_e2e::proxy::{Rule, TamperProxy};
use eldorado_e2e::server::{page_policy, Server};
use hyper::Method;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const SEED: u64 = 22;
/// The page's default stake, in cents.
const STAKE: u64 = 100;
const PLAY: &str = "#eldorado > .eld-controls > .eld-play";
/// The French label of the deal's check (`Check::FairDeal`).
const FAIR_DEAL: &str = "ticket tiré par la balise publique";

/// `eldorado beacon` on a free port: its guard, URL and key.
fn beacon(dir: &std::path::Path) -> (ChildGuard, String, String) {
    let port = free_port();
    let mut command = Command::new(paths::eldorado_bin());
    command
        .args(["beacon", "--key-file"])
        .arg(dir.join("beacon.key"))
        .args([
            "--period-ms",
            "200",
            "--listen",
            &format!("127.0.0.1:{port}"),
        ])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut guard = ChildGuard::spawn("eldorado beacon", command);
    let stdout = guard.take_stdout().expect("the beacon's output");
    let mut lines = BufReader::new(stdout).lines();
    let key = lines.next().expect("a line").expect("text");
    let key = key
        .strip_prefix("beacon key: ")
        .expect("the beacon prints its key first")
        .to_owned();
    let listening = lines.next().expect("a line").expect("text");
    assert!(listening.starts_with("beacon listening on"), "{listening}");
    (guard, format!("http://127.0.0.1:{port}"), key)
}

async fn dealing_server(tag: &str, beacon_url: &str, key: &str) -> Server {
    dealing_server_with(tag, beacon_url, key, &[]).await
}

/// [`dealing_server`] with more flags.
async fn dealing_server_with(tag: &str, beacon_url: &str, key: &str, extra: &[&str]) -> Server {
    let mut flags = vec![
        "--demo".to_owned(),
        "--demo-seed".to_owned(),
        SEED.to_string(),
        "--beacon".to_owned(),
        beacon_url.to_owned(),
        "--beacon-key".to_owned(),
        key.to_owned(),
        // Time for the witness (polling every 100 ms) to cosign each
        // purchase; its round comes after the following second: the page
        // checks the cosignature is older than the round.
        "--deal-lead-ms".to_owned(),
        "600".to_owned(),
    ];
    flags.extend(extra.iter().map(|f| (*f).to_owned()));
    // The page's policy names the same beacon, on its schedule (`eldorado
    // beacon`'s genesis is 0 unless told).
    let pin = BeaconPin {
        public_key: key.to_owned(),
        genesis_time_ms: 0,
        period_ms: 200,
    };
    Server::start_with_policy(tag, |_| flags.clone(), &[], &page_policy(Some(pin))).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end to end in Chromium: run scripts/e2e.sh"]
async fn a_ticket_dealt_by_the_beacon_is_shown_once_its_deal_verifies() {
    paths::check_web_bundle();
    let dir = tempfile::tempdir().unwrap();
    let (_beacon, url, key) = beacon(dir.path());
    let (server, browser) = tokio::join!(
        dealing_server("fair-deal", &url, &key),
        Browser::start("fair-deal")
    );
    browser.open_game(&server.base).await;
    browser.click(PLAY).await;
    let state = browser
        .wait("the ticket dealt and on the record", |s| {
            s.verified.as_deref() == Some(ON_RECORD)
        })
        .await;
    assert!(state.notice.is_none(), "{:?}", state.notice);
    browser.close().await;
}

/// The server answers `DEAL_PENDING` before every round (it waits 50 ms
/// for a deal, a round comes every 200 ms after the witness's second): the
/// page shows the calm wait for the public draw, never the error look nor
/// a « Réessayer », asks again by itself and shows the ticket, verified,
/// paid once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end to end in Chromium: run scripts/e2e.sh"]
async fn a_pending_draw_is_a_calm_wait_then_the_ticket() {
    use std::sync::atomic::{AtomicBool, Ordering};
    paths::check_web_bundle();
    let dir = tempfile::tempdir().unwrap();
    let (_beacon, url, key) = beacon(dir.path());
    let (server, browser) = tokio::join!(
        dealing_server_with("pending-draw", &url, &key, &["--deal-wait-ms", "50"]),
        Browser::start("pending-draw")
    );
    browser.open_game(&server.base).await;
    let token = browser
        .local_storage("eldorado.demo_token")
        .await
        .expect("a demo player");
    let before = server.api.session(&token).await.balance_cents;
    browser.click(PLAY).await;
    let (waited, failed) = (AtomicBool::new(false), AtomicBool::new(false));
    let paid = money(before - STAKE, Lang::Fr);
    let state = browser
        .wait_within(
            "the ticket, after the wait for its draw",
            std::time::Duration::from_secs(60),
            |s| {
                match s.notice.as_ref().map(|n| n.kind.as_str()) {
                    Some("draw") => {
                        waited.store(true, Ordering::SeqCst);
                        assert_eq!(s.balance.as_deref(), Some(paid.as_str()), "shown paid");
                    }
                    Some("network" | "rejected") => failed.store(true, Ordering::SeqCst),
                    _ => {}
                }
                if s.play_action.as_deref() == Some("retry") {
                    failed.store(true, Ordering::SeqCst);
                }
                s.verified.as_deref() == Some(ON_RECORD)
            },
        )
        .await;
    assert!(
        waited.load(Ordering::SeqCst),
        "the wait for the draw was shown"
    );
    assert!(
        !failed.load(Ordering::SeqCst),
        "never the error look nor « Réessayer »"
    );
    assert!(state.notice.is_none(), "{:?}", state.notice);
    let history = server.api.history(&token, 20).await;
    assert_eq!(history.len(), 1, "bought once");
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "end to end in Chromium: run scripts/e2e.sh"]
async fn a_forged_beacon_value_or_a_missing_deal_is_refused() {
    paths::check_web_bundle();
    let dir = tempfile::tempdir().unwrap();
    let (_beacon, url, key) = beacon(dir.path());
    let (server, browser) = tokio::join!(
        dealing_server("forged-deal", &url, &key),
        Browser::start("forged-deal")
    );
    // A genuine signature of the beacon, of round 1: the operator passes
    // it off as the value of the round its purchase named.
    let round_1: BeaconRound = serde_json::from_str(
        &reqwest::get(format!("{url}/public/1"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    let forged = round_1.signature;
    let sales = std::sync::atomic::AtomicUsize::new(0);
    let proxy = TamperProxy::with_rules(
        &server.base,
        vec![Rule::json(
            Method::POST,
            "/api/sales",
            move |answer: &mut Value| {
                let n = sales.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if n == 0 {
                    answer["deal"]["round_signature"] = Value::String(forged.clone());
                } else {
                    answer.as_object_mut().unwrap().remove("deal");
                }
            },
        )],
    )
    .await;
    browser.goto(&format!("{}/", proxy.base)).await;
    // Each refused by the check itself: the first by the beacon's check,
    // which the page loads after its first download, not for want of it.
    for (forgery, why) in [
        ("another round's value", "signature is not the beacon's"),
        ("no deal at all", "shows no deal"),
    ] {
        browser
            .wait("the game through the proxy", |s| {
                s.ready_to_play() && s.balance.is_some()
            })
            .await;
        browser.click(PLAY).await;
        let notice = browser.refusal_notice().await;
        assert!(notice.text.contains(FAIR_DEAL), "{forgery}: {notice:?}");
        assert!(notice.reason.contains(why), "{forgery}: {notice:?}");
    }
    browser.screenshot("forged-deal").await;
    assert_eq!(proxy.tampered(), 2);
    browser.close().await;
}
