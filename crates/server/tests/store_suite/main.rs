//! One store test suite for every backend. `suite` holds the cases, generic
//! over a `Backend` that opens a fresh database (and opens it again, for
//! durability); `store_suite!` turns each case into a test for one backend.
//! A new backend adds one `store_suite!` line and nothing else.

mod leases;
mod open_block_locks;
mod plans;
mod protection;
mod sessions;
mod suite;
#[path = "../support/test_database.rs"]
mod test_database;

use eldorado_server::clock::{Clock, ManualClock};
use eldorado_server::store::postgres::PostgresStore;
use eldorado_server::store::sqlite::SqliteStore;
use eldorado_server::store::Store;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A database for one test: `open` may be called again and must reach the
/// same data, as a restarted server would.
pub trait Backend {
    fn open(&self) -> Arc<dyn Store>;
    fn clock(&self) -> &Arc<ManualClock>;
    /// Runs `sql` on the database behind the store's back, as a fault would
    /// have it (SQL both dialects accept).
    fn tamper(&self, sql: &str);
}

/// Every case, wherever it is written.
mod cases {
    pub use crate::leases::*;
    pub use crate::protection::*;
    pub use crate::sessions::*;
    pub use crate::suite::*;
}

macro_rules! store_suite {
    ($backend:ident, $new:expr, [$($case:ident),* $(,)?]) => {
        mod $backend {
            $(
                #[test]
                fn $case() {
                    // `None`: the backend cannot run here, and said why.
                    if let Some(backend) = $new {
                        crate::cases::$case(&backend);
                    }
                }
            )*
        }
    };
}

macro_rules! all_cases {
    ($backend:ident, $new:expr) => {
        store_suite!(
            $backend,
            $new,
            [
                sales_take_tickets_in_order_and_move_money,
                a_faulted_sale_leaves_the_batchs_other_sales_whole,
                refusals_write_nothing,
                idempotency_keys_replay_or_conflict,
                transfers_apply_once_per_reference,
                a_sold_out_block_rolls_over_to_the_pending_one,
                a_line_keeps_its_open_blocks_on_sale_and_the_pending_one_behind,
                play_and_real_money_never_cross,
                closing_a_block_switches_over,
                blocks_and_tickets_round_trip,
                sessions_and_reveals,
                everything_survives_a_reopen,
                seamless_rounds_sell_or_give_back_their_ticket,
                a_reserved_ticket_keeps_its_block_on_sale,
                lost_rounds_are_released_with_a_rollback,
                play_money_never_reserves_a_round,
                reserved_rounds_count_toward_the_stake_limit,
                concurrent_sales_never_overshoot_a_stake_limit,
                the_loss_limit_counts_each_stake_as_lost,
                a_raised_limit_waits_48_hours_a_lowered_one_applies_at_once,
                exclusions_refuse_every_sale_and_only_lengthen,
                invalid_changes_change_nothing,
                the_default_stake_limit_stays_with_each_new_real_money_player,
                launch_codes_open_one_session_once,
                a_launch_code_raced_by_threads_opens_one_session,
                opening_beyond_the_cap_ends_the_oldest_sessions,
                the_sessions_ended_are_the_same_on_every_backend,
                a_lower_cap_ends_every_session_beyond_it,
                a_launched_session_ends_the_oldest_beyond_the_cap,
                concurrent_openings_never_exceed_the_cap,
                the_log_records_each_commitment_then_its_sales,
                concurrent_sequencers_log_every_sale_once,
                cosignatures_are_served_with_their_checkpoint,
                each_build_of_the_page_is_logged_once,
                purchases_are_paid_logged_then_dealt_by_the_rule,
                a_purchase_waiting_for_its_round_holds_back_its_block,
                a_late_purchase_is_dealt_by_the_round_the_dealer_gives_it,
                two_dealers_deal_each_purchase_once,
                paid_wallet_rounds_are_dealt_and_their_prizes_credited_at_the_wallet,
                a_purchase_names_the_round_of_its_logging,
                the_consoles_reads_agree_with_the_sales,
                failed_wallet_calls_are_counted_by_reason,
                one_store_at_a_time_holds_each_lease,
            ]
        );
    };
}

/// What `ready` gives once it gives something, asked every 20 ms; fails
/// with `what` after `limit`, which only keeps a run from hanging.
pub fn eventually<T>(limit: Duration, what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(value) = ready() {
            return value;
        }
        assert!(started.elapsed() < limit, "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Epoch of the suite's manual clocks: a fixed, unremarkable instant.
pub const START_MS: u64 = 1_700_000_000_000;

pub struct Sqlite {
    dir: tempfile::TempDir,
    clock: Arc<ManualClock>,
}

impl Sqlite {
    fn new() -> Sqlite {
        Sqlite {
            dir: tempfile::tempdir().expect("a temporary directory"),
            clock: Arc::new(ManualClock::new(START_MS)),
        }
    }
}

impl Backend for Sqlite {
    fn open(&self) -> Arc<dyn Store> {
        let clock: Arc<dyn Clock> = self.clock.clone();
        Arc::new(SqliteStore::open(&self.dir.path().join("store.sqlite3"), clock).expect("opens"))
    }

    fn clock(&self) -> &Arc<ManualClock> {
        &self.clock
    }

    fn tamper(&self, sql: &str) {
        let conn = rusqlite::Connection::open(self.dir.path().join("store.sqlite3")).unwrap();
        conn.execute_batch(sql).unwrap();
    }
}

/// A fresh PostgreSQL database per test; dropped with it.
pub struct Postgres {
    pub(crate) database: test_database::TestDatabase,
    clock: Arc<ManualClock>,
}

impl Postgres {
    pub(crate) fn new() -> Option<Postgres> {
        Some(Postgres {
            database: test_database::TestDatabase::create()?,
            clock: Arc::new(ManualClock::new(START_MS)),
        })
    }
}

impl Backend for Postgres {
    fn open(&self) -> Arc<dyn Store> {
        let clock: Arc<dyn Clock> = self.clock.clone();
        Arc::new(PostgresStore::open(&self.database.url, 2, clock).expect("opens"))
    }

    fn tamper(&self, sql: &str) {
        let mut client =
            ::postgres::Client::connect(&self.database.url, ::postgres::NoTls).unwrap();
        client.batch_execute(sql).unwrap();
    }

    fn clock(&self) -> &Arc<ManualClock> {
        &self.clock
    }
}

all_cases!(sqlite, Some(crate::Sqlite::new()));
all_cases!(postgres, crate::Postgres::new());
