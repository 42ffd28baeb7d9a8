//! Whose key the page verifies with. By default the key the serving server
//! announces (`GET /api/config`); an operator can pin it instead, at build
//! time (`ELDORADO_OPERATOR_KEY`, read when the bundle is compiled) or in
//! the launch address (`?key=<hex>`). A pin that disagrees with the server,
//! or two pins that disagree, stop the game before any purchase.

use eldorado_engine::PublicKeyBytes;
use sha2::{Digest, Sha256};

/// The key pinned into this bundle when it was built, if any.
pub const BUILD_PIN: Option<&str> = option_env!("ELDORADO_OPERATOR_KEY");

/// Where the key the page uses comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeySource {
    /// Pinned into the bundle at build time.
    Build,
    /// Pinned by the launch address's `key` parameter.
    Launch,
    /// Announced by the server that serves the page (not pinned).
    Server,
}

/// Why the page will not play with any key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyProblem {
    /// A pin, or the server's key, is not a 64-hex-digit key.
    Unreadable(KeySource),
    /// Two of the keys given differ.
    Mismatch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperatorKey {
    pub key: PublicKeyBytes,
    pub source: KeySource,
}

/// Picks the key: every pin given must agree with the others and with the
/// server's; the most deliberate pin names the source.
pub fn choose(
    build: Option<&str>,
    launch: Option<&str>,
    served: &str,
) -> Result<OperatorKey, KeyProblem> {
    let parse = |text: &str, source| {
        PublicKeyBytes::from_hex(text.trim()).map_err(|_| KeyProblem::Unreadable(source))
    };
    // An empty variable at build time is no pin (a CI that always sets it).
    let build = build.filter(|b| !b.trim().is_empty());
    let pins = [(build, KeySource::Build), (launch, KeySource::Launch)];
    let mut chosen: Option<OperatorKey> = None;
    for (text, source) in pins {
        let Some(text) = text else { continue };
        let key = parse(text, source)?;
        match chosen {
            Some(first) if first.key != key => return Err(KeyProblem::Mismatch),
            Some(_) => {}
            None => chosen = Some(OperatorKey { key, source }),
        }
    }
    let served = parse(served, KeySource::Server);
    match (chosen, served) {
        (Some(pinned), Ok(served)) if pinned.key == served => Ok(pinned),
        (Some(_), _) => Err(KeyProblem::Mismatch),
        (None, Ok(key)) => Ok(OperatorKey {
            key,
            source: KeySource::Server,
        }),
        (None, Err(problem)) => Err(problem),
    }
}

/// A short fingerprint to compare by eye with the operator's published
/// one: the first 8 bytes of the key's SHA-256, in groups of four digits.
pub fn fingerprint(key: &PublicKeyBytes) -> String {
    // Not `{:02x}`, which would bring the integer formatting machinery
    // into the module for these 16 digits (issue 13).
    let digest = Sha256::digest(key.0);
    let mut hex = String::new();
    for (i, pair) in digest[..8].chunks(2).enumerate() {
        if i > 0 {
            hex.push(' ');
        }
        hex.push_str(&eldorado_engine::fixed_bytes::to_hex(pair));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "d04ab232742bb4ab3a1368bd4615e4e6d0224ab71a016baf8520a332c9778737";
    const B: &str = "ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c";

    #[test]
    fn the_server_key_without_pins() {
        let chosen = choose(None, None, A).unwrap();
        assert_eq!(chosen.source, KeySource::Server);
        assert_eq!(chosen.key.to_hex(), A);
        assert_eq!(choose(Some(""), None, A).unwrap().source, KeySource::Server);
    }

    #[test]
    fn pins_take_precedence_and_must_agree() {
        assert_eq!(choose(Some(A), None, A).unwrap().source, KeySource::Build);
        assert_eq!(choose(None, Some(A), A).unwrap().source, KeySource::Launch);
        assert_eq!(
            choose(Some(A), Some(A), A).unwrap().source,
            KeySource::Build
        );
        assert_eq!(
            choose(Some(&A.to_uppercase()), None, A).unwrap().source,
            KeySource::Build
        );
        assert_eq!(choose(None, Some(B), A), Err(KeyProblem::Mismatch));
        assert_eq!(choose(Some(B), None, A), Err(KeyProblem::Mismatch));
        assert_eq!(choose(Some(A), Some(B), A), Err(KeyProblem::Mismatch));
        assert_eq!(choose(None, Some(A), "zz"), Err(KeyProblem::Mismatch));
    }

    #[test]
    fn unreadable_keys_stop_the_game() {
        assert_eq!(
            choose(None, Some("abc"), A),
            Err(KeyProblem::Unreadable(KeySource::Launch))
        );
        assert_eq!(
            choose(Some("xyz"), None, A),
            Err(KeyProblem::Unreadable(KeySource::Build))
        );
        assert_eq!(
            choose(None, None, "nope"),
            Err(KeyProblem::Unreadable(KeySource::Server))
        );
    }

    #[test]
    fn fingerprint_is_short_and_stable() {
        let key = PublicKeyBytes::from_hex(A).unwrap();
        let print = fingerprint(&key);
        let digest = Sha256::digest(key.0);
        let expected: Vec<String> = digest[..8]
            .chunks(2)
            .map(|p| format!("{:02x}{:02x}", p[0], p[1]))
            .collect();
        assert_eq!(print, expected.join(" "));
        assert_eq!(print.len(), 19);
        assert_eq!(print, fingerprint(&key));
        assert_ne!(print, fingerprint(&PublicKeyBytes::from_hex(B).unwrap()));
    }
}
