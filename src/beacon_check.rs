//! The check of the beacon's rounds, which the page loads after its first
//! download: its BLS12-381 arithmetic is most of the code a deal's check
//! needs (`crates/beacon-check`, a WebAssembly module of its own), and
//! nothing before the first deal needs it. `www/main.js` hands the game a
//! loader; the game starts it once the server says it deals by a beacon,
//! and awaits it before it checks a sale the beacon dealt ([`ready`]).
//! Natively (the game's own tests) the engine's check runs in place.

use eldorado_engine::deal::{BeaconError, VerifyRound, BEACON_KEY_LEN, BEACON_SIGNATURE_LEN};
use wasm_bindgen::JsValue;

/// The rounds of the beacon whose key is `key`, checked by the loaded
/// module; a round checked before it is loaded is `NotChecked`, a failed
/// check like any other.
pub struct RoundCheck<'a> {
    pub key: &'a [u8; BEACON_KEY_LEN],
}

#[cfg(target_arch = "wasm32")]
mod loaded {
    use super::*;
    use std::cell::RefCell;
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;

    thread_local! {
        /// `www/main.js`'s loader: returns a promise of the check.
        static LOADER: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
        /// The module's `verify_round`, once loaded.
        static CHECK: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
    }

    pub fn set_loader(loader: Option<js_sys::Function>) {
        LOADER.with_borrow_mut(|slot| *slot = loader);
    }

    pub fn is_ready() -> bool {
        CHECK.with_borrow(Option::is_some)
    }

    pub async fn ready() -> Result<(), JsValue> {
        if is_ready() {
            return Ok(());
        }
        let loader = LOADER
            .with_borrow(Clone::clone)
            .ok_or_else(|| JsValue::from_str("this page has no loader for the beacon's check"))?;
        let promise: js_sys::Promise = loader.call0(&JsValue::UNDEFINED)?.dyn_into()?;
        let check: js_sys::Function = JsFuture::from(promise).await?.dyn_into()?;
        CHECK.with_borrow_mut(|slot| *slot = Some(check));
        Ok(())
    }

    pub fn randomness(
        key: &[u8; BEACON_KEY_LEN],
        round: u64,
        signature: &[u8; BEACON_SIGNATURE_LEN],
    ) -> Result<[u8; 32], BeaconError> {
        let check = CHECK
            .with_borrow(Clone::clone)
            .ok_or(BeaconError::NotChecked { round })?;
        let answer = check.call3(
            &JsValue::UNDEFINED,
            &js_sys::Uint8Array::from(&key[..]),
            &JsValue::from(round),
            &js_sys::Uint8Array::from(&signature[..]),
        );
        match answer {
            Ok(bytes) => js_sys::Uint8Array::new(&bytes)
                .to_vec()
                .try_into()
                .map_err(|_| BeaconError::NotChecked { round }),
            // The module throws its error's code; anything else it might
            // throw is a round not checked.
            Err(code) => Err(BeaconError::from_code(
                code.as_f64().map_or(0, |c| c as u8),
                round,
            )),
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod loaded {
    use super::*;

    pub fn set_loader(_: Option<js_sys::Function>) {}

    pub fn is_ready() -> bool {
        true
    }

    pub async fn ready() -> Result<(), JsValue> {
        Ok(())
    }

    pub fn randomness(
        key: &[u8; BEACON_KEY_LEN],
        round: u64,
        signature: &[u8; BEACON_SIGNATURE_LEN],
    ) -> Result<[u8; 32], BeaconError> {
        eldorado_engine::deal::BeaconKey::from_bytes(key)?.verify(round, signature)
    }
}

// `set_loader` keeps `www/main.js`'s loader of the check (none: the page
// cannot check deals, and refuses every sale the beacon dealt); `ready`
// loads the check if it is not yet, and fails when its download did (the
// next call tries again), which callers treat as the network failing.
pub use loaded::{is_ready, ready, set_loader};

/// Starts loading the check without waiting for it.
pub fn prefetch() {
    if !is_ready() {
        wasm_bindgen_futures::spawn_local(async {
            use crate::console::LogFailure;
            ready().await.log_failure("loading the beacon's check");
        });
    }
}

impl VerifyRound for RoundCheck<'_> {
    fn randomness(
        &self,
        round: u64,
        signature: &[u8; BEACON_SIGNATURE_LEN],
    ) -> Result<[u8; 32], BeaconError> {
        loaded::randomness(self.key, round, signature)
    }
}
