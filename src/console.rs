//! Failures the page survives, written to the browser console.
//!
//! A DOM or audio call that fails should not stop the game, but a silently
//! broken page is hard to diagnose: each such failure is turned into one
//! console warning that says what was being done.

use wasm_bindgen::JsValue;

pub trait LogFailure<T> {
    /// The value on success; on failure, one console warning naming `doing`
    /// (e.g. "focusing the OK button") and `None`.
    fn log_failure(self, doing: &str) -> Option<T>;
}

impl<T, E: Into<JsValue>> LogFailure<T> for Result<T, E> {
    fn log_failure(self, doing: &str) -> Option<T> {
        match self {
            Ok(value) => Some(value),
            Err(error) => {
                warn_failed(doing, error.into());
                None
            }
        }
    }
}

/// The failure branch of every `log_failure`, once in the module rather
/// than in each of its instances.
#[inline(never)]
fn warn_failed(doing: &str, error: JsValue) {
    warn_with(&format!("Eldorado: {doing} failed:"), error);
}

#[cfg(target_arch = "wasm32")]
pub fn warn(message: &str) {
    web_sys::console::warn_1(&message.into());
}

/// The failure itself goes to the console as it is (an `Error` shows its
/// message and stack there), not formatted here: the page carries no
/// `Debug` formatting of errors.
#[cfg(target_arch = "wasm32")]
pub fn warn_with(message: &str, error: impl Into<JsValue>) {
    web_sys::console::warn_2(&message.into(), &error.into());
}

// Calls into JavaScript abort outside wasm, and the pure modules' native
// tests may still reach a failure path.
#[cfg(not(target_arch = "wasm32"))]
pub fn warn(message: &str) {
    eprintln!("{message}");
}

#[cfg(not(target_arch = "wasm32"))]
pub fn warn_with(message: &str, _error: impl Into<JsValue>) {
    eprintln!("{message}");
}
