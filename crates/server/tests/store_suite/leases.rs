//! Leases: what one process of a deployment does at a time (generating
//! blocks, running the public log's sequencer on its interval). Two stores
//! on one database stand for two servers.

use crate::{eventually, Backend, Postgres};
use eldorado_server::store::{Lease, LeaseKind, Store};
use std::time::Duration;

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
        // Only this test's database: the other tests of this binary hold
        // advisory locks of their own at the same time.
        "SELECT pg_terminate_backend(pid) FROM pg_locks \
         WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid() \
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    );
    eventually(LIMIT, "the lease outlived its session", || {
        (!held.still_held()).then_some(())
    });
    granted_soon(&*second, LeaseKind::Sequencing);
}

/// The lease, once the store that held it has let it go.
fn granted_soon(store: &dyn Store, kind: LeaseKind) -> Lease {
    eventually(LIMIT, &format!("{kind:?} was never let go"), || {
        store.try_lease(kind).unwrap()
    })
}
