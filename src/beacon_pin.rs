//! Which beacon the page checks deals with: the one the built page's policy
//! names (`www/pkg/page-policy.json`), key and schedule. The server's
//! announcement (`/api/config` `.dealing`) must be the same beacon, or the
//! game stops: an operator cannot swap in a beacon of its own, shift the
//! schedule the page dates rounds by, or stop dealing by the beacon.

use crate::api::{BeaconPin, Config};
use eldorado_engine::deal::{BeaconClock, BEACON_KEY_LEN};

/// Why the page will not play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeaconProblem;

/// The beacon every sale's deal must verify under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PinnedBeacon {
    pub key: [u8; BEACON_KEY_LEN],
    pub clock: BeaconClock,
}

/// The policy's beacon, once the server announced the same; `None` when
/// the policy says the game deals in order and the server agrees.
pub fn choose(
    pin: Option<&BeaconPin>,
    config: &Config,
) -> Result<Option<PinnedBeacon>, BeaconProblem> {
    let served = config.dealing.as_ref();
    let (pin, served) = match (pin, served) {
        (None, None) => return Ok(None),
        (Some(pin), Some(served)) => (pin, served),
        _ => return Err(BeaconProblem),
    };
    let parse = |text: &str| -> Result<[u8; BEACON_KEY_LEN], BeaconProblem> {
        hex::decode(text.trim())
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or(BeaconProblem)
    };
    let key = parse(&pin.public_key)?;
    let same = parse(&served.public_key)? == key
        && served.genesis_time_ms == pin.genesis_time_ms
        && served.period_ms == pin.period_ms;
    if !same || pin.period_ms == 0 {
        return Err(BeaconProblem);
    }
    Ok(Some(PinnedBeacon {
        key,
        clock: BeaconClock {
            genesis_ms: pin.genesis_time_ms,
            period_ms: pin.period_ms,
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use eldorado_api::beacon::Dealing;

    fn config(key: Option<&str>) -> Config {
        let mut config = crate::fixtures::config(&crate::fixtures::public_key_hex());
        config.dealing = key.map(|key| Dealing {
            beacon_url: "http://beacon.test".to_owned(),
            public_key: key.to_owned(),
            genesis_time_ms: 0,
            period_ms: 500,
            lead_ms: 1000,
            demo: true,
        });
        config
    }

    fn pin(key: &str, genesis_time_ms: u64, period_ms: u64) -> BeaconPin {
        BeaconPin {
            public_key: key.to_owned(),
            genesis_time_ms,
            period_ms,
        }
    }

    #[test]
    fn the_policys_beacon_only_when_the_server_announces_the_same() {
        let a = "ab".repeat(96);
        let b = "cd".repeat(96);
        assert_eq!(choose(None, &config(None)), Ok(None));
        let chosen = choose(Some(&pin(&a, 0, 500)), &config(Some(&a)))
            .unwrap()
            .unwrap();
        assert_eq!(chosen.key, [0xab; 96]);
        assert_eq!(chosen.clock.period_ms, 500);
        // A policy dealing in order refuses a server announcing a beacon,
        // and a beacon policy one that deals in order.
        assert_eq!(choose(None, &config(Some(&a))), Err(BeaconProblem));
        assert_eq!(
            choose(Some(&pin(&a, 0, 500)), &config(None)),
            Err(BeaconProblem)
        );
        // Another key, or the same key on another schedule.
        for other in [
            pin(&b, 0, 500),
            pin(&a, 1, 500),
            pin(&a, 0, 3000),
            pin("12", 0, 500),
        ] {
            assert_eq!(
                choose(Some(&other), &config(Some(&a))),
                Err(BeaconProblem),
                "{other:?}"
            );
        }
    }
}
