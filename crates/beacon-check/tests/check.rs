//! The page's round check gives what the engine's gives: a quicknet round's
//! published randomness, and for anything altered the error whose code the
//! page reads back.

use eldorado_beacon_check::check;
use eldorado_engine::deal::BeaconError;

const QUICKNET_KEY: &str = "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a";
const ROUND: u64 = 657_413;
const SIGNATURE: &str = "b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b";
const RANDOMNESS: &str = "fc1873a13f3545aeade8401532ef5519920652eee6b0d2b19ca12643b87b3587";

fn bytes(text: &str) -> Vec<u8> {
    hex::decode(text).unwrap()
}

/// What the page makes of the module's answer: the error read back from its code.
fn through_code(result: Result<[u8; 32], BeaconError>) -> Result<[u8; 32], BeaconError> {
    result.map_err(|error| BeaconError::from_code(error.code(), ROUND))
}

#[test]
fn a_published_round_gives_its_randomness() {
    let got = check(&bytes(QUICKNET_KEY), ROUND, &bytes(SIGNATURE)).unwrap();
    assert_eq!(hex::encode(got), RANDOMNESS);
}

#[test]
fn another_round_number_is_refused_as_not_the_beacons() {
    assert_eq!(
        through_code(check(&bytes(QUICKNET_KEY), ROUND + 1, &bytes(SIGNATURE))),
        Err(BeaconError::WrongSignature { round: ROUND })
    );
}

#[test]
fn altered_or_short_inputs_are_refused_with_their_own_error() {
    let mut signature = bytes(SIGNATURE);
    signature[47] ^= 1;
    let altered = check(&bytes(QUICKNET_KEY), ROUND, &signature);
    assert!(
        matches!(
            altered,
            Err(BeaconError::BadSignature { .. } | BeaconError::WrongSignature { .. })
        ),
        "{altered:?}"
    );
    assert_eq!(
        through_code(check(&bytes(QUICKNET_KEY), ROUND, &bytes(SIGNATURE)[..47])),
        Err(BeaconError::BadSignature { round: ROUND })
    );
    assert_eq!(
        through_code(check(&bytes(QUICKNET_KEY)[..95], ROUND, &bytes(SIGNATURE))),
        Err(BeaconError::BadKey)
    );
    assert_eq!(
        through_code(check(&bytes(QUICKNET_KEY), 0, &bytes(SIGNATURE))),
        Err(BeaconError::RoundZero)
    );
}

#[test]
fn every_error_reads_back_from_its_code() {
    let round = 7;
    for error in [
        BeaconError::BadKey,
        BeaconError::BadSignature { round },
        BeaconError::WrongSignature { round },
        BeaconError::RoundZero,
        BeaconError::NotChecked { round },
    ] {
        assert_eq!(BeaconError::from_code(error.code(), round), error);
    }
    assert_eq!(
        BeaconError::from_code(0, round),
        BeaconError::NotChecked { round }
    );
}
