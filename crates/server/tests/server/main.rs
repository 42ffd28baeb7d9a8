//! HTTP-level tests of the game server (one binary: one shared server).

mod api;
mod common;
mod concurrency;
mod restart_rollover;
mod robustness;
