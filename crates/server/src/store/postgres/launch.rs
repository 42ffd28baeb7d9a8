//! Launch codes in PostgreSQL.

use super::PgTx;
use crate::store::launch::{parse_mode, LaunchRecord, LaunchTx, NewLaunch};
use crate::store::sqlite::rows::to_i64;
use crate::store::{corrupt, StoreResult};
use postgres::GenericClient;

pub(super) fn insert(client: &mut impl GenericClient, launch: &NewLaunch) -> StoreResult<()> {
    client.execute(
        "INSERT INTO launch_codes (code_hash, player_id, mode, lang, lobby_url, created_at_ms, expires_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[
            &&launch.code_hash[..],
            &launch.player_id,
            &launch.mode.as_str(),
            &launch.lang,
            &launch.lobby_url,
            &to_i64(launch.created_at_ms)?,
            &to_i64(launch.expires_at_ms)?,
        ],
    )?;
    Ok(())
}

pub(super) fn delete_expired(client: &mut impl GenericClient, now_ms: u64) -> StoreResult<u64> {
    Ok(client.execute(
        "DELETE FROM launch_codes WHERE expires_at_ms <= $1",
        &[&to_i64(now_ms)?],
    )?)
}

impl LaunchTx for PgTx<'_> {
    // A concurrent transaction updating the same row waits for this one,
    // then sees `used` and updates nothing (READ COMMITTED re-checks the
    // WHERE clause on the new row version).
    fn take_launch(
        &mut self,
        code_hash: &[u8; 32],
        now_ms: u64,
    ) -> StoreResult<Option<LaunchRecord>> {
        let row = self.0.query_opt(
            "UPDATE launch_codes SET used = TRUE
             WHERE code_hash = $1 AND NOT used AND expires_at_ms > $2
             RETURNING player_id, mode, lobby_url",
            &[&&code_hash[..], &to_i64(now_ms)?],
        )?;
        row.map(|r| {
            let mode: String = r.try_get(1)?;
            Ok(LaunchRecord {
                player_id: r.try_get(0)?,
                mode: parse_mode(&mode).ok_or_else(|| corrupt(format!("launch mode {mode:?}")))?,
                lobby_url: r.try_get(2)?,
            })
        })
        .transpose()
    }

    fn set_session_lobby(&mut self, token_hash: &[u8; 32], lobby_url: &str) -> StoreResult<()> {
        self.0.execute(
            "UPDATE sessions SET lobby_url = $1 WHERE token_hash = $2",
            &[&lobby_url, &&token_hash[..]],
        )?;
        Ok(())
    }
}
