//! Three servers on one database under 64-way concurrent sales, with a
//! block switch-over made on one server in the middle: money is conserved
//! to the cent, every (block, position) is sold once, and every sale from
//! every server verifies against one operator key.

use crate::client::Http;
use crate::servers::{Deployment, API_KEY};
use eldorado_engine::{verify_sale, Expected, PublicKeyBytes, SignedCommitment, SignedSale};
use reqwest::StatusCode;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const SERVERS: usize = 3;
const CLIENTS: usize = 64;
const PLAYS: usize = 8;
const START_CENTS: u64 = 5_000;

/// What one client was sold: (stake, block, position, prize).
type Sold = Vec<(u64, u64, u32, u64)>;

// A plain test driving its own runtime: the database checks use the
// blocking `postgres` client, which may not run on an async thread.
#[test]
fn three_servers_sell_each_ticket_once_and_conserve_money() {
    let _machine = crate::machine_shared();
    let Some(mut deployment) = Deployment::start(SERVERS) else {
        return;
    };
    let runtime = crate::runtime();
    let http = Http::new();
    runtime.block_on(deployment.wait_ready(&http));
    let urls = deployment.urls();

    // Half-way through, the open 1-euro block is closed on server 0 while
    // every server keeps selling: they all switch to the next block.
    let to_close: i64 = deployment
        .sql()
        .query_one(
            "SELECT id FROM blocks WHERE stake_cents = 100 AND status = 'open'",
            &[],
        )
        .unwrap()
        .get(0);
    let (balances, stakes, prizes, sales) = runtime.block_on(async {
        // One operator key for the whole deployment, never generated twice.
        let mut keys = HashSet::new();
        for url in urls.iter() {
            let (_, config) = http.get(&format!("{url}/api/config"), None).await.unwrap();
            keys.insert(config["public_key"].as_str().unwrap().to_owned());
        }
        assert_eq!(keys.len(), 1, "{keys:?}");
        let public_key = PublicKeyBytes::from_hex(keys.iter().next().unwrap()).unwrap();

        let acknowledged = Arc::new(AtomicUsize::new(0));

        let mut tasks = Vec::new();
        for c in 0..CLIENTS {
            let (http, urls, acknowledged) =
                (http.clone(), Arc::clone(&urls), Arc::clone(&acknowledged));
            tasks.push(tokio::spawn(async move {
                let home = &urls[c % SERVERS];
                let player_id = format!("concurrent-{c:02}");
                let token = http.operator_player(home, &player_id, START_CENTS).await;
                let mut sold: Sold = Vec::new();
                for j in 0..PLAYS {
                    // Every play on another server than the last: no stickiness.
                    let url = &urls[(c + j) % SERVERS];
                    let stake = [50, 100, 200][(c + j) % 3];
                    let body = format!(
                        r#"{{"stake_cents":{stake},"idempotency_key":"client-{c:02}-play-{j:02}"}}"#
                    );
                    let (status, reply) = http
                        .post(&format!("{url}/api/sales"), Some(&token), &body)
                        .await
                        .unwrap();
                    assert_eq!(status, StatusCode::OK, "{url}: {reply}");
                    let sale: SignedSale = serde_json::from_value(reply["sale"].clone()).unwrap();
                    let commitment: SignedCommitment =
                        serde_json::from_value(reply["commitment"].clone()).unwrap();
                    let report = verify_sale(
                        &sale,
                        &commitment,
                        &public_key,
                        &Expected {
                            stake_cents: Some(stake),
                            ..Expected::default()
                        },
                    );
                    assert!(report.is_verified(), "{url}: {:?}", report.first_failure());
                    assert_eq!(sale.sale.player, player_id);
                    sold.push((
                        stake,
                        sale.sale.block,
                        sale.sale.ticket.position,
                        sale.sale.ticket.prize_cents,
                    ));
                    acknowledged.fetch_add(1, Ordering::SeqCst);
                }
                // The balance, read on yet another server.
                let url = &urls[(c + 1) % SERVERS];
                let (_, session) = http
                    .get(&format!("{url}/api/session"), Some(&token))
                    .await
                    .unwrap();
                let balance = session["balance_cents"].as_u64().unwrap();
                (player_id, balance, sold)
            }));
        }
        crate::wait_for(&acknowledged, CLIENTS * PLAYS / 2, &tasks).await;
        let (status, closed) = http
            .post(
                &format!("{}/api/operator/blocks/{to_close}/close", urls[0]),
                Some(API_KEY),
                "{}",
            )
            .await
            .unwrap();
        assert_eq!(status, StatusCode::OK, "{closed}");

        let mut tickets = HashSet::new();
        let mut blocks_of_one_euro = HashSet::new();
        let (mut balances, mut stakes, mut prizes, mut sales) = (0u64, 0u64, 0u64, 0i64);
        for task in tasks {
            let (player, balance, sold) = task.await.unwrap();
            let my_stakes: u64 = sold.iter().map(|s| s.0).sum();
            let my_prizes: u64 = sold.iter().map(|s| s.3).sum();
            assert_eq!(balance + my_stakes, START_CENTS + my_prizes, "{player}");
            for &(stake, block, position, _) in &sold {
                assert!(
                    tickets.insert((block, position)),
                    "sold twice: {block}/{position}"
                );
                if stake == 100 {
                    blocks_of_one_euro.insert(block);
                }
            }
            balances += balance;
            stakes += my_stakes;
            prizes += my_prizes;
            sales += sold.len() as i64;
        }
        assert_eq!(balances + stakes, START_CENTS * CLIENTS as u64 + prizes);
        assert!(blocks_of_one_euro.contains(&(to_close as u64)));
        assert_eq!(blocks_of_one_euro.len(), 2, "{blocks_of_one_euro:?}");

        // The connection pool's series of deploy/grafana's dashboard, which
        // only a server on PostgreSQL exports.
        let scrape = reqwest::Client::new()
            .get(format!("{}/metrics", urls[0]))
            .bearer_auth(API_KEY)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        for name in [
            "eldorado_db_pool_connections{",
            "eldorado_db_pool_wait_seconds_bucket{",
        ] {
            assert!(scrape.contains(name), "{name} missing:\n{scrape}");
        }

        (balances, stakes, prizes, sales)
    });
    // The database agrees: one row per acknowledged sale, each ticket once,
    // and the money to the cent.
    let mut sql = deployment.sql();
    let row = sql
        .query_one(
            "SELECT COUNT(*), COUNT(DISTINCT (block, position)), \
             (SELECT SUM(balance_cents) FROM players)::BIGINT, \
             SUM(stake_cents)::BIGINT, SUM(prize_cents)::BIGINT FROM sales",
            &[],
        )
        .unwrap();
    let (count, distinct, db_balances, db_stakes, db_prizes): (i64, i64, i64, i64, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
    assert_eq!((count, distinct), (sales, sales));
    assert_eq!(
        (db_balances as u64, db_stakes as u64, db_prizes as u64),
        (balances, stakes, prizes)
    );
    // One server at a time generated: never more than one open and one
    // pending block per stake, and each block id once.
    let live: Vec<(i64, i64)> = sql
        .query(
            "SELECT stake_cents, COUNT(*) FROM blocks WHERE status IN ('open','pending') \
             GROUP BY stake_cents ORDER BY stake_cents",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert!(live.iter().all(|&(_, n)| n <= 2), "{live:?}");
    let open: i64 = sql
        .query_one("SELECT COUNT(*) FROM blocks WHERE status = 'open'", &[])
        .unwrap()
        .get(0);
    assert_eq!(open, 3);

    // The deployment's sequencer kept one public log: each record once
    // (one snapshot: records = what is marked logged), every sale logged
    // within a bounded wait, and the whole log audits clean (the closed
    // block's export included).
    crate::wait_until_every_sale_is_logged(&mut sql);
    let audit = std::process::Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["log", "audit", &urls[1]])
        .env("NO_COLOR", "1")
        .output()
        .expect("the audit runs");
    assert!(
        audit.status.success(),
        "{}{}",
        String::from_utf8_lossy(&audit.stdout),
        String::from_utf8_lossy(&audit.stderr)
    );
}
