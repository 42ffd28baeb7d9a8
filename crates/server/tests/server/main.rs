//! HTTP-level tests of the game server (one binary; every server in it is a
//! copy of one seeded template, see `common.rs`).

mod api;
mod block_ids;
#[path = "../support/built_page.rs"]
mod built_page;
mod client_nonce;
mod common;
mod concurrency;
mod connections;
mod console;
mod document;
mod early_answers;
mod forwarded_clients;
mod launch;
mod metrics;
mod money_lines;
mod protection;
mod reports;
mod restart_rollover;
mod retry_after;
mod robustness;
mod seamless_wallet;
mod seed_policy;
mod session_cap;
mod wallet_stub;
mod wallet_tls;
