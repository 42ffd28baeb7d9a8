//! A deployment of several `eldorado serve` processes on one PostgreSQL
//! database, driven over HTTP on loopback: concurrent sales on every
//! server, and a server killed mid-load. Each test makes its own database
//! (see `test_database`) and says SKIPPED without PostgreSQL.

#[path = "../support/mod.rs"]
mod support;
#[path = "../../../server/tests/support/test_database.rs"]
mod test_database;

mod client;
mod concurrent_sales;
mod failover;
mod fair_dealing;
mod killed_server;
mod scale_out;
mod servers;

/// The machine, shared by the tests that only check what was sold, and
/// held alone by the one that measures throughput: another deployment
/// killing and starting processes beside it would decide its figures.
static MACHINE: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// For a test that may run beside the others.
fn machine_shared() -> std::sync::RwLockReadGuard<'static, ()> {
    MACHINE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// For a test that measures: it waits for the others to end, and they
/// wait for it.
fn machine_alone() -> std::sync::RwLockWriteGuard<'static, ()> {
    MACHINE
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The runtime a test drives its HTTP clients with.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// The database holds `sales` sales, no two of one (block, position).
fn assert_sales_each_of_their_own_ticket(sql: &mut postgres::Client, sales: usize) {
    let row = sql
        .query_one(
            "SELECT COUNT(*), COUNT(DISTINCT (block, position)) FROM sales",
            &[],
        )
        .unwrap();
    let (count, distinct): (i64, i64) = (row.get(0), row.get(1));
    assert_eq!((count, distinct), (sales as i64, sales as i64));
}

/// Waits (a minute at most) until every sale is on the public log, each
/// record once: one snapshot, where records = what is marked logged.
fn wait_until_every_sale_is_logged(sql: &mut postgres::Client) {
    let started = std::time::Instant::now();
    loop {
        let row = sql
            .query_one(
                "SELECT (SELECT COUNT(*) FROM log_records), \
                 (SELECT COUNT(*) FROM sales WHERE log_index IS NOT NULL) \
                 + (SELECT COUNT(*) FROM blocks WHERE log_index IS NOT NULL), \
                 (SELECT COUNT(*) FROM sales WHERE log_index IS NULL)",
                &[],
            )
            .unwrap();
        let (records, marked, unlogged): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
        assert_eq!(records, marked);
        if unlogged == 0 {
            return;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "{unlogged} sales never logged"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Waits until `count` plays are acknowledged, or until a client has
/// stopped (a failed client must fail the test, not hang it), or a minute.
async fn wait_for<T>(
    acknowledged: &std::sync::atomic::AtomicUsize,
    count: usize,
    clients: &[tokio::task::JoinHandle<T>],
) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while acknowledged.load(std::sync::atomic::Ordering::SeqCst) < count
        && !clients.iter().any(|c| c.is_finished())
        && std::time::Instant::now() < deadline
    {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
