//! `eldorado beacon`'s parts: the BLS signer of drand's quicknet scheme and
//! the drand-shaped HTTP routes that publish its rounds.

pub mod routes;
pub mod signer;

pub use signer::Signer;
