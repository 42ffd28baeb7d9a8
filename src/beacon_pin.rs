//! Which beacon key the page checks deals with: the one the server
//! announces (`/api/config` `.dealing`), which a build may pin
//! (`ELDORADO_BEACON_KEY`, read when the bundle is compiled) so that an
//! operator cannot swap in a beacon of its own. A pin with no announced
//! beacon, or one that disagrees with it, stops the game.

use crate::api::Config;
use eldorado_engine::deal::BEACON_KEY_LEN;

/// The beacon key pinned into this bundle when it was built, if any.
pub const BUILD_PIN: Option<&str> = option_env!("ELDORADO_BEACON_KEY");

/// Why the page will not play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeaconProblem;

/// The key every sale's deal must verify under; `None` when the server
/// does not deal by a beacon (and the build pins none).
pub fn choose(
    build: Option<&str>,
    config: &Config,
) -> Result<Option<[u8; BEACON_KEY_LEN]>, BeaconProblem> {
    let parse = |text: &str| -> Result<[u8; BEACON_KEY_LEN], BeaconProblem> {
        hex::decode(text.trim())
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or(BeaconProblem)
    };
    let build = build
        .filter(|b| !b.trim().is_empty())
        .map(parse)
        .transpose()?;
    let served = config
        .dealing
        .as_ref()
        .map(|d| parse(&d.public_key))
        .transpose()?;
    match (build, served) {
        (Some(pinned), Some(served)) if pinned == served => Ok(Some(pinned)),
        (Some(_), _) => Err(BeaconProblem),
        (None, served) => Ok(served),
    }
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
        });
        config
    }

    #[test]
    fn the_announced_key_unless_a_pin_disagrees() {
        let a = "ab".repeat(96);
        let b = "cd".repeat(96);
        assert_eq!(choose(None, &config(None)), Ok(None));
        assert_eq!(choose(None, &config(Some(&a))), Ok(Some([0xab; 96])));
        assert_eq!(choose(Some(&a), &config(Some(&a))), Ok(Some([0xab; 96])));
        assert_eq!(choose(Some(""), &config(Some(&a))), Ok(Some([0xab; 96])));
        assert_eq!(choose(Some(&b), &config(Some(&a))), Err(BeaconProblem));
        // A build that pins a beacon refuses a server that deals without.
        assert_eq!(choose(Some(&a), &config(None)), Err(BeaconProblem));
        assert_eq!(choose(None, &config(Some("12"))), Err(BeaconProblem));
    }
}
