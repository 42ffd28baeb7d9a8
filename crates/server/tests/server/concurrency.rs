//! Many players at once through a real listener: money is conserved to the
//! cent, no ticket is sold twice, no balance goes negative.

use crate::common::*;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use eldorado_engine::{verify_sale, Expected, SignedCommitment, SignedSale};
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use std::collections::HashSet;
use std::net::SocketAddr;

const PLAYERS: usize = 24;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_players_at_once_conserve_money() {
    let state = shared().clone();
    let public_key = state.public_key;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, eldorado_server::app(state)).await });

    let mut tasks = Vec::new();
    for p in 0..PLAYERS {
        tasks.push(tokio::spawn(async move {
            let mut client = Client::connect(addr).await;
            let (status, session) = client.send("POST", "/api/demo/players", None, "{}").await;
            assert_eq!(status, StatusCode::CREATED);
            let token = session["token"].as_str().unwrap().to_owned();
            let player = session["player_id"].as_str().unwrap().to_owned();
            let mut sales: Vec<(u64, SignedSale)> = Vec::new();
            let mut refused = 0;
            for i in 0..PLAYS {
                let stake = [50, 100, 200][(p + i) % 3];
                let body =
                    format!(r#"{{"stake_cents":{stake},"idempotency_key":"conc-{p}-{i:04}"}}"#);
                let (status, reply) = client.send("POST", "/api/sales", Some(&token), &body).await;
                // Every third play is retried at once: same sale, one debit.
                let reply = if i % 3 == 0 && status == StatusCode::OK {
                    let (again_status, again) =
                        client.send("POST", "/api/sales", Some(&token), &body).await;
                    assert_eq!(again_status, StatusCode::OK);
                    assert_eq!(again["sale"], reply["sale"]);
                    again
                } else {
                    reply
                };
                match status {
                    StatusCode::OK => {
                        let sale: SignedSale =
                            serde_json::from_value(reply["sale"].clone()).unwrap();
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
                        sales.push((stake, sale));
                    }
                    StatusCode::PAYMENT_REQUIRED => {
                        assert_eq!(reply["error"]["code"], "INSUFFICIENT_FUNDS");
                        assert!(reply["error"]["message"].is_string());
                        refused += 1;
                    }
                    other => panic!("unexpected {other}: {reply}"),
                }
            }
            let (_, session) = client.send("GET", "/api/session", Some(&token), "").await;
            let balance = session["balance_cents"].as_u64().unwrap();
            (player, balance, sales, refused)
        }));
    }
    let mut tickets = HashSet::new();
    let (mut balances, mut stakes, mut prizes, mut sold) = (0u64, 0u64, 0u64, 0usize);
    for task in tasks {
        let (player, balance, sales, refused) = task.await.unwrap();
        // Every play is either a sale or a counted refusal.
        assert_eq!(sales.len() + refused, PLAYS, "player {player}");
        let mine_stakes: u64 = sales.iter().map(|(s, _)| s).sum();
        let mine_prizes: u64 = sales.iter().map(|(_, s)| s.sale.ticket.prize_cents).sum();
        assert_eq!(balance + mine_stakes, 5000 + mine_prizes, "player {player}");
        for (_, sale) in &sales {
            assert_eq!(sale.sale.player, player);
            assert!(
                tickets.insert((sale.sale.block, sale.sale.ticket.position)),
                "sold twice"
            );
        }
        balances += balance;
        stakes += mine_stakes;
        prizes += mine_prizes;
        sold += sales.len();
    }
    assert_eq!(5000 * PLAYERS as u64, balances + stakes - prizes);
    assert!(sold > PLAYERS * PLAYS / 2, "{sold}");
    // Across the whole store (other tests included), to the cent.
    let totals = shared().store.totals().unwrap();
    assert!(totals.sales >= sold as u64);
}
