//! `GET /metrics`: the operator's Prometheus figures, behind the operator
//! key, telling counts per stake and money but nothing of unsold prizes.

use crate::common::*;
use axum::http::{Method, StatusCode};
use eldorado_server::app;

fn text(reply: &Reply) -> String {
    String::from_utf8(reply.raw.clone()).unwrap()
}

/// The value of the sample `name{labels}` (labels as Prometheus prints
/// them), if the text has it.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map(|value| value.trim().parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_sales_and_tickets_left_for_the_operator_only() {
    let state = tokio::task::spawn_blocking(|| fresh_server("metrics"))
        .await
        .unwrap();
    let router = app(state.clone());
    let refused = call(&router, Method::GET, "/metrics", None, None).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    let key = operator_key(&state);

    let before = call(&router, Method::GET, "/metrics", Some(&key), None).await;
    assert_eq!(before.status, StatusCode::OK);
    let before = text(&before);
    let left = r#"eldorado_tickets_left{stake_cents="100",money="play"}"#;
    let left_before = sample(&before, left).unwrap_or_else(|| panic!("{before}"));

    let (token, _) = demo_player(&router).await;
    for i in 0..3 {
        let reply = play(&router, &token, 100, &format!("metrics-{i:04}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    }
    let refused = play(&router, &token, 75, "metrics-bad-stake").await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);

    let after = text(&call(&router, Method::GET, "/metrics", Some(&key), None).await);
    // The process's counters are shared by every server of this test
    // binary: compare with what they were, never with absolute values.
    assert_eq!(sample(&after, left), Some(left_before - 3.0), "{after}");
    let sold = r#"eldorado_sales_total{outcome="sold",stake_cents="100",money="play"}"#;
    assert!(sample(&after, sold).unwrap() >= 3.0, "{after}");
    assert!(
        sample(
            &after,
            r#"eldorado_sales_total{outcome="INVALID_STAKE",stake_cents="invalid",money="unknown"}"#
        )
        .is_some(),
        "{after}"
    );
    for series in [
        "eldorado_sale_seconds_bucket",
        "eldorado_sale_batch_size_bucket",
        "eldorado_stakes_cents_total",
        "eldorado_http_errors_total{code=\"INVALID_STAKE\"}",
        "eldorado_log_size",
        "eldorado_sale_writer_up 1",
    ] {
        assert!(after.contains(series), "{series} missing:\n{after}");
    }
    // Every series the Grafana dashboard queries is exported (those of the
    // seamless wallet by a server with one, `seamless_wallet.rs`; those of
    // the connection pool by one on PostgreSQL, the deployment tests).
    let series = dashboard_series();
    assert!(series.len() >= 15, "{series:?}");
    for name in &series {
        assert!(
            scrape_has(&after, name)
                || WALLET_SERIES.contains(&name.as_str())
                || POSTGRES_SERIES.contains(&name.as_str()),
            "the dashboard queries {name}, which /metrics does not export:\n{after}"
        );
    }
    assert!(WALLET_SERIES
        .iter()
        .chain(&POSTGRES_SERIES)
        .all(|name| series.contains(*name)));
    // The whole text parses as Prometheus's format, and the parsed samples
    // agree with the store: tickets left on the 1 € play-money line.
    let scrape = prometheus_parse::Scrape::parse(after.lines().map(|l| Ok(l.to_owned())))
        .expect("the Prometheus text format");
    let open_play_100: u64 = state
        .store
        .blocks()
        .unwrap()
        .iter()
        .filter(|b| !b.status.is_finished() && b.stake_cents() == 100)
        .filter(|b| b.money() == eldorado_engine::Money::Play)
        .map(|b| u64::from(b.signed.commitment.tickets - b.sold))
        .sum();
    let parsed = scrape
        .samples
        .iter()
        .find(|s| {
            s.metric == "eldorado_tickets_left"
                && s.labels.get("stake_cents") == Some("100")
                && s.labels.get("money") == Some("play")
        })
        .expect("tickets left of the 1 € play line");
    assert!(
        matches!(parsed.value, prometheus_parse::Value::Gauge(v) if v == open_play_100 as f64),
        "{:?} vs {open_play_100}",
        parsed.value
    );
    // Counts only: no series names a prize of a block still on sale.
    for line in after.lines().filter(|l| !l.starts_with('#')) {
        let name = line.split(['{', ' ']).next().unwrap();
        assert!(
            !name.contains("prize") || name == "eldorado_prizes_cents_total",
            "{line}"
        );
        assert!(!line.contains("rank"), "{line}");
    }
}
