//! The page's check of a beacon round's signature, as a WebAssembly module
//! of its own. Its BLS12-381 arithmetic (hashing to the curve, a pairing)
//! is most of the code a deal's check needs, and nothing before the first
//! deal needs it: in the page's first download it would delay « Jouer »
//! on a phone network (docs/BENCHMARKS.md). So `www/main.js` loads this
//! module once the game runs and the game awaits it before it checks a
//! sale the beacon dealt (`src/beacon_check.rs` in the page).
//!
//! The check is the engine's own ([`BeaconKey`]); only its answer crosses
//! the boundary: the round's randomness, or [`BeaconError::code`].

use eldorado_engine::deal::{BeaconError, BeaconKey, BEACON_KEY_LEN, BEACON_SIGNATURE_LEN};
use wasm_bindgen::prelude::*;

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Round `round`'s randomness once its signature verifies under `key` (a
/// compressed G2 point); else throws the error's code (a number).
#[wasm_bindgen]
pub fn verify_round(key: &[u8], round: u64, signature: &[u8]) -> Result<Vec<u8>, u8> {
    check(key, round, signature)
        .map(|randomness| randomness.to_vec())
        .map_err(|error| error.code())
}

/// The check itself, on bytes of any length (a wrong length is a bad key
/// or a bad signature, as a point that does not decode would be).
pub fn check(key: &[u8], round: u64, signature: &[u8]) -> Result<[u8; 32], BeaconError> {
    let key: &[u8; BEACON_KEY_LEN] = key.try_into().map_err(|_| BeaconError::BadKey)?;
    let signature: &[u8; BEACON_SIGNATURE_LEN] = signature
        .try_into()
        .map_err(|_| BeaconError::BadSignature { round })?;
    BeaconKey::from_bytes(key)?.verify(round, signature)
}
