//! Harness of the end-to-end test (`tests/game.rs`): the real `eldorado`
//! server and chromedriver as child processes on free loopback ports, a
//! WebDriver session in headless Chromium, a small API client, a tampering
//! proxy, the texts the page is expected to show, and the example operator
//! portal with its books.
//!
//! Every child process is killed when its guard drops, so a failed
//! assertion leaves nothing running behind it.

pub mod api;
pub mod browser;
pub mod expect;
pub mod page_copy;
pub mod paths;
pub mod portal;
pub mod process;
pub mod proxy;
pub mod server;

use std::time::Duration;

/// Long enough for a slow CI machine, short enough that a stuck page fails
/// the run in reasonable time.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(30);

/// Interval between two looks at the page or a process.
pub const POLL: Duration = Duration::from_millis(40);
