//! `eldorado beacon` as a deployment runs it: its rounds verify with the
//! engine against the key it prints, and it never publishes a round before
//! that round's time.

use eldorado_api::beacon::{BeaconInfo, BeaconRound};
use eldorado_engine::deal::{BeaconClock, BeaconKey, BEACON_SCHEME};
use reqwest::blocking::Client;
use reqwest::StatusCode;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

struct Beacon {
    child: Child,
    key: String,
    url: String,
}

impl Drop for Beacon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the beacon on a free port and reads the two lines it prints
/// first: its key, then where it listens.
fn start(dir: &std::path::Path, period_ms: &str) -> Beacon {
    let mut child = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["beacon", "--key-file"])
        .arg(dir.join("beacon.key"))
        .args(["--period-ms", period_ms, "--listen", "127.0.0.1:0"])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the beacon starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut line = || lines.next().expect("a line").expect("text");
    let key = line().strip_prefix("beacon key: ").unwrap().to_owned();
    let url = line()
        .strip_prefix("beacon listening on ")
        .unwrap()
        .to_owned();
    Beacon { child, key, url }
}

fn json<T: serde::de::DeserializeOwned>(response: reqwest::blocking::Response) -> T {
    assert_eq!(response.status(), StatusCode::OK);
    serde_json::from_str(&response.text().unwrap()).unwrap()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn key_of(hex_key: &str) -> BeaconKey {
    BeaconKey::from_bytes(&hex::decode(hex_key).unwrap().try_into().unwrap()).unwrap()
}

fn verified(key: &BeaconKey, round: &BeaconRound) -> [u8; 32] {
    let signature = hex::decode(&round.signature).unwrap().try_into().unwrap();
    let randomness = key.verify(round.round, &signature).unwrap();
    assert_eq!(hex::encode(randomness), round.randomness);
    randomness
}

#[test]
fn rounds_verify_against_the_printed_key_and_the_future_is_not_served() {
    let dir = tempfile::tempdir().unwrap();
    let beacon = start(dir.path(), "250");
    let client = Client::new();
    let info: BeaconInfo = client
        .get(format!("{}/info", beacon.url))
        .send()
        .map(json)
        .unwrap();
    assert_eq!(info.public_key, beacon.key);
    assert_eq!(info.scheme_id, BEACON_SCHEME);
    assert_eq!((info.genesis_time_ms, info.period_ms), (Some(0), Some(250)));
    let clock = BeaconClock {
        genesis_ms: 0,
        period_ms: 250,
    };
    let key = key_of(&info.public_key);

    let before = clock.round_at(now_ms());
    let latest: BeaconRound = client
        .get(format!("{}/public/latest", beacon.url))
        .send()
        .map(json)
        .unwrap();
    let after = clock.round_at(now_ms());
    assert!((before..=after).contains(&latest.round), "{latest:?}");
    verified(&key, &latest);

    // A past round is the same whenever it is asked for, and cacheable.
    let past = client
        .get(format!("{}/public/{}", beacon.url, latest.round - 3))
        .send()
        .unwrap();
    assert!(past
        .headers()
        .get("cache-control")
        .unwrap()
        .to_str()
        .unwrap()
        .contains("immutable"));
    let past: BeaconRound = json(past);
    let again: BeaconRound = client
        .get(format!("{}/public/{}", beacon.url, latest.round - 3))
        .send()
        .map(json)
        .unwrap();
    assert_eq!(past, again);
    assert_ne!(verified(&key, &past), verified(&key, &latest));

    // Rounds far enough ahead that no clock reaches them during the test.
    for ahead in [latest.round + 1_000, u64::MAX] {
        let future = client
            .get(format!("{}/public/{ahead}", beacon.url))
            .send()
            .unwrap();
        assert_eq!(future.status(), StatusCode::NOT_FOUND, "round {ahead}");
    }
    let zero = client
        .get(format!("{}/public/0", beacon.url))
        .send()
        .unwrap();
    assert_eq!(zero.status(), StatusCode::NOT_FOUND);
}

#[test]
fn the_key_file_keeps_the_beacon_the_same_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let first = start(dir.path(), "1000").key.clone();
    let second = start(dir.path(), "1000").key.clone();
    assert_eq!(first, second);
    let other = tempfile::tempdir().unwrap();
    assert_ne!(start(other.path(), "1000").key.clone(), first);
}

#[test]
fn a_period_of_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["beacon", "--key-file"])
        .arg(dir.path().join("beacon.key"))
        .args(["--period-ms", "0", "--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--period-ms"));
    assert!(!dir.path().join("beacon.key").exists());
}
