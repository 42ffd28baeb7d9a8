//! HTTP-level tests of the game server (one binary; every server in it is a
//! copy of one seeded template, see `common.rs`).

mod api;
mod common;
mod concurrency;
mod restart_rollover;
mod robustness;
