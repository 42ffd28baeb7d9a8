//! A fresh PostgreSQL database per test, on the server named by
//! `ELDORADO_TEST_POSTGRES` (a URL whose role may create databases, e.g.
//! `postgres://eldorado:eldorado@127.0.0.1:5432/eldorado`, as
//! `scripts/test.sh` sets it). Without it the PostgreSQL tests say so and
//! pass without running: not every machine can run PostgreSQL.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

pub const ENV: &str = "ELDORADO_TEST_POSTGRES";

pub struct TestDatabase {
    admin_url: String,
    name: String,
    /// The URL of the fresh database.
    pub url: String,
}

impl TestDatabase {
    /// A new empty database, or `None` (with a message) when no test
    /// server is configured.
    pub fn create() -> Option<TestDatabase> {
        let Ok(admin_url) = std::env::var(ENV) else {
            // The test harness names each test's thread after the test.
            let test = std::thread::current().name().unwrap_or("a test").to_owned();
            // Straight to stderr, not `eprintln!`, which the harness hides
            // for a passing test: a skip must be seen.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: PostgreSQL test not run, ${ENV} is not set \
                 (scripts/test.sh starts PostgreSQL and sets it)"
            );
            return None;
        };
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "eldorado_test_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut admin = postgres::Client::connect(&admin_url, postgres::NoTls)
            .unwrap_or_else(|e| panic!("${ENV}={admin_url}: cannot connect: {e}"));
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap_or_else(|e| panic!("creating the test database {name}: {e}"));
        let url = with_database(&admin_url, &name);
        Some(TestDatabase {
            admin_url,
            name,
            url,
        })
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        // FORCE: pools of the test may still hold connections.
        let dropped =
            postgres::Client::connect(&self.admin_url, postgres::NoTls).and_then(|mut c| {
                c.batch_execute(&format!(
                    "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                    self.name
                ))
            });
        if let Err(e) = dropped {
            eprintln!("could not drop the test database {}: {e}", self.name);
        }
    }
}

/// `url` with its database name replaced by `name` (query kept).
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (url, String::new()),
    };
    let authority_end = base.find("://").map_or(0, |i| i + 3);
    let base = match base[authority_end..].find('/') {
        Some(slash) => &base[..authority_end + slash],
        None => base,
    };
    format!("{base}/{name}{query}")
}
