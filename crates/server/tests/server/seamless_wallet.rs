//! `eldorado serve --wallet`: sales paid from the operator's wallet (the
//! stub of `wallet_stub`), exactly once across both systems whatever the
//! wallet does. Blocks are drawn from the test seed, so every ticket and
//! prize is known; in every case the operator's balance ends at
//! initial − stakes + prizes of the tickets sold, to the cent.

use crate::common::*;
use crate::wallet_stub::{DebitMode, SettleMode, Stub, SECRET};
use axum::http::{Method, StatusCode};
use axum::Router;
use eldorado_api::seamless::DebitCall;
use eldorado_engine::{Block, ClientNonce, Stake};
use eldorado_server::config::{OutboxConfig, WalletConfig};
use eldorado_server::store::SaleRequest;
use eldorado_server::wallet_client::{NoAnswer, WalletClient};
use eldorado_server::{app, AppState, Config};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Long enough for a loaded test machine: no answer the stub gives in time
/// can miss it, and its late answers come twice as late.
const TIMEOUT: Duration = Duration::from_secs(5);

async fn stub() -> Stub {
    Stub::start(TIMEOUT * 2).await
}

fn wallet(url: &str, secret: &[u8]) -> WalletConfig {
    WalletConfig {
        url: url.to_owned(),
        secret: secret.to_vec(),
        timeout: TIMEOUT,
        // The tests drain the outbox themselves.
        retry: Duration::from_secs(3_600),
        ca_pem: None,
        insecure_http: false,
        outbox: OutboxConfig {
            retry_max: Duration::from_secs(3_600),
            ..OutboxConfig::default()
        },
    }
}

/// `--wallet URL --demo-seed N`: real-money blocks drawn from the seed.
fn wallet_config(dir: &Path, url: &str) -> Config {
    let mut config = Config::new(dir);
    config.demo_seed = Some(DEMO_SEED);
    config.web_dir = dir.join("web");
    config.limits.sales_per_second = u32::MAX;
    config.wallet = Some(wallet(url, SECRET));
    config
}

fn wallet_template() -> &'static Path {
    static TEMPLATE: OnceLock<(PathBuf, AppState)> = OnceLock::new();
    &TEMPLATE
        .get_or_init(|| {
            make_template("wallet-template", |dir| {
                wallet_config(dir, "http://127.0.0.1:9/unused")
            })
        })
        .0
}

async fn wallet_server(name: &str, stub: &Stub) -> (PathBuf, AppState) {
    let name = name.to_owned();
    let url = stub.url.clone();
    tokio::task::spawn_blocking(move || {
        let dir = data_dir(&name);
        copy_tree(wallet_template(), &dir);
        let state = AppState::start_blocking(wallet_config(&dir, &url)).unwrap();
        (dir, state)
    })
    .await
    .unwrap()
}

/// A session for an operator player whose money the stub holds.
async fn session(router: &Router, state: &AppState, stub: &Stub, player: &str) -> String {
    let created = call(
        router,
        Method::POST,
        "/api/operator/sessions",
        Some(&operator_key(state)),
        Some(&format!(r#"{{"player_id":"{player}"}}"#)),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    assert_eq!(created.body["money"], "real");
    assert_eq!(created.body["balance_cents"], stub.balance(player));
    created.body["token"].as_str().unwrap().to_owned()
}

/// The real-money block on sale at 50 cents, as the seed generated it.
async fn open_block_50(router: &Router) -> Block {
    let open = open_block_of(router, 50, "real").await;
    assert_eq!(open["commitment"]["money"], "real");
    seeded_block(open["commitment"]["block"].as_u64().unwrap(), 50)
}

/// Sells and answers: the stub's balance is the game's record of it.
fn assert_reconciled(state: &AppState, stub: &Stub, players: &[(&str, u64)]) {
    assert!(
        state.store.outbox_due(10).unwrap().is_empty(),
        "the outbox is drained"
    );
    let mut tickets = HashSet::new();
    for &(player, initial) in players {
        let sales = state.store.history(player, None, 1_000).unwrap();
        for sale in &sales {
            assert!(
                tickets.insert((sale.block, sale.ticket.position)),
                "ticket sold twice: {sale:?}"
            );
        }
        let stakes: u64 = sales.iter().map(|s| s.ticket.stake_cents).sum();
        let prizes: u64 = sales.iter().map(|s| s.ticket.prize_cents).sum();
        assert_eq!(
            stub.balance(player),
            initial - stakes + prizes,
            "{player}: {} sales",
            sales.len()
        );
    }
}

async fn drain(state: &AppState) -> eldorado_server::seamless_wallet::Drained {
    state.wallet.as_ref().unwrap().drain().await.unwrap()
}

fn last_debit(stub: &Stub) -> String {
    stub.calls("debit").last().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepted_debits_sell_once_and_prizes_are_credited_once() {
    let stub = stub().await;
    let (_dir, state) = wallet_server("wallet-accept", &stub).await;
    let router = app(state.clone());
    stub.set_balance("casino-ann", 5_000);
    let token = session(&router, &state, &stub, "casino-ann").await;
    let block = open_block_50(&router).await;
    let first_win = block
        .tickets
        .iter()
        .position(|t| t.prize_cents > 0)
        .unwrap();
    assert!(
        first_win < 90,
        "the seed's first win comes early: {first_win}"
    );

    let mut winning = None;
    for i in 0..=first_win {
        let reply = play(&router, &token, 50, &format!("accept-{i:04}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        assert_verified(&reply.body, &public_key(&state), 50, "casino-ann");
        assert_eq!(reply.body["sale"]["ticket"]["position"], i);
        assert_eq!(
            reply.body["sale"]["ticket"]["prize_cents"],
            block.tickets[i].prize_cents
        );
        // The operator held this before the debit (no prize credited yet).
        let before = 5_000 - 50 * i as u64;
        assert_eq!(reply.body["balance_before_cents"], before);
        assert_eq!(
            reply.body["balance_after_cents"],
            before - 50 + block.tickets[i].prize_cents
        );
        winning = Some(reply);
    }
    let winning = winning.unwrap();
    let sold = first_win as u64 + 1;
    assert_eq!(stub.balance("casino-ann"), 5_000 - 50 * sold);
    assert_eq!(stub.calls("debit").len() as u64, sold);

    // A retried key is the same sale: no second debit.
    let again = play(&router, &token, 50, &format!("accept-{first_win:04}")).await;
    assert_eq!(again.raw, winning.raw);
    assert_eq!(stub.calls("debit").len() as u64, sold);

    // The prize was queued with the sale and is paid once.
    let round = winning.body["sale"]["sale_id"].as_u64().unwrap();
    let credit = state.store.outbox_due(10).unwrap();
    assert_eq!(credit.len(), 1, "{credit:?} (sale {round})");
    assert_eq!(
        credit[0].item.amount_cents,
        block.tickets[first_win].prize_cents
    );
    assert_eq!(
        credit[0].item.transaction_id,
        format!("credit:{}", credit[0].item.round_id)
    );
    let drained = drain(&state).await;
    assert_eq!((drained.acknowledged, drained.failed), (1, 0));
    assert_eq!(
        stub.calls("credit"),
        vec![credit[0].item.transaction_id.clone()]
    );
    assert_eq!(drain(&state).await.acknowledged, 0);
    assert_reconciled(&state, &stub, &[("casino-ann", 5_000)]);

    // The session shows the operator's balance.
    let shown = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(shown.body["balance_cents"], stub.balance("casino-ann"));
    // Without an answer there is no balance to show, and no new session.
    stub.balance_down(true);
    let shown = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(shown.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(shown.body["error"]["code"], "WALLET_UNAVAILABLE");
    let refused = call(
        &router,
        Method::POST,
        "/api/operator/sessions",
        Some(&operator_key(&state)),
        Some(r#"{"player_id":"casino-new"}"#),
    )
    .await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(state.store.player("casino-new").unwrap().is_none());
    stub.balance_down(false);

    // The stub refuses a call signed with another secret, and moves nothing.
    let forger = WalletClient::new(&wallet(&stub.url, b"not-the-secret"));
    let forged = forger
        .debit(&DebitCall {
            transaction_id: "debit:forged".to_owned(),
            round_id: "forged".to_owned(),
            player_id: "casino-ann".to_owned(),
            amount_cents: 50,
        })
        .await;
    assert!(matches!(forged, Err(NoAnswer::Status(401))), "{forged:?}");
    assert_eq!(stub.bad_signatures(), 1);
    assert_reconciled(&state, &stub, &[("casino-ann", 5_000)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_debits_give_the_ticket_to_the_next_buyer() {
    let stub = stub().await;
    let (_dir, state) = wallet_server("wallet-refused", &stub).await;
    let router = app(state.clone());
    let players = [
        ("casino-poor", 30),
        ("casino-blocked", 500),
        ("casino-rich", 500),
    ];
    for (player, cents) in players {
        stub.set_balance(player, cents);
    }
    let poor = session(&router, &state, &stub, "casino-poor").await;
    let blocked = session(&router, &state, &stub, "casino-blocked").await;
    let rich = session(&router, &state, &stub, "casino-rich").await;
    let block = open_block_50(&router).await;

    let refused = play(&router, &poor, 50, "poor-0001").await;
    assert_eq!(refused.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(refused.body["error"]["code"], "INSUFFICIENT_FUNDS");
    assert!(
        refused.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("30 cents"),
        "{}",
        refused.body
    );
    stub.debit_mode(DebitMode::Refuse);
    let forbidden = play(&router, &blocked, 50, "blocked-0001").await;
    assert_eq!(forbidden.status, StatusCode::FORBIDDEN);
    assert_eq!(forbidden.body["error"]["code"], "FORBIDDEN");
    stub.debit_mode(DebitMode::Accept);
    // Nothing was queued: the operator moved nothing.
    assert!(state.store.outbox_due(10).unwrap().is_empty());

    // Both held the block's first ticket in turn; the next buyer gets it.
    for i in 0..2 {
        let bought = play(&router, &rich, 50, &format!("rich-{i:04}")).await;
        assert_eq!(bought.status, StatusCode::OK, "{}", bought.body);
        assert_eq!(bought.body["sale"]["ticket"]["position"], i);
        assert_eq!(
            bought.body["sale"]["ticket"]["salt"],
            serde_json::to_value(block.tickets[i].salt).unwrap()
        );
    }
    drain(&state).await;
    assert!(state
        .store
        .history("casino-poor", None, 10)
        .unwrap()
        .is_empty());
    assert_reconciled(&state, &stub, &players);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unanswered_debits_are_rolled_back_and_their_tickets_sold_later() {
    let stub = stub().await;
    let (_dir, state) = wallet_server("wallet-unanswered", &stub).await;
    let router = app(state.clone());
    stub.set_balance("casino-bob", 2_000);
    assert!(stub.calls("debit").is_empty());
    let token = session(&router, &state, &stub, "casino-bob").await;
    let block = open_block_50(&router).await;
    let modes = [
        DebitMode::Hang,
        DebitMode::Error500,
        DebitMode::DropAfterApply,
        DebitMode::AnswerLate,
        DebitMode::ArriveLate,
    ];
    for (i, mode) in modes.into_iter().enumerate() {
        stub.debit_mode(mode);
        let key = format!("lost-{i:04}");
        let lost = play(&router, &token, 50, &key).await;
        stub.debit_mode(DebitMode::Accept);
        assert_eq!(lost.status, StatusCode::SERVICE_UNAVAILABLE, "{mode:?}");
        assert_eq!(lost.body["error"]["code"], "WALLET_UNAVAILABLE", "{mode:?}");
        let debit = last_debit(&stub);
        assert_eq!(
            stub.debit_stands(&debit),
            matches!(mode, DebitMode::DropAfterApply | DebitMode::AnswerLate),
            "{mode:?}"
        );
        // Its rollback was queued with the release, under the same round.
        let queued = state.store.outbox_due(10).unwrap();
        assert_eq!(queued.len(), 1, "{mode:?}: {queued:?}");
        let round = debit.strip_prefix("debit:").unwrap();
        assert_eq!(queued[0].item.transaction_id, format!("rollback:{round}"));
        assert_eq!(
            queued[0].item.original_transaction_id.as_deref(),
            Some(&*debit)
        );
        assert_eq!(drain(&state).await.acknowledged, 1, "{mode:?}");
        assert!(!stub.debit_stands(&debit), "{mode:?}");
        if mode == DebitMode::ArriveLate {
            // The debit reaches the wallet after its rollback: refused.
            stub.deliver_late().await;
            assert!(!stub.debit_stands(&debit));
        }
        // The same key tries again and gets the released ticket.
        let retried = play(&router, &token, 50, &key).await;
        assert_eq!(retried.status, StatusCode::OK, "{mode:?}: {}", retried.body);
        assert_eq!(retried.body["sale"]["ticket"]["position"], i);
        assert_eq!(
            retried.body["sale"]["ticket"]["prize_cents"],
            block.tickets[i].prize_cents
        );
        drain(&state).await;
        assert_reconciled(&state, &stub, &[("casino-bob", 2_000)]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_resends_the_outbox_with_the_same_transaction_ids() {
    let stub = stub().await;
    let (dir, state) = wallet_server("wallet-restart", &stub).await;
    let router = app(state.clone());
    stub.set_balance("casino-cy", 5_000);
    let token = session(&router, &state, &stub, "casino-cy").await;
    let block = open_block_50(&router).await;
    let first_win = block
        .tickets
        .iter()
        .position(|t| t.prize_cents > 0)
        .unwrap();
    for i in 0..=first_win {
        let reply = play(&router, &token, 50, &format!("cyan-{i:04}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    }
    stub.debit_mode(DebitMode::Hang);
    let lost = play(&router, &token, 50, "cyan-lost").await;
    assert_eq!(lost.body["error"]["code"], "WALLET_UNAVAILABLE");
    stub.debit_mode(DebitMode::Accept);

    // The wallet fails every credit and rollback for now.
    stub.settle_mode(SettleMode::Error500);
    let drained = drain(&state).await;
    assert_eq!((drained.acknowledged, drained.failed), (0, 2));
    let credits = stub.calls("credit");
    let rollbacks = stub.calls("rollback");
    assert_eq!((credits.len(), rollbacks.len()), (1, 1));

    // A crash between a reservation and its answer: the operator took the
    // stake, the game never recorded the sale.
    let crashed = match state
        .store
        .reserve_round(
            &SaleRequest {
                player_id: "casino-cy".to_owned(),
                stake: Stake::HALF_EURO,
                idempotency_key: "cy-crashed".to_owned(),
                client_nonce: ClientNonce([0; 16]),
            },
            "crashedround",
            state.clock.now_ms(),
        )
        .unwrap()
    {
        eldorado_server::store::seamless::ReserveOutcome::Reserved(round) => round,
        other => panic!("{other:?}"),
    };
    let taken = WalletClient::new(&wallet(&stub.url, SECRET))
        .debit(&DebitCall {
            transaction_id: crashed.debit_id(),
            round_id: crashed.round_id.clone(),
            player_id: "casino-cy".to_owned(),
            amount_cents: 50,
        })
        .await
        .unwrap();
    assert_eq!(taken.status, eldorado_api::seamless::DebitStatus::Ok);
    // A block with a ticket being paid for is not closed (nor disclosed).
    let close = call(
        &router,
        Method::POST,
        &format!("/api/operator/blocks/{}/close", block.id),
        Some(&operator_key(&state)),
        None,
    )
    .await;
    assert_eq!(close.status, StatusCode::CONFLICT, "{}", close.body);
    assert_eq!(open_block_50(&router).await.id, block.id);
    drop(router);
    drop(state);

    stub.settle_mode(SettleMode::Accept);
    let state = tokio::task::spawn_blocking({
        let dir = dir.clone();
        let url = stub.url.clone();
        move || AppState::start_blocking(wallet_config(&dir, &url)).unwrap()
    })
    .await
    .unwrap();
    let drained = drain(&state).await;
    assert_eq!((drained.acknowledged, drained.failed), (3, 0));
    // The same ids again, and the crashed round's rollback.
    let mut resent = stub.calls("credit");
    assert_eq!(resent, vec![credits[0].clone(), credits[0].clone()]);
    // One drain sends its due items concurrently, so the two rollbacks
    // after the restart may reach the wallet in either order.
    resent = stub.calls("rollback");
    assert_eq!(resent.len(), 3);
    assert_eq!(resent[0], rollbacks[0]);
    let mut after_restart = resent[1..].to_vec();
    after_restart.sort();
    let mut expected = vec![rollbacks[0].clone(), "rollback:crashedround".to_owned()];
    expected.sort();
    assert_eq!(after_restart, expected);
    assert!(!stub.debit_stands(&crashed.debit_id()));
    assert_reconciled(&state, &stub, &[("casino-cy", 5_000)]);

    // The released tickets go to the next buyers, in order.
    let router = app(state.clone());
    let mut positions = Vec::new();
    for i in 0..2 {
        let reply = play(&router, &token, 50, &format!("cy-after-{i:04}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        positions.push(reply.body["sale"]["ticket"]["position"].as_u64().unwrap());
    }
    // The crashed round had taken the lost sale's released ticket.
    let lost_position = first_win as u64 + 1;
    assert_eq!(crashed.position as u64, lost_position);
    assert_eq!(positions, vec![lost_position, lost_position + 1]);
    drain(&state).await;
    assert_reconciled(&state, &stub, &[("casino-cy", 5_000)]);

    // The wallet's series of the Grafana dashboard are exported.
    let scrape = call(
        &router,
        Method::GET,
        "/metrics",
        Some(&operator_key(&state)),
        None,
    )
    .await;
    assert_eq!(scrape.status, StatusCode::OK);
    let text = String::from_utf8(scrape.raw).unwrap();
    for name in WALLET_SERIES {
        assert!(scrape_has(&text, name), "{name} missing:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeded_real_money_stays_in_its_data_directory() {
    let stub = stub().await;
    let url = stub.url.clone();
    tokio::task::spawn_blocking(move || {
        // A real deployment's data (real-money blocks from OS randomness)
        // is refused to a seeded server, wallet or not.
        let real = fresh_mixed_data_dir("wallet-seed-on-real");
        let refused = AppState::start_blocking(wallet_config(&real, &url)).err();
        let refused = refused
            .expect("a seed beside real money is refused")
            .to_string();
        assert!(refused.contains("OS randomness"), "{refused}");
        // A seeded wallet server's data is refused to a server without the seed.
        let seeded = data_dir("wallet-seeded-without-seed");
        copy_tree(wallet_template(), &seeded);
        let mut config = wallet_config(&seeded, &url);
        config.demo_seed = None;
        let refused = AppState::start_blocking(config).err();
        let refused = refused
            .expect("seeded blocks stay with their seed")
            .to_string();
        assert!(refused.contains("--demo-seed"), "{refused}");
    })
    .await
    .unwrap();
}

/// A session opened from a launch link shows the operator's balance, as
/// `GET /api/session` does: the page starts from the wallet's figure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_launched_session_shows_the_operators_balance() {
    let stub = stub().await;
    let (_dir, state) = wallet_server("wallet-launch", &stub).await;
    let router = app(state.clone());
    stub.set_balance("casino-lea", 1_234);
    let launch = call(
        &router,
        Method::POST,
        "/api/operator/launches",
        Some(&operator_key(&state)),
        Some(r#"{"player_id":"casino-lea","lang":"en","mode":"real"}"#),
    )
    .await;
    assert_eq!(launch.status, StatusCode::CREATED, "{}", launch.body);
    let url = launch.body["url"].as_str().unwrap();
    let code = url
        .split("launch=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap();
    let opened = call(
        &router,
        Method::POST,
        "/api/launch",
        None,
        Some(&format!(r#"{{"code":"{code}"}}"#)),
    )
    .await;
    assert_eq!(opened.status, StatusCode::CREATED, "{}", opened.body);
    assert_eq!(opened.body["money"], "real");
    assert_eq!(opened.body["balance_cents"], 1_234);
    assert_eq!(stub.calls("debit").len(), 0, "a launch moves no money");
}

/// A wallet server on a manual clock, with the outbox's backoff from
/// 500 ms up to 4 s: the test moves time itself.
async fn wallet_server_on(
    name: &str,
    stub: &Stub,
) -> (AppState, Arc<eldorado_server::clock::ManualClock>) {
    let name = name.to_owned();
    let url = stub.url.clone();
    let clock = Arc::new(eldorado_server::clock::ManualClock::new(
        eldorado_server::clock::system_now_ms(),
    ));
    let state_clock = Arc::clone(&clock);
    let state = tokio::task::spawn_blocking(move || {
        let dir = data_dir(&name);
        copy_tree(wallet_template(), &dir);
        let mut config = wallet_config(&dir, &url);
        let wallet = config.wallet.as_mut().unwrap();
        wallet.retry = Duration::from_millis(500);
        wallet.outbox.retry_max = Duration::from_millis(4_000);
        AppState::start_blocking_with_clock(config, state_clock).unwrap()
    })
    .await
    .unwrap();
    (state, clock)
}

/// Sells tickets of the 50-cent block until `winners` prize credits are
/// queued; their transaction ids, in sale order.
async fn queue_credits(
    router: &Router,
    state: &AppState,
    stub: &Stub,
    winners: usize,
) -> Vec<String> {
    stub.set_balance("casino-ob", 100_000);
    let token = session(router, state, stub, "casino-ob").await;
    let block = open_block_50(router).await;
    let mut credits = Vec::new();
    for (i, ticket) in block.tickets.iter().enumerate() {
        if credits.len() == winners {
            break;
        }
        let reply = play(router, &token, 50, &format!("ob-{i:05}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        if ticket.prize_cents > 0 {
            let round = reply.body["sale"]["sale_id"].as_u64().unwrap();
            credits.push(round);
        }
    }
    assert_eq!(
        credits.len(),
        winners,
        "the seeded block has that many winners early on"
    );
    let queued: Vec<String> = state
        .store
        .outbox_due(1_000)
        .unwrap()
        .into_iter()
        .map(|q| q.item.transaction_id)
        .collect();
    assert_eq!(queued.len(), winners);
    queued
}

async fn health_outbox(router: &Router) -> serde_json::Value {
    let health = call(router, Method::GET, "/api/health", None, None).await;
    health.body["wallet_outbox"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_queued_call_backs_off_on_its_own_and_all_go_once_the_wallet_is_back() {
    let stub = stub().await;
    let (state, clock) = wallet_server_on("wallet-backoff", &stub).await;
    let router = app(state.clone());
    stub.settle_mode(SettleMode::Error500);
    let queued = queue_credits(&router, &state, &stub, 6).await;

    // Every item is tried once, then none again before its own wait
    // (at least half a step: 250 ms after the first failure) is over.
    let first = drain(&state).await;
    assert_eq!((first.acknowledged, first.failed), (0, 6));
    assert_eq!(stub.calls("credit").len(), 6);
    for _ in 0..3 {
        assert_eq!(drain(&state).await.failed, 0);
    }
    clock.advance(Duration::from_millis(249));
    assert_eq!(drain(&state).await.failed, 0);
    assert_eq!(stub.calls("credit").len(), 6, "no item twice within a step");
    // A full first step later, every item has been due once more.
    clock.advance(Duration::from_millis(251));
    assert_eq!(drain(&state).await.failed, 6);
    assert_eq!(stub.calls("credit").len(), 12);
    // The second wait is longer (at least 500 ms).
    clock.advance(Duration::from_millis(499));
    assert_eq!(drain(&state).await.failed, 0);
    let outbox = health_outbox(&router).await;
    assert_eq!(outbox["backlog"], 6, "{outbox}");
    assert_eq!(outbox["most_attempts"], 2, "{outbox}");
    assert!(outbox["oldest_age_ms"].as_u64().unwrap() >= 500, "{outbox}");

    // The wallet is back: within one capped step (4 s) every item is
    // acknowledged, once each.
    stub.settle_mode(SettleMode::Accept);
    clock.advance(Duration::from_millis(4_000));
    let back = drain(&state).await;
    assert_eq!((back.acknowledged, back.failed), (6, 0));
    let mut sent = stub.calls("credit");
    sent.sort();
    sent.dedup();
    let mut expected = queued.clone();
    expected.sort();
    assert_eq!(sent, expected);
    let outbox = health_outbox(&router).await;
    assert_eq!(outbox["backlog"], 0, "{outbox}");
    assert_eq!(outbox["oldest_age_ms"], 0, "{outbox}");
    assert_reconciled(&state, &stub, &[("casino-ob", 100_000)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_never_answers_holds_up_no_other() {
    let stub = stub().await;
    let (state, _clock) = wallet_server_on("wallet-hang", &stub).await;
    let router = app(state.clone());
    stub.settle_mode(SettleMode::Error500);
    let queued = queue_credits(&router, &state, &stub, 4).await;
    stub.settle_mode(SettleMode::Accept);
    // The oldest item, sent first, times out; the others are acknowledged
    // in the same pass.
    stub.hang_credit(&queued[0]);
    let drained = drain(&state).await;
    assert_eq!((drained.acknowledged, drained.failed), (3, 1));
    let left: Vec<String> = state
        .store
        .outbox_due(10)
        .unwrap()
        .into_iter()
        .map(|q| q.item.transaction_id)
        .collect();
    assert_eq!(left, vec![queued[0].clone()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflict_is_final_a_debit_releases_its_round_a_queued_call_is_given_up() {
    let stub = stub().await;
    let (state, clock) = wallet_server_on("wallet-conflict", &stub).await;
    let router = app(state.clone());

    // Two queued credits; the wallet holds the first one's id with
    // another body. It is sent once, given up, and never sent again; the
    // other is acknowledged.
    stub.settle_mode(SettleMode::Error500);
    let queued = queue_credits(&router, &state, &stub, 2).await;
    stub.settle_mode(SettleMode::Accept);
    stub.plant_conflict(&queued[0]);
    let sent_before = stub.calls("credit").len();
    let drained = drain(&state).await;
    assert_eq!(
        (drained.acknowledged, drained.given_up, drained.failed),
        (1, 1, 0)
    );
    clock.advance(Duration::from_millis(10_000));
    let later = drain(&state).await;
    assert_eq!(
        (later.acknowledged, later.given_up, later.failed),
        (0, 0, 0)
    );
    assert_eq!(stub.calls("credit").len(), sent_before + 2);
    assert!(state.store.outbox_due(10).unwrap().is_empty());
    let outbox = health_outbox(&router).await;
    assert_eq!(outbox["given_up"], 1, "{outbox}");
    assert_eq!(outbox["backlog"], 0, "{outbox}");

    // A debit answered 409: the ticket goes back to the next buyer, and no
    // rollback is queued, since it would name a transaction the wallet
    // holds for something else.
    let token = session(&router, &state, &stub, "casino-ob").await;
    let before = play(&router, &token, 50, "cf-00001").await;
    assert_eq!(before.status, StatusCode::OK, "{}", before.body);
    let next = before.body["sale"]["ticket"]["position"].as_u64().unwrap() + 1;
    stub.debit_mode(DebitMode::Conflict);
    let refused = play(&router, &token, 50, "cf-00002").await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.body["error"]["code"], "WALLET_UNAVAILABLE");
    assert!(state.store.outbox_due(10).unwrap().is_empty());
    stub.debit_mode(DebitMode::Accept);
    let bought = play(&router, &token, 50, "cf-00003").await;
    assert_eq!(bought.status, StatusCode::OK, "{}", bought.body);
    assert_eq!(bought.body["sale"]["ticket"]["position"], next);
}

/// Issue 23 item 5, measured: four players buy while the operator's wallet
/// fails 45 % of the debits, credits and rollbacks (answers 500, applies
/// nothing), with the outbox worker running on the real clock at the
/// defaults (`--wallet-retry-ms 2000`, `--wallet-retry-max-ms 8000`); then
/// the wallet heals. Prints how long the outbox takes to empty and how
/// often one item was sent; asserts only that the money reconciles (speed
/// is for docs/BENCHMARKS.md, never asserted).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: cargo test -p eldorado-server --test server outbox_under_a_fault_mix -- --ignored --nocapture"]
async fn outbox_under_a_fault_mix_empties_once_the_wallet_heals() {
    const PLAYERS: usize = 4;
    /// Long enough for the items failing all along to reach the longest
    /// wait (8 s): the worst case once the wallet heals.
    const FAULTY_FOR: Duration = Duration::from_secs(20);
    const START_CENTS: u64 = 1_000_000;
    let stub = stub().await;
    let url = stub.url.clone();
    let state = tokio::task::spawn_blocking(move || {
        let dir = data_dir("wallet-fault-mix");
        copy_tree(wallet_template(), &dir);
        let mut config = wallet_config(&dir, &url);
        let wallet = config.wallet.as_mut().unwrap();
        wallet.timeout = Duration::from_secs(1);
        wallet.retry = Duration::from_millis(2_000);
        wallet.outbox = OutboxConfig::default();
        AppState::start_blocking(config).unwrap()
    })
    .await
    .unwrap();
    let router = app(state.clone());
    let outbox = tokio::spawn(state.wallet.clone().unwrap().run_outbox());
    let mut tokens = Vec::new();
    for p in 0..PLAYERS {
        let player = format!("casino-fault-{p}");
        stub.set_balance(&player, START_CENTS);
        tokens.push(session(&router, &state, &stub, &player).await);
    }
    stub.fault_rate(450);
    let started = std::time::Instant::now();
    let buyers: Vec<_> = tokens
        .into_iter()
        .enumerate()
        .map(|(p, token)| {
            let router = router.clone();
            tokio::spawn(async move {
                let (mut sold, mut tried) = (0, 0);
                for i in 0.. {
                    if started.elapsed() >= FAULTY_FOR {
                        break;
                    }
                    tried += 1;
                    let reply = play(&router, &token, 50, &format!("fault-{p}-{i:05}")).await;
                    match reply.status {
                        StatusCode::OK => sold += 1,
                        StatusCode::SERVICE_UNAVAILABLE => {}
                        other => panic!("sale answered {other}: {}", reply.body),
                    }
                }
                (sold, tried)
            })
        })
        .collect();
    let (mut sold, mut tried) = (0, 0);
    for buyer in buyers {
        let (s, t) = buyer.await.unwrap();
        sold += s;
        tried += t;
    }
    let faulty_for = started.elapsed();
    let backlog = state.store.outbox_due(100_000).unwrap().len();
    stub.fault_rate(0);
    let healed = std::time::Instant::now();
    while !state.store.outbox_due(1).unwrap().is_empty() {
        assert!(
            healed.elapsed() < Duration::from_secs(120),
            "the outbox never emptied"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let emptied_in = healed.elapsed();
    outbox.abort();
    let mut sends = std::collections::HashMap::<String, usize>::new();
    for id in stub
        .calls("credit")
        .into_iter()
        .chain(stub.calls("rollback"))
    {
        *sends.entry(id).or_default() += 1;
    }
    let most = sends.values().copied().max().unwrap_or(0);
    let mean = sends.values().sum::<usize>() as f64 / sends.len().max(1) as f64;
    println!(
        "fault mix 45 %: {tried} sales tried in {:.1} s, {sold} sold; {backlog} credits and rollbacks \
         unacknowledged when the wallet healed; outbox empty {:.2} s later; {} items sent \
         {mean:.2} times on average, at most {most}",
        faulty_for.as_secs_f64(),
        emptied_in.as_secs_f64(),
        sends.len()
    );
    let players: Vec<String> = (0..PLAYERS).map(|p| format!("casino-fault-{p}")).collect();
    let players: Vec<(&str, u64)> = players.iter().map(|p| (p.as_str(), START_CENTS)).collect();
    assert_reconciled(&state, &stub, &players);
}

/// The console's wallet page: the calls waiting and why, and « retry now »,
/// which sends them at once instead of after their backoff.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_shows_failed_calls_and_retries_them_now() {
    use crate::console::{send, sign_in};
    let stub = stub().await;
    let (state, _clock) = wallet_server_on("wallet-console", &stub).await;
    let router = app(state.clone());
    stub.settle_mode(SettleMode::Error500);
    queue_credits(&router, &state, &stub, 3).await;
    assert_eq!(drain(&state).await.failed, 3);
    // Each now waits its backoff, and the manual clock never moves.
    assert_eq!(drain(&state).await.failed, 0);

    let cookie = sign_in(&router, &state).await;
    let page = send(
        &router,
        Method::GET,
        "/operator/wallet",
        Some(&cookie),
        None,
        &[],
    )
    .await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.text.contains(r#"<dd id="backlog">3</dd>"#),
        "{}",
        page.text
    );
    let failures = &page.text[page.text.find(r#"id="failures""#).unwrap()..];
    assert!(failures.contains("500"), "{failures}");
    assert!(failures.contains(r#"<td class="num">3</td>"#), "{failures}");

    stub.settle_mode(SettleMode::Accept);
    let retried = send(
        &router,
        Method::POST,
        "/operator/wallet/retry",
        Some(&cookie),
        Some(&format!("csrf={}", page.csrf())),
        &[],
    )
    .await;
    assert_eq!(retried.status, StatusCode::SEE_OTHER);
    // Without the retry they would wait for a clock that does not move.
    let started = std::time::Instant::now();
    while !state.store.outbox_due(10).unwrap().is_empty() {
        assert!(started.elapsed() < TIMEOUT, "the retry sent nothing");
        drain(&state).await;
    }
    assert_reconciled(&state, &stub, &[("casino-ob", 100_000)]);
}
