//! Beacon rounds as the League of Entropy's quicknet publishes them: the
//! engine accepts real rounds and refuses every altered one.

use eldorado_engine::deal::{BeaconClock, BeaconError, BeaconKey};

/// quicknet's chain information (public data, `GET /{chain}/info`).
const QUICKNET_KEY: &str = "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a";
const QUICKNET_GENESIS_MS: u64 = 1_692_803_367_000;

/// Two published rounds: (round, signature, randomness).
const ROUNDS: [(u64, &str, &str); 2] = [
    (
        1_000,
        "b44679b9a59af2ec876b1a6b1ad52ea9b1615fc3982b19576350f93447cb1125e342b73a8dd2bacbe47e4b6b63ed5e39",
        "",
    ),
    (
        657_413,
        "b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b",
        "fc1873a13f3545aeade8401532ef5519920652eee6b0d2b19ca12643b87b3587",
    ),
];

fn key() -> BeaconKey {
    BeaconKey::from_bytes(&hex::decode(QUICKNET_KEY).unwrap().try_into().unwrap()).unwrap()
}

fn signature(text: &str) -> [u8; 48] {
    hex::decode(text).unwrap().try_into().unwrap()
}

#[test]
fn quicknet_rounds_verify_and_give_their_published_randomness() {
    let key = key();
    for (round, sig, randomness) in ROUNDS {
        let got = key.verify(round, &signature(sig)).unwrap();
        if !randomness.is_empty() {
            assert_eq!(hex::encode(got), randomness);
        }
    }
}

#[test]
fn another_round_a_flipped_bit_or_another_key_is_refused() {
    let key = key();
    let (round, sig, _) = ROUNDS[1];
    let good = signature(sig);
    assert_eq!(
        key.verify(round + 1, &good),
        Err(BeaconError::WrongSignature { round: round + 1 })
    );
    assert_eq!(key.verify(0, &good), Err(BeaconError::RoundZero));
    // The other round's genuine signature is not this round's.
    assert!(key.verify(round, &signature(ROUNDS[0].1)).is_err());
    for byte in [0, 20, 47] {
        let mut flipped = good;
        flipped[byte] ^= 0x01;
        assert!(key.verify(round, &flipped).is_err(), "byte {byte}");
    }
    let mut other = hex::decode(QUICKNET_KEY).unwrap();
    other[95] ^= 0x01;
    match BeaconKey::from_bytes(&other.try_into().unwrap()) {
        Err(BeaconError::BadKey) => {}
        Ok(other) => assert!(other.verify(round, &good).is_err()),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn rounds_are_published_one_period_apart_from_genesis() {
    let clock = BeaconClock {
        genesis_ms: QUICKNET_GENESIS_MS,
        period_ms: 3_000,
    };
    assert_eq!(clock.round_at(QUICKNET_GENESIS_MS - 1), 0);
    assert_eq!(clock.round_at(QUICKNET_GENESIS_MS), 1);
    assert_eq!(
        clock.time_of(657_413),
        QUICKNET_GENESIS_MS + 657_412 * 3_000
    );
    let t = clock.time_of(657_413);
    assert_eq!(clock.round_at(t), 657_413);
    assert_eq!(clock.round_at(t - 1), 657_412);
    assert_eq!(clock.first_round_after(t - 1), 657_413);
    assert_eq!(clock.first_round_after(t), 657_414);
}
