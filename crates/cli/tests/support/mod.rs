//! What several of the CLI's test crates share.

pub mod dealing;
