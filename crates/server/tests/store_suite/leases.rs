//! Leases: what one process of a deployment does at a time (generating
//! blocks, running the public log's sequencer on its interval). Two stores
//! on one database stand for two servers.

use crate::{Backend, Postgres};
use eldorado_server::store::{Lease, LeaseKind, Store};
use std::time::{Duration, Instant};

/// Only keeps a run from hanging: PostgreSQL frees a closed session's
/// locks within milliseconds.
const LIMIT: Duration = Duration::from_secs(60);

pub fn one_store_at_a_time_holds_each_lease(backend: &dyn Backend) {
    let (first, second) = (backend.open(), backend.open());
    let held = first
        .try_lease(LeaseKind::Sequencing)
        .unwrap()
        .expect("a free lease is granted");
    assert!(
        second.try_lease(LeaseKind::Sequencing).unwrap().is_none(),
        "a held lease is refused to another store"
    );
    let generation = second
        .try_lease(LeaseKind::Generation)
        .unwrap()
        .expect("the other kind is free");
    assert!(first.try_lease(LeaseKind::Generation).unwrap().is_none());
    drop(held);
    drop(generation);
    let taken_over = granted_soon(&*second, LeaseKind::Sequencing);
    assert!(first.try_lease(LeaseKind::Sequencing).unwrap().is_none());
    drop(taken_over);
    granted_soon(&*first, LeaseKind::Generation);
}

/// PostgreSQL only: a lease is an advisory lock of one database session,
/// so a session ended from outside (a failover, an administrator) ends the
/// lease; its holder finds out, and another server can take it.
#[test]
fn a_lease_ends_with_its_database_session() {
    let Some(backend) = Postgres::new() else {
        return;
    };
    let (first, second) = (backend.open(), backend.open());
    let mut held = first.try_lease(LeaseKind::Sequencing).unwrap().unwrap();
    assert!(held.still_held());
    backend.tamper(
        "SELECT pg_terminate_backend(pid) FROM pg_locks \
         WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()",
    );
    let started = Instant::now();
    while held.still_held() {
        assert!(started.elapsed() < LIMIT, "the lease outlived its session");
        std::thread::sleep(Duration::from_millis(20));
    }
    granted_soon(&*second, LeaseKind::Sequencing);
}

/// The lease, once the store that held it has let it go.
fn granted_soon(store: &dyn Store, kind: LeaseKind) -> Lease {
    let started = Instant::now();
    loop {
        if let Some(lease) = store.try_lease(kind).unwrap() {
            return lease;
        }
        assert!(started.elapsed() < LIMIT, "{kind:?} was never let go");
        std::thread::sleep(Duration::from_millis(20));
    }
}
