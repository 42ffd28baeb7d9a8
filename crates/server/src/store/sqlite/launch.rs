//! Launch codes in SQLite.

use super::rows::to_i64;
use super::SqlTx;
use crate::store::launch::{parse_mode, LaunchRecord, LaunchTx, NewLaunch};
use crate::store::{corrupt, StoreResult};
use rusqlite::{params, Connection, OptionalExtension};

pub(super) fn insert(conn: &Connection, launch: &NewLaunch) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO launch_codes (code_hash, player_id, mode, lang, lobby_url, created_at_ms, expires_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        &launch.code_hash[..],
        launch.player_id,
        launch.mode.as_str(),
        launch.lang,
        launch.lobby_url,
        to_i64(launch.created_at_ms)?,
        to_i64(launch.expires_at_ms)?,
    ])?;
    Ok(())
}

pub(super) fn delete_expired(conn: &Connection, now_ms: u64) -> StoreResult<u64> {
    let deleted = conn
        .prepare_cached("DELETE FROM launch_codes WHERE expires_at_ms <= ?1")?
        .execute([to_i64(now_ms)?])?;
    Ok(deleted as u64)
}

impl LaunchTx for SqlTx<'_> {
    fn take_launch(
        &mut self,
        code_hash: &[u8; 32],
        now_ms: u64,
    ) -> StoreResult<Option<LaunchRecord>> {
        let row = self
            .0
            .prepare_cached(
                "UPDATE launch_codes SET used = 1
                 WHERE code_hash = ?1 AND used = 0 AND expires_at_ms > ?2
                 RETURNING player_id, mode, lobby_url",
            )?
            .query_row(params![&code_hash[..], to_i64(now_ms)?], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                ))
            })
            .optional()?;
        row.map(|(player_id, mode, lobby_url)| {
            Ok(LaunchRecord {
                player_id,
                mode: parse_mode(&mode).ok_or_else(|| corrupt(format!("launch mode {mode:?}")))?,
                lobby_url,
            })
        })
        .transpose()
    }

    fn set_session_lobby(&mut self, token_hash: &[u8; 32], lobby_url: &str) -> StoreResult<()> {
        self.0
            .prepare_cached("UPDATE sessions SET lobby_url = ?1 WHERE token_hash = ?2")?
            .execute(params![lobby_url, &token_hash[..]])?;
        Ok(())
    }
}
