//! Many players at once through a real listener: money is conserved to the
//! cent, every play is either sold or refused for a reason the player's own
//! balance confirms, and no ticket is sold twice or skipped.

use crate::common::*;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use eldorado_engine::{verify_sale, Expected, SignedCommitment, SignedSale};
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;

const PLAYS: usize = 30;

/// One HTTP/1.1 connection per player, kept alive.
struct Client {
    sender: hyper::client::conn::http1::SendRequest<Body>,
}

impl Client {
    async fn connect(addr: SocketAddr) -> Client {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(connection);
        Client { sender }
    }

    async fn send(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &str,
    ) -> (StatusCode, Value) {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "127.0.0.1");
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let request = request.body(Body::from(body.to_owned())).unwrap();
        self.sender.ready().await.unwrap();
        let response = self.sender.send_request(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }
}

/// Who plays: demo players, operator players with a few coins (they run out,
/// so refusals happen under load), and operator players who cannot afford
/// a single ticket (every one of their plays is refused).
#[derive(Clone, Copy, Debug)]
enum Wallet {
    Demo,
    Credited(u64),
}

const WALLETS: [(Wallet, usize); 3] = [
    (Wallet::Demo, 16),
    (Wallet::Credited(300), 6),
    (Wallet::Credited(30), 2),
];

/// What one player saw, checked reply by reply against its own balance.
struct Run {
    player: String,
    credited: u64,
    balance: u64,
    sales: Vec<(u64, SignedSale)>,
    refused: usize,
}

async fn play_all(
    addr: SocketAddr,
    p: usize,
    wallet: Wallet,
    public_key: eldorado_engine::PublicKeyBytes,
    operator_key: String,
) -> Run {
    let mut client = Client::connect(addr).await;
    let (token, player, credited) = match wallet {
        Wallet::Demo => {
            let (status, session) = client.send("POST", "/api/demo/players", None, "{}").await;
            assert_eq!(status, StatusCode::CREATED, "{session}");
            let credited = session["balance_cents"].as_u64().unwrap();
            (
                session["token"].clone(),
                session["player_id"].clone(),
                credited,
            )
        }
        Wallet::Credited(cents) => {
            let player = format!("ext-conc-{p}");
            let body = format!(r#"{{"player_id":"{player}"}}"#);
            let (status, session) = client
                .send("POST", "/api/operator/sessions", Some(&operator_key), &body)
                .await;
            assert_eq!(status, StatusCode::CREATED, "{session}");
            let body = format!(r#"{{"amount_cents":{cents},"reference":"conc-{p}"}}"#);
            let path = format!("/api/operator/players/{player}/credit");
            let (status, credit) = client.send("POST", &path, Some(&operator_key), &body).await;
            assert_eq!(status, StatusCode::OK, "{credit}");
            assert_eq!(credit["balance_cents"], cents);
            (
                session["token"].clone(),
                session["player_id"].clone(),
                cents,
            )
        }
    };
    let token = token.as_str().unwrap().to_owned();
    let player = player.as_str().unwrap().to_owned();
    let mut balance = credited;
    let mut sales: Vec<(u64, SignedSale)> = Vec::new();
    let mut refused = 0;
    for i in 0..PLAYS {
        let stake = [50, 100, 200][(p + i) % 3];
        let body = format!(r#"{{"stake_cents":{stake},"idempotency_key":"conc-{p}-{i:04}"}}"#);
        let (status, reply) = client.send("POST", "/api/sales", Some(&token), &body).await;
        match status {
            StatusCode::OK => {
                let sale: SignedSale = serde_json::from_value(reply["sale"].clone()).unwrap();
                let commitment: SignedCommitment =
                    serde_json::from_value(reply["commitment"].clone()).unwrap();
                assert!(verify_sale(
                    &sale,
                    &commitment,
                    &public_key,
                    &Expected {
                        stake_cents: Some(stake),
                        ..Expected::default()
                    }
                )
                .is_verified());
                assert_eq!(sale.sale.player, player);
                // This player's requests are sequential: its balance is known.
                assert_eq!(reply["balance_before_cents"], balance, "{player} play {i}");
                assert!(balance >= stake);
                balance = balance - stake + sale.sale.ticket.prize_cents;
                assert_eq!(reply["balance_after_cents"], balance, "{player} play {i}");
                // Every third sale is retried at once: the same sale, one debit.
                if i % 3 == 0 {
                    let (again_status, again) =
                        client.send("POST", "/api/sales", Some(&token), &body).await;
                    assert_eq!(again_status, StatusCode::OK, "{again}");
                    assert_eq!(again["sale"], reply["sale"]);
                    assert_eq!(again["balance_after_cents"], balance);
                }
                sales.push((stake, sale));
            }
            StatusCode::PAYMENT_REQUIRED => {
                assert_eq!(reply["error"]["code"], "INSUFFICIENT_FUNDS");
                assert!(reply["error"]["message"].is_string());
                assert!(balance < stake, "{player} refused {stake} with {balance}");
                refused += 1;
            }
            other => panic!("unexpected {other}: {reply}"),
        }
    }
    let (_, session) = client.send("GET", "/api/session", Some(&token), "").await;
    assert_eq!(session["balance_cents"], balance, "{player}");
    Run {
        player,
        credited,
        balance,
        sales,
        refused,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_players_at_once_conserve_money() {
    // Its own server: the store's totals are this test's alone.
    let state = fresh_server("concurrency");
    let public_key = state.public_key;
    let key = operator_key(&state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server_state = state.clone();
    tokio::spawn(async move { axum::serve(listener, eldorado_server::app(server_state)).await });

    let wallets = WALLETS
        .iter()
        .flat_map(|&(wallet, players)| std::iter::repeat_n(wallet, players));
    let tasks: Vec<_> = wallets
        .enumerate()
        .map(|(p, wallet)| {
            let run = play_all(addr, p, wallet, public_key, key.clone());
            (wallet, tokio::spawn(run))
        })
        .collect();
    let players = tasks.len();
    let mut tickets: HashMap<u64, HashSet<u64>> = HashMap::new();
    let (mut credits, mut balances, mut stakes, mut prizes) = (0u64, 0u64, 0u64, 0u64);
    let (mut sold, mut refused) = (0usize, 0usize);
    for (wallet, task) in tasks {
        let run = task.await.unwrap();
        if let Wallet::Credited(cents) = wallet {
            if cents < 50 {
                assert_eq!(run.refused, PLAYS, "{} cannot afford a ticket", run.player);
            }
        }
        let mine_stakes: u64 = run.sales.iter().map(|(s, _)| s).sum();
        let mine_prizes: u64 = run
            .sales
            .iter()
            .map(|(_, s)| s.sale.ticket.prize_cents)
            .sum();
        assert_eq!(
            run.balance + mine_stakes,
            run.credited + mine_prizes,
            "player {}",
            run.player
        );
        assert_eq!(run.sales.len() + run.refused, PLAYS, "{}", run.player);
        for (_, sale) in &run.sales {
            assert!(
                tickets
                    .entry(sale.sale.block)
                    .or_default()
                    .insert(u64::from(sale.sale.ticket.position)),
                "block {} ticket {} sold twice",
                sale.sale.block,
                sale.sale.ticket.position
            );
        }
        credits += run.credited;
        balances += run.balance;
        stakes += mine_stakes;
        prizes += mine_prizes;
        sold += run.sales.len();
        refused += run.refused;
    }
    assert_eq!(
        sold + refused,
        players * PLAYS,
        "every play sold or refused"
    );
    // At least the players who cannot afford a ticket were refused.
    assert!(refused >= 2 * PLAYS, "{refused}");
    assert_eq!(credits + prizes, balances + stakes, "money is conserved");
    // Each block sold a gapless prefix of its tickets.
    for (block, positions) in &tickets {
        let count = positions.len() as u64;
        assert!(positions.iter().all(|&p| p < count), "block {block}: a gap");
    }
    // The store agrees to the cent: nothing was sold or credited but this.
    let totals = state.store.totals().unwrap();
    assert_eq!(totals.sales, sold as u64);
    assert_eq!(totals.stakes_cents, stakes);
    assert_eq!(totals.prizes_cents, prizes);
    assert_eq!(totals.balances_cents, balances);
    assert_eq!(
        totals.balances_cents + totals.stakes_cents - totals.prizes_cents,
        credits
    );
}
