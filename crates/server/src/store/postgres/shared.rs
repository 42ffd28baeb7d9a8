//! What the servers of one deployment share through the database beyond
//! single transactions: the right to generate blocks, and the operator's
//! secrets.

use super::PooledClient;
use crate::store::{corrupt, GenerationLease, StoreResult};
use postgres::GenericClient;

/// The advisory lock key of block generation (any constant shared by all
/// servers, distinct from the migration lock).
const GENERATION_LOCK: i64 = 0x0e1d_0002;

/// The lock held on its own connection for the life of the lease. A server
/// that dies loses its connection, and PostgreSQL frees the lock with it,
/// so another server takes over generation.
struct HeldLock(PooledClient);

impl Drop for HeldLock {
    fn drop(&mut self) {
        if let Err(e) = self
            .0
            .execute("SELECT pg_advisory_unlock($1)", &[&GENERATION_LOCK])
        {
            tracing::warn!(error = %e, "releasing the generation lock (the session ends anyway)");
        }
    }
}

pub(super) fn try_generation_lease(
    mut client: PooledClient,
) -> StoreResult<Option<GenerationLease>> {
    let got: bool = client
        .query_one("SELECT pg_try_advisory_lock($1)", &[&GENERATION_LOCK])?
        .try_get(0)?;
    Ok(got.then(|| GenerationLease::new(HeldLock(client))))
}

/// The secret stored under `name`, or `fresh` if none was: the primary key
/// makes the first server's insert win, and every other server reads it.
pub(super) fn secret(
    client: &mut impl GenericClient,
    name: &str,
    fresh: [u8; 32],
) -> StoreResult<[u8; 32]> {
    client.execute(
        "INSERT INTO operator_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        &[&name, &&fresh[..]],
    )?;
    let stored: Vec<u8> = client
        .query_one(
            "SELECT secret FROM operator_secrets WHERE name = $1",
            &[&name],
        )?
        .try_get(0)?;
    stored
        .try_into()
        .map_err(|_| corrupt(format!("operator secret {name:?} is not 32 bytes")))
}
