//! HTTP-level tests of the game server (one binary: one shared server).

mod api;
mod client_nonce;
mod common;
mod concurrency;
mod money_lines;
mod restart_rollover;
mod seed_policy;
