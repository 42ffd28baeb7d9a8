//! A server killed (SIGKILL) in the middle of the load, the one that runs
//! the public log's sequencer: its clients retry on the other servers with
//! the same idempotency keys. No sale is made twice, no acknowledged sale is
//! lost, and another server takes the sequencer over and logs every sale.

use crate::client::Http;
use crate::servers::Deployment;
use eldorado_engine::SignedSale;
use reqwest::StatusCode;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

const SERVERS: usize = 3;
const CLIENTS: usize = 24;
const PLAYS: usize = 12;
/// Tries of one play across the servers before the test gives up.
const TRIES: usize = 50;

// A plain test driving its own runtime: the database checks use the
// blocking `postgres` client, which may not run on an async thread.
#[test]
fn a_killed_server_loses_no_acknowledged_sale() {
    let _machine = crate::machine_shared();
    let Some(mut deployment) = Deployment::start(SERVERS) else {
        return;
    };
    let runtime = crate::runtime();
    let http = Http::new();
    runtime.block_on(deployment.wait_ready(&http));
    let urls = deployment.urls();
    let killed = runtime.block_on(deployment.sequencer(&http));
    let results = runtime.block_on(async {
        let acknowledged = Arc::new(AtomicUsize::new(0));

        let mut tasks = Vec::new();
        for c in 0..CLIENTS {
            let (http, urls, acknowledged) =
                (http.clone(), Arc::clone(&urls), Arc::clone(&acknowledged));
            tasks.push(tokio::spawn(async move {
                // Every client starts on its home server, a third on the one killed.
                let home = (killed + c) % SERVERS;
                let player_id = format!("killed-{c:02}");
                let token = http.operator_player(&urls[home], &player_id, 5_000).await;
                // Idempotency key → (sale id, block, position), as acknowledged.
                let mut mine: HashMap<String, (i64, i64, i64)> = HashMap::new();
                let mut server = home;
                for j in 0..PLAYS {
                    let key = format!("killed-{c:02}-play-{j:02}");
                    let body = format!(r#"{{"stake_cents":100,"idempotency_key":"{key}"}}"#);
                    let mut tries = 0;
                    let reply = loop {
                        tries += 1;
                        assert!(tries <= TRIES, "client {c}: play {j} never acknowledged");
                        match http
                            .post(&format!("{}/api/sales", urls[server]), Some(&token), &body)
                            .await
                        {
                            Ok((StatusCode::OK, reply)) => break reply,
                            // A refused sale would be a bug: the balance covers all.
                            Ok((status, reply)) if status.is_client_error() => {
                                panic!("client {c}: {status}: {reply}")
                            }
                            // A dead server or a failed batch: the same key on the next one.
                            Ok(_) | Err(_) => {
                                server = (server + 1) % SERVERS;
                                tokio::time::sleep(Duration::from_millis(50)).await;
                            }
                        }
                    };
                    let sale: SignedSale = serde_json::from_value(reply["sale"].clone()).unwrap();
                    mine.insert(
                        key,
                        (
                            sale.sale.sale_id as i64,
                            sale.sale.block as i64,
                            i64::from(sale.sale.ticket.position),
                        ),
                    );
                    acknowledged.fetch_add(1, Ordering::SeqCst);
                }
                (player_id, mine)
            }));
        }
        // Kill the sequencer's server once a third of the plays are
        // acknowledged, while the rest are in flight.
        crate::wait_for(&acknowledged, CLIENTS * PLAYS / 3, &tasks).await;
        deployment.servers[killed].kill();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.unwrap());
        }
        results
    });
    let mut sql = deployment.sql();
    for (player, acknowledged) in results {
        assert_eq!(acknowledged.len(), PLAYS);
        let stored: HashMap<String, (i64, i64, i64)> = sql
            .query(
                "SELECT idempotency_key, sale_id, block, position FROM sales WHERE player_id = $1",
                &[&player],
            )
            .unwrap()
            .iter()
            .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3))))
            .collect();
        // Exactly the acknowledged sales: none lost, none made twice.
        assert_eq!(stored, acknowledged, "{player}");
        let balance: i64 = sql
            .query_one(
                "SELECT balance_cents FROM players WHERE id = $1",
                &[&player],
            )
            .unwrap()
            .get(0);
        let prizes: i64 = sql
            .query_one(
                "SELECT COALESCE(SUM(prize_cents), 0)::BIGINT FROM sales WHERE player_id = $1",
                &[&player],
            )
            .unwrap()
            .get(0);
        assert_eq!(balance + 100 * PLAYS as i64, 5_000 + prizes, "{player}");
    }
    crate::assert_sales_each_of_their_own_ticket(&mut sql, CLIENTS * PLAYS);
    let successor = runtime.block_on(deployment.sequencer(&http));
    assert_ne!(successor, killed);
    crate::wait_until_every_sale_is_logged(&mut sql);
}
