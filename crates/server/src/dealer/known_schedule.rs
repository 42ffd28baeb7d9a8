//! The beacon's schedule as this server last read it (`/info`), kept in
//! the data directory (`beacon-schedule.json`) beside its key: a server
//! restarted while its beacon is down starts with it, sells, and deals
//! once the beacon answers again (every round it deals by is still
//! verified against the pinned key).

use eldorado_engine::deal::{BeaconClock, BEACON_KEY_LEN};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Under the data directory.
pub const FILE: &str = "beacon-schedule.json";

#[derive(Serialize, Deserialize)]
struct Known {
    /// The beacon's key, in hex: a schedule read from another beacon is
    /// never used.
    public_key: String,
    genesis_time_ms: u64,
    period_ms: u64,
}

/// The schedule kept for the beacon of `key`, if any.
pub fn load(data_dir: &Path, key: &[u8; BEACON_KEY_LEN]) -> Option<BeaconClock> {
    let text = std::fs::read(data_dir.join(FILE)).ok()?;
    let known: Known = serde_json::from_slice(&text).ok()?;
    (known.public_key == hex::encode(key) && known.period_ms > 0).then_some(BeaconClock {
        genesis_ms: known.genesis_time_ms,
        period_ms: known.period_ms,
    })
}

/// Keeps `schedule` for the beacon of `key` (written whole, then renamed).
pub fn save(
    data_dir: &Path,
    key: &[u8; BEACON_KEY_LEN],
    schedule: BeaconClock,
) -> std::io::Result<()> {
    let known = Known {
        public_key: hex::encode(key),
        genesis_time_ms: schedule.genesis_ms,
        period_ms: schedule.period_ms,
    };
    let text = serde_json::to_vec_pretty(&known).map_err(std::io::Error::other)?;
    let path = data_dir.join(FILE);
    let partial = data_dir.join(format!("{FILE}.partial"));
    std::fs::write(&partial, text)?;
    std::fs::rename(partial, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schedule_is_kept_for_its_beacon_only() {
        let dir = tempfile::tempdir().unwrap();
        let key = [7u8; BEACON_KEY_LEN];
        assert_eq!(load(dir.path(), &key), None);
        let schedule = BeaconClock {
            genesis_ms: 1_692_803_367_000,
            period_ms: 3_000,
        };
        save(dir.path(), &key, schedule).unwrap();
        assert_eq!(load(dir.path(), &key), Some(schedule));
        assert_eq!(load(dir.path(), &[8u8; BEACON_KEY_LEN]), None);
        std::fs::write(dir.path().join(FILE), b"{").unwrap();
        assert_eq!(load(dir.path(), &key), None);
    }
}
