//! `GET /api/operator/reports/daily`: every figure reconciles with the
//! sales to the cent, and a finished block's prize counts match the rules.

use crate::common::*;
use axum::http::{Method, StatusCode};
use eldorado_api::DailyReport;
use eldorado_server::app;

fn today() -> String {
    let days = eldorado_server::clock::system_now_ms() / 86_400_000;
    time::Date::from_julian_day(days as i32 + 2_440_588)
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_report_reconciles_with_the_sales_to_the_cent() {
    let state = tokio::task::spawn_blocking(|| fresh_mixed_server("reports"))
        .await
        .unwrap();
    let router = app(state.clone());
    let key = operator_key(&state);
    let credit = call(
        &router,
        Method::POST,
        "/api/operator/players/report-real/credit",
        Some(&key),
        Some(r#"{"amount_cents":100000,"reference":"report-seed"}"#),
    )
    .await;
    assert_eq!(credit.status, StatusCode::OK, "{}", credit.body);
    let session = call(
        &router,
        Method::POST,
        "/api/operator/sessions",
        Some(&key),
        Some(r#"{"player_id":"report-real"}"#),
    )
    .await;
    let real = session.body["token"].as_str().unwrap().to_owned();
    let (play_money, _) = demo_player(&router).await;
    for i in 0..30 {
        let stake = [50, 100, 200][i % 3];
        let token = if i % 2 == 0 { &real } else { &play_money };
        let reply = play(&router, token, stake, &format!("report-{i:05}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    }
    // A block closed early is reported with what it paid against the rules.
    let open = open_block_of(&router, 100, "real").await;
    let closed_id = open["commitment"]["block"].as_u64().unwrap();
    let closed = call(
        &router,
        Method::POST,
        &format!("/api/operator/blocks/{closed_id}/close"),
        Some(&key),
        Some("{}"),
    )
    .await;
    assert_eq!(closed.status, StatusCode::OK, "{}", closed.body);

    let day = today();
    let path = format!("/api/operator/reports/daily?from={day}&to={day}");
    let refused = call(&router, Method::GET, &path, None, None).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    let reply = call(&router, Method::GET, &path, Some(&key), None).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let report: DailyReport = serde_json::from_value(reply.body).unwrap();
    let totals = state.store.totals().unwrap();
    let tickets: u64 = report.days.iter().map(|d| d.tickets).sum();
    let stakes: u64 = report.days.iter().map(|d| d.stakes_cents).sum();
    let prizes: u64 = report.days.iter().map(|d| d.prizes_cents).sum();
    assert_eq!(
        (tickets, stakes, prizes),
        (30, totals.stakes_cents, totals.prizes_cents)
    );
    assert_eq!(
        report.days.len(),
        6,
        "3 stakes × 2 moneys: {:?}",
        report.days
    );
    for row in &report.days {
        assert_eq!(row.day, day);
        assert_eq!(row.tickets * row.stake_cents, row.stakes_cents);
        assert_eq!(
            row.ggr_cents,
            row.stakes_cents as i64 - row.prizes_cents as i64
        );
        assert_eq!(
            row.rtp_basis_points,
            row.prizes_cents * 10_000 / row.stakes_cents
        );
    }
    let block = report
        .blocks
        .iter()
        .find(|b| b.block == closed_id)
        .expect("the closed block is reported");
    assert_eq!(block.status, "closed");
    let in_block: Vec<_> = state
        .store
        .history("report-real", None, 100)
        .unwrap()
        .into_iter()
        .filter(|s| s.block == closed_id)
        .collect();
    assert_eq!(block.sold as usize, in_block.len());
    let paid: u64 = block
        .ranks
        .iter()
        .map(|r| u64::from(r.sold) * r.prize_cents)
        .sum();
    assert_eq!(
        paid,
        in_block.iter().map(|s| s.ticket.prize_cents).sum::<u64>()
    );
    assert_eq!(block.ranks.len(), 10);
    assert!(block.ranks.iter().all(|r| r.sold <= r.in_rules));

    let csv = call(
        &router,
        Method::GET,
        &format!("{path}&format=csv"),
        Some(&key),
        None,
    )
    .await;
    assert_eq!(csv.status, StatusCode::OK);
    let text = String::from_utf8(csv.raw).unwrap();
    assert!(
        text.starts_with(
            "day,stake_cents,money,tickets,stakes_cents,prizes_cents,ggr_cents,rtp_basis_points\n"
        ),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1 + report.days.len());

    // No day when `to` comes before `from`; too many days and non-days refused.
    let empty = call(
        &router,
        Method::GET,
        "/api/operator/reports/daily?from=2026-12-05&to=2026-12-04",
        Some(&key),
        None,
    )
    .await;
    assert_eq!(empty.status, StatusCode::OK);
    assert_eq!(empty.body["days"], serde_json::json!([]));
    for (query, status) in [
        ("from=2020-01-01&to=2026-01-01", StatusCode::FORBIDDEN),
        ("from=2026-02-30&to=2026-03-01", StatusCode::BAD_REQUEST),
        ("from=2026-12-05", StatusCode::BAD_REQUEST),
        (
            "from=2026-12-05&to=2026-12-05&format=xml",
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let path = format!("/api/operator/reports/daily?{query}");
        let reply = call(&router, Method::GET, &path, Some(&key), None).await;
        assert_eq!(reply.status, status, "{query}: {}", reply.body);
    }
}
