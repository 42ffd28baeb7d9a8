//! Failures the page survives, written to the browser console.
//!
//! A DOM or audio call that fails should not stop the game, but a silently
//! broken page is hard to diagnose: each such failure is turned into one
//! console warning that says what was being done.

use std::fmt::Debug;

pub trait LogFailure<T> {
    /// The value on success; on failure, one console warning naming `doing`
    /// (e.g. "focusing the OK button") and `None`.
    fn log_failure(self, doing: &str) -> Option<T>;
}

impl<T, E: Debug> LogFailure<T> for Result<T, E> {
    fn log_failure(self, doing: &str) -> Option<T> {
        match self {
            Ok(value) => Some(value),
            Err(error) => {
                warn(&format!("Eldorado: {doing} failed: {error:?}"));
                None
            }
        }
    }
}

#[cfg(target_arch = "wasm32")]
pub fn warn(message: &str) {
    web_sys::console::warn_1(&message.into());
}

// Calls into JavaScript abort outside wasm, and the pure modules' native
// tests may still reach a failure path.
#[cfg(not(target_arch = "wasm32"))]
pub fn warn(message: &str) {
    eprintln!("{message}");
}
