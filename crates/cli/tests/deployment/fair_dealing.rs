//! Three servers on one database dealing by one beacon (issue 22), under
//! concurrent purchases on every server: each purchase is dealt once (the
//! dealers of the three servers race for the same purchases), every sale
//! carries evidence that verifies, every (block, position) is sold once,
//! money is conserved to the cent, and `eldorado log audit` re-deals the
//! whole log clean, every round's purchases cosigned before it.

use crate::client::Http;
use crate::servers::Deployment;
use crate::support::dealing::{beacon, witness, witness_vkey};
use eldorado_api::SaleResponse;
use eldorado_engine::commit::verifying_key;
use eldorado_engine::deal::{verify_evidence, BeaconKey};
use eldorado_engine::PublicKeyBytes;
use reqwest::StatusCode;
use std::collections::HashSet;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

const SERVERS: usize = 3;
const CLIENTS: usize = 24;
const PLAYS: usize = 4;
const START_CENTS: u64 = 5_000;
const WITNESS_SECRET: [u8; 32] = [0x24; 32];

#[test]
fn three_servers_deal_each_purchase_once_by_the_beacon() {
    let _machine = crate::machine_shared();
    let dir = tempfile::tempdir().unwrap();
    let (_beacon, beacon_url, beacon_key) = beacon(&dir.path().join("beacon.key"), "127.0.0.1:0");
    let flags: Vec<String> = [
        "--beacon",
        &beacon_url,
        "--beacon-key",
        &beacon_key,
        "--deal-lead-ms",
        "600",
        "--witness",
        &witness_vkey(WITNESS_SECRET),
        "--checkpoint-interval-ms",
        "100",
    ]
    .map(str::to_owned)
    .to_vec();
    let Some(mut deployment) = Deployment::start_with(SERVERS, &flags) else {
        return;
    };
    let runtime = crate::runtime();
    let http = Http::new();
    runtime.block_on(deployment.wait_ready(&http));
    let urls = deployment.urls();
    // The witness, cosigning the shared log through the first server.
    let _witness = witness(dir.path(), &urls[0], WITNESS_SECRET);

    let (operator, beacon) = runtime.block_on(async {
        let (_, config) = http
            .get(&format!("{}/api/config", urls[0]), None)
            .await
            .unwrap();
        let operator = PublicKeyBytes::from_hex(config["public_key"].as_str().unwrap()).unwrap();
        let beacon: [u8; 96] = hex::decode(config["dealing"]["public_key"].as_str().unwrap())
            .unwrap()
            .try_into()
            .unwrap();
        (operator, beacon)
    });
    let operator = verifying_key(&operator).unwrap();
    let beacon = BeaconKey::from_bytes(&beacon).unwrap();

    let acknowledged = Arc::new(AtomicUsize::new(0));
    let sold: Vec<(String, u64, Vec<SaleResponse>)> = runtime.block_on(async {
        let mut tasks = Vec::new();
        for c in 0..CLIENTS {
            let (http, urls, acknowledged) =
                (http.clone(), Arc::clone(&urls), Arc::clone(&acknowledged));
            tasks.push(tokio::spawn(async move {
                let player_id = format!("fair-{c:02}");
                let token = http
                    .operator_player(&urls[c % SERVERS], &player_id, START_CENTS)
                    .await;
                let mut sales = Vec::new();
                for j in 0..PLAYS {
                    let url = &urls[(c + j) % SERVERS];
                    let body = format!(
                        r#"{{"stake_cents":50,"idempotency_key":"fair-{c:02}-play-{j:02}"}}"#
                    );
                    let (status, reply) = http
                        .buy_until_dealt(&format!("{url}/api/sales"), &token, &body)
                        .await
                        .unwrap();
                    assert_eq!(status, StatusCode::OK, "{url}: {reply}");
                    sales.push(serde_json::from_value::<SaleResponse>(reply).unwrap());
                    acknowledged.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                let (_, session) = http
                    .get(
                        &format!("{}/api/session", urls[(c + 1) % SERVERS]),
                        Some(&token),
                    )
                    .await
                    .unwrap();
                (player_id, session["balance_cents"].as_u64().unwrap(), sales)
            }));
        }
        crate::wait_for(&acknowledged, CLIENTS * PLAYS, &tasks).await;
        let mut sold = Vec::new();
        for task in tasks {
            sold.push(task.await.unwrap());
        }
        sold
    });

    let mut tickets = HashSet::new();
    for (player, balance, sales) in &sold {
        let prizes: u64 = sales.iter().map(|s| s.sale.sale.ticket.prize_cents).sum();
        assert_eq!(
            balance + 50 * PLAYS as u64,
            START_CENTS + prizes,
            "{player}: stakes out, prizes in"
        );
        for sale in sales {
            let signed = &sale.sale.sale;
            assert!(tickets.insert((signed.block, signed.ticket.position)));
            let deal = sale.deal.as_ref().expect("each sale shows its deal");
            let parts = deal.parts(signed.tickets, signed.ticket.position).unwrap();
            verify_evidence(&operator, &beacon, signed, &parts)
                .unwrap_or_else(|e| panic!("{player}: sale {}: {e}", signed.sale_id));
        }
    }
    let mut sql = deployment.sql();
    let counts = sql
        .query_one(
            "SELECT COUNT(*), COUNT(sale_id), COUNT(DISTINCT sale_id) FROM purchases",
            &[],
        )
        .unwrap();
    let total = (CLIENTS * PLAYS) as i64;
    assert_eq!(
        (
            counts.get::<_, i64>(0),
            counts.get::<_, i64>(1),
            counts.get::<_, i64>(2)
        ),
        (total, total, total),
        "every purchase dealt once"
    );

    // Every sale on the record, then the whole log re-dealt by a stranger.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while sql
        .query_one("SELECT COUNT(*) FROM sales WHERE log_index IS NULL", &[])
        .unwrap()
        .get::<_, i64>(0)
        > 0
    {
        assert!(std::time::Instant::now() < deadline, "sales never logged");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let audit = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["log", "audit", &urls[1]])
        .env("RUST_LOG", "warn")
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&audit.stdout).into_owned();
    assert!(audit.status.success(), "{report}");
    assert!(
        report.contains(&format!(
            "purchases {total}, dealt by the rule {total}, waiting 0"
        )),
        "{report}"
    );
}
