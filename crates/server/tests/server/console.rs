//! The operator's console (`/operator/`): only a signed-in session sees or
//! changes anything, every change needs the session's CSRF token, and the
//! figures it shows reconcile with the sales.

use crate::common::*;
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use eldorado_server::{app, console, AppState};
use http_body_util::BodyExt;
use tower::ServiceExt;

pub struct Page {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub text: String,
}

impl Page {
    pub fn location(&self) -> &str {
        self.headers
            .get(header::LOCATION)
            .map_or("", |v| v.to_str().unwrap())
    }

    /// The `value` of the first hidden `csrf` field.
    pub fn csrf(&self) -> String {
        let at = self.text.find(r#"name="csrf" value=""#).expect("a form");
        let rest = &self.text[at + r#"name="csrf" value=""#.len()..];
        rest[..rest.find('"').unwrap()].to_owned()
    }

    /// The `data-cents` of the element with `id`'s `n`-th cell that has one.
    fn cents_in(&self, id: &str, n: usize) -> i64 {
        let at = self.text.find(&format!(r#"id="{id}""#)).expect(id);
        let row = &self.text[at..];
        let row = &row[..row.find("</tr>").unwrap()];
        let value = row.split(r#"data-cents=""#).nth(n + 1).expect("a cell");
        value[..value.find('"').unwrap()].parse().unwrap()
    }
}

pub async fn send(
    router: &Router,
    method: Method,
    path: &str,
    cookie: Option<&str>,
    form: Option<&str>,
    headers: &[(&str, &str)],
) -> Page {
    let mut request = Request::builder().method(method).uri(path);
    if let Some(cookie) = cookie {
        request = request.header(header::COOKIE, cookie);
    }
    if form.is_some() {
        request = request.header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = router
        .clone()
        .oneshot(
            request
                .body(form.map_or_else(Body::empty, |f| Body::from(f.to_owned())))
                .unwrap(),
        )
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Page {
        status,
        headers,
        text: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// Posts the sign-in form `form` (`key=…`).
async fn post_sign_in(router: &Router, form: &str) -> Page {
    send(
        router,
        Method::POST,
        "/operator/sign-in",
        None,
        Some(form),
        &[],
    )
    .await
}

/// Signs in with the operator key: the cookie to send back.
pub async fn sign_in(router: &Router, state: &AppState) -> String {
    let form = format!("key={}", operator_key(state));
    let page = post_sign_in(router, &form).await;
    assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.text);
    assert_eq!(page.location(), "/operator/");
    let cookie = page.headers[header::SET_COOKIE].to_str().unwrap();
    cookie.split(';').next().unwrap().to_owned()
}

async fn block_status(router: &Router, id: u64) -> String {
    let block = call(
        router,
        Method::GET,
        &format!("/api/blocks/{id}"),
        None,
        None,
    )
    .await;
    block.body["status"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_console_route_refuses_a_stranger() {
    let state = shared().clone();
    let router = app(state.clone());
    let (_, player) = demo_player(&router).await;
    let block = open_block_of(&router, 50, "play").await["commitment"]["block"]
        .as_u64()
        .unwrap();
    let (forged, _) = console::ConsoleSessions::new([9; 32], std::time::Duration::from_secs(60))
        .issue(eldorado_server::clock::system_now_ms(), [3; 16]);
    let routes = console::routes();
    assert!(routes.iter().filter(|r| !r.public).count() >= 14);
    for route in routes.iter().filter(|r| !r.public) {
        let path = format!("/operator{}", route.path)
            .replace("{block}", &block.to_string())
            .replace("{player_id}", &player)
            .replace("{sale_id}", "1");
        for cookie in [None, Some(format!("{}={forged}", console::COOKIE))] {
            let form = (route.method == Method::POST).then_some("csrf=00");
            let page = send(
                &router,
                route.method.clone(),
                &path,
                cookie.as_deref(),
                form,
                &[],
            )
            .await;
            if route.method == Method::GET {
                assert_eq!(page.status, StatusCode::SEE_OTHER, "{path}");
                assert_eq!(page.location(), "/operator/sign-in", "{path}");
            } else {
                assert_eq!(page.status, StatusCode::FORBIDDEN, "{path}: {}", page.text);
            }
        }
    }
    // Nothing was changed by the refused posts.
    assert_eq!(block_status(&router, block).await, "open");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_is_a_strict_http_only_cookie_until_sign_out() {
    let state = shared().clone();
    let router = app(state.clone());
    let wrong = post_sign_in(&router, "key=0123").await;
    assert_eq!(wrong.status, StatusCode::SEE_OTHER);
    assert_eq!(wrong.location(), "/operator/sign-in?failed=true");
    assert!(wrong.headers.get(header::SET_COOKIE).is_none());

    let form = format!("key={}", operator_key(&state));
    let page = post_sign_in(&router, &form).await;
    let set_cookie = page.headers[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .to_owned();
    for flag in [
        "HttpOnly",
        "SameSite=Strict",
        "Secure",
        "Path=/operator",
        "Max-Age=28800",
    ] {
        assert!(set_cookie.contains(flag), "{flag} in {set_cookie}");
    }
    let cookie = set_cookie.split(';').next().unwrap().to_owned();
    assert!(
        !cookie.contains(&operator_key(&state)),
        "the key is never the cookie"
    );

    let overview = send(
        &router,
        Method::GET,
        "/operator/",
        Some(&cookie),
        None,
        &[("accept-language", "en-GB,en")],
    )
    .await;
    assert_eq!(overview.status, StatusCode::OK);
    assert!(
        overview.text.contains("<h1>Overview</h1>"),
        "{}",
        overview.text
    );
    // Standards mode: the doctype comes first.
    assert!(
        overview
            .text
            .starts_with("<!DOCTYPE html><html lang=\"en\">"),
        "{}",
        overview.text
    );
    let sign_in_page = send(&router, Method::GET, "/operator/sign-in", None, None, &[]).await;
    assert!(
        sign_in_page.text.starts_with("<!DOCTYPE html>"),
        "{}",
        sign_in_page.text
    );
    let csp = overview.headers[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(
        csp.contains("form-action 'self'") && csp.contains("frame-ancestors 'none'"),
        "{csp}"
    );
    assert!(
        !csp.contains("script-src"),
        "the console runs no script: {csp}"
    );
    let french = send(
        &router,
        Method::GET,
        "/operator/",
        Some(&format!("{cookie}; eldorado_console_lang=fr")),
        None,
        &[],
    )
    .await;
    assert!(french.text.contains("Vue d'ensemble"), "{}", french.text);

    // Signing out needs the session's token, then ends the session.
    let refused = send(
        &router,
        Method::POST,
        "/operator/sign-out",
        Some(&cookie),
        Some("csrf=00"),
        &[],
    )
    .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let still = send(
        &router,
        Method::GET,
        "/operator/blocks",
        Some(&cookie),
        None,
        &[],
    )
    .await;
    assert_eq!(still.status, StatusCode::OK);
    let out = send(
        &router,
        Method::POST,
        "/operator/sign-out",
        Some(&cookie),
        Some(&format!("csrf={}", still.csrf())),
        &[],
    )
    .await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(out.headers[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .contains("Max-Age=0"));
    let after = send(
        &router,
        Method::GET,
        "/operator/blocks",
        Some(&cookie),
        None,
        &[],
    )
    .await;
    assert_eq!(after.location(), "/operator/sign-in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_closes_only_with_the_sessions_token_from_the_console() {
    let state = tokio::task::spawn_blocking(|| fresh_mixed_server("console-close"))
        .await
        .unwrap();
    let router = app(state.clone());
    let cookie = sign_in(&router, &state).await;
    let block = open_block_of(&router, 200, "real").await["commitment"]["block"]
        .as_u64()
        .unwrap();
    let path = format!("/operator/blocks/{block}/close");
    let confirm = send(&router, Method::GET, &path, Some(&cookie), None, &[]).await;
    assert_eq!(confirm.status, StatusCode::OK);
    assert!(
        confirm.text.contains(r#"id="confirm-close""#),
        "{}",
        confirm.text
    );
    let token = confirm.csrf();

    let other = sign_in(&router, &state).await;
    let other_token = send(&router, Method::GET, &path, Some(&other), None, &[])
        .await
        .csrf();
    assert_ne!(other_token, token);
    for (form, headers) in [
        (format!("csrf={other_token}"), vec![]),
        ("csrf=".to_owned(), vec![]),
        (
            format!("csrf={token}"),
            vec![("sec-fetch-site", "cross-site")],
        ),
        (
            format!("csrf={token}"),
            vec![("origin", "https://evil.example"), ("host", "game.example")],
        ),
        (
            format!("csrf={token}"),
            vec![("sec-fetch-site", "same-site"), ("origin", "null")],
        ),
    ] {
        let page = send(
            &router,
            Method::POST,
            &path,
            Some(&cookie),
            Some(&form),
            &headers,
        )
        .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{form} {headers:?}");
        assert_eq!(block_status(&router, block).await, "open");
    }
    let closed = send(
        &router,
        Method::POST,
        &path,
        Some(&cookie),
        Some(&format!("csrf={token}")),
        &[
            ("sec-fetch-site", "same-origin"),
            ("origin", "http://game.example"),
            ("host", "game.example"),
        ],
    )
    .await;
    assert_eq!(closed.status, StatusCode::SEE_OTHER, "{}", closed.text);
    assert_eq!(block_status(&router, block).await, "closed");

    // Finished: its prize counts, its export and an audit that passes.
    let blocks = send(
        &router,
        Method::GET,
        "/operator/blocks",
        Some(&cookie),
        None,
        &[],
    )
    .await;
    let row = &blocks.text[blocks.text.find(&format!(r#"id="block-{block}""#)).unwrap()..];
    assert!(
        row.contains(&format!("/api/blocks/{block}/export")),
        "{row}"
    );
    let audit = send(
        &router,
        Method::GET,
        &format!("/operator/blocks/{block}/audit"),
        Some(&cookie),
        None,
        &[],
    )
    .await;
    assert!(
        audit
            .text
            .contains(&format!("OK: block {block} at 200 cents")),
        "{}",
        audit.text
    );
    // A block still on sale has no audit, export or counts.
    let open = open_block_of(&router, 50, "real").await["commitment"]["block"]
        .as_u64()
        .unwrap();
    let refused = send(
        &router,
        Method::GET,
        &format!("/operator/blocks/{open}/audit"),
        Some(&cookie),
        None,
        &[],
    )
    .await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
    let row = &blocks.text[blocks.text.find(&format!(r#"id="block-{open}""#)).unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(!row.contains("export") && row.contains("/close"), "{row}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn todays_figures_reconcile_with_the_sales_to_the_cent() {
    let state = tokio::task::spawn_blocking(|| fresh_mixed_server("console-figures"))
        .await
        .unwrap();
    let router = app(state.clone());
    let real = operator_player(&router, &state, "console-real", 100_000).await;
    let (demo, _) = demo_player(&router).await;
    for i in 0..40 {
        let stake = [50, 100, 200][i % 3];
        let token = if i % 2 == 0 { &real } else { &demo };
        let reply = play(&router, token, stake, &format!("console-{i:04}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    }
    let totals = state.store.totals().unwrap();
    assert_eq!(totals.sales, 40);
    let cookie = sign_in(&router, &state).await;
    let overview = send(&router, Method::GET, "/operator/", Some(&cookie), None, &[]).await;
    assert_eq!(overview.status, StatusCode::OK);
    assert!(
        overview.text.contains(r#"data-tickets="40""#),
        "{}",
        overview.text
    );
    assert_eq!(
        overview.cents_in("today-total", 0),
        totals.stakes_cents as i64
    );
    assert_eq!(
        overview.cents_in("today-total", 1),
        totals.prizes_cents as i64
    );
    assert!(
        overview
            .text
            .contains(r#"<strong id="live-sessions">2</strong>"#),
        "{}",
        overview.text
    );
    assert_eq!(overview.text.matches("<svg").count(), 2, "two charts");

    // The player's page: balance, sessions, and the recent sales.
    let page = send(
        &router,
        Method::GET,
        "/operator/players/console-real",
        Some(&cookie),
        None,
        &[],
    )
    .await;
    let balance = state
        .store
        .player("console-real")
        .unwrap()
        .unwrap()
        .balance_cents;
    assert!(
        page.text
            .contains(&format!(r#"id="balance" data-cents="{balance}""#)),
        "{}",
        page.text
    );
    let rows = page.text[page.text.find(r#"id="recent-sales""#).unwrap()..]
        .matches("<tr>")
        .count();
    assert_eq!(rows, 1 + 20, "a header and the 20 most recent of 20 sales");
    let found = send(
        &router,
        Method::GET,
        "/operator/players?q=console-",
        Some(&cookie),
        None,
        &[],
    )
    .await;
    assert!(
        found
            .text
            .contains(r#"href="/operator/players/console-real""#),
        "{}",
        found.text
    );
    let none = send(
        &router,
        Method::GET,
        "/operator/players?q=nobody-",
        Some(&cookie),
        None,
        &[],
    )
    .await;
    assert!(!none.text.contains(r#"href="/operator/players/"#));

    // Ending the sessions from the console ends them.
    let token = page.csrf();
    let revoked = send(
        &router,
        Method::POST,
        "/operator/players/console-real/sessions/revoke",
        Some(&cookie),
        Some(&format!("csrf={token}")),
        &[],
    )
    .await;
    assert_eq!(revoked.status, StatusCode::SEE_OTHER);
    let refused = play(&router, &real, 50, "console-after").await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_limit_changed_from_the_console_follows_the_apis_rules() {
    let state = shared().clone();
    let router = app(state.clone());
    let _ = operator_player(&router, &state, "console-limits", 10_000).await;
    let cookie = sign_in(&router, &state).await;
    let path = "/operator/players/console-limits";
    let token = send(&router, Method::GET, path, Some(&cookie), None, &[])
        .await
        .csrf();
    let post = |form: String| {
        let (router, cookie) = (router.clone(), cookie.clone());
        async move {
            send(
                &router,
                Method::POST,
                &format!("{path}/limits"),
                Some(&cookie),
                Some(&form),
                &[],
            )
            .await
        }
    };
    // A first limit applies at once.
    let set = post(format!("csrf={token}&weekly_stake=20%2C50&weekly_loss=")).await;
    assert_eq!(set.status, StatusCode::SEE_OTHER, "{}", set.text);
    let now = state.clock.now_ms();
    let protection = state
        .store
        .protection("console-limits", now)
        .unwrap()
        .unwrap();
    assert_eq!(protection.weekly_stake_limit_cents, Some(2_050));
    // A higher one waits 48 hours.
    let raised = post(format!("csrf={token}&weekly_stake=100&weekly_loss=")).await;
    assert_eq!(raised.status, StatusCode::SEE_OTHER);
    let protection = state
        .store
        .protection("console-limits", now)
        .unwrap()
        .unwrap();
    assert_eq!(protection.weekly_stake_limit_cents, Some(2_050));
    let pending = protection.pending_weekly_stake_limit.unwrap();
    assert_eq!(pending.limit_cents, Some(10_000));
    assert!(pending.effective_at_ms >= now + 48 * 3_600_000);
    // A bad amount is refused and changes nothing.
    let bad = post(format!("csrf={token}&weekly_stake=1.234&weekly_loss=")).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    let audit = state.store.protection_audit("console-limits").unwrap();
    assert_eq!(audit.len(), 2);
    assert!(audit
        .iter()
        .all(|e| e.actor == eldorado_api::AuditActor::Operator));
    let page = send(&router, Method::GET, path, Some(&cookie), None, &[]).await;
    let trail = &page.text[page.text.find(r#"id="audit-trail""#).unwrap()..];
    assert_eq!(
        trail[..trail.find("</table>").unwrap()]
            .matches("weekly_stake_limit")
            .count(),
        2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_ins_are_limited_per_address() {
    use eldorado_server::clock::ManualClock;
    use std::sync::Arc;
    let clock = Arc::new(ManualClock::new(eldorado_server::clock::system_now_ms()));
    let state = tokio::task::spawn_blocking({
        let clock = Arc::clone(&clock);
        move || shared_with(|c| c.limits.console_sign_ins_per_minute = 2, clock)
    })
    .await
    .unwrap();
    let router = app(state.clone());
    let form = format!("key={}", operator_key(&state));
    for attempt in ["key=wrong", "key=wrong"] {
        let page = post_sign_in(&router, attempt).await;
        assert_eq!(page.location(), "/operator/sign-in?failed=true");
    }
    // The right key too waits its turn once the address has tried enough.
    let refused = post_sign_in(&router, &form).await;
    assert_eq!(
        refused.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        refused.text
    );
    assert!(refused.headers.get(header::SET_COOKIE).is_none());
    // Issue 49, item 3: it says when, as its page does (« réessayez dans N s »).
    let wait = refused
        .headers
        .get(header::RETRY_AFTER)
        .expect("the console's 429 carries Retry-After")
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        refused.text.contains(&format!("{wait} s")),
        "Retry-After {wait} and the page's words: {}",
        refused.text
    );
    clock.advance(std::time::Duration::from_secs(60));
    let page = post_sign_in(&router, &form).await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert!(page.headers.get(header::SET_COOKIE).is_some());
}
