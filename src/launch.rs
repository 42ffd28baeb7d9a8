//! What the page is launched with: `?launch=<code>&lang=en&key=<operator
//! key, hex>`. An operator's portal frames the game with the URL of a
//! launch link (`POST /api/operator/launches`), whose single-use code the
//! page trades for its session; without one the game opens a demo player.
//! The page always talks to the server it was served by: no bearer token
//! and no other server is ever taken from the address.

use crate::i18n::Lang;
use crate::text::split_once;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The launch code to trade for a session; `None` asks for a demo player.
    pub code: Option<String>,
    pub lang: Lang,
    /// The operator key the portal pins (hex), checked against the server's
    /// before any purchase; kept as given, so an unreadable one stops the game.
    pub key: Option<String>,
}

/// The query parameters the page reads; `launch` is removed from the
/// address as soon as it is read.
pub const PARAMS: [&str; 3] = ["launch", "lang", "key"];

impl Launch {
    /// From the query's key/value pairs.
    pub fn from_query<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Launch {
        let (mut code, mut lang, mut key) = (None, None, None);
        for (name, value) in pairs {
            match name {
                "launch" => code = Some(value),
                "lang" => lang = Some(value),
                "key" => key = Some(value),
                _ => {}
            }
        }
        Launch {
            code: code.filter(|c| is_code(c)).map(str::to_owned),
            lang: Lang::from_query(lang),
            key: key.map(str::to_owned),
        }
    }
}

/// Codes are hex digits; anything else is not sent (the page then says the
/// link is unusable, as the server would).
fn is_code(text: &str) -> bool {
    !text.is_empty() && text.len() <= 128 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The page's address without its launch code, for `history.replaceState`:
/// every other parameter and the fragment are kept as they were.
pub fn without_code(path: &str, search: &str, hash: &str) -> String {
    let mut address = String::from(path);
    let mut separator = '?';
    let mut rest = Some(search.trim_start_matches('?'));
    while let Some(text) = rest {
        let pair = match split_once(text, b'&') {
            Some((pair, after)) => {
                rest = Some(after);
                pair
            }
            None => {
                rest = None;
                text
            }
        };
        let name = split_once(pair, b'=').map_or(pair, |(name, _)| name);
        if !pair.is_empty() && name != "launch" {
            address.push(separator);
            address.push_str(pair);
            separator = '&';
        }
    }
    address.push_str(hash);
    address
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_to_demo_and_french() {
        let launch = Launch::from_query([]);
        assert_eq!(launch.code, None);
        assert_eq!(launch.lang, Lang::Fr);
        assert_eq!(launch.key, None);
    }

    #[test]
    fn a_portal_launch() {
        let code = "ab".repeat(32);
        let launch = Launch::from_query([
            ("launch", code.as_str()),
            ("lang", "en"),
            ("key", "ABCD"),
            // Older portals' parameters mean nothing now: the witnesses
            // come from the built page's policy only.
            ("witnesses", "w+1+AA"),
            ("quorum", "1"),
            ("server", "https://api.example/"),
            ("token", "ab12"),
        ]);
        assert_eq!(launch.code.as_deref(), Some(code.as_str()));
        assert_eq!(launch.key.as_deref(), Some("ABCD"));
        assert_eq!(launch.lang, Lang::En);
    }

    #[test]
    fn unusable_values_are_ignored() {
        let launch = Launch::from_query([("launch", "a b\n"), ("lang", "xx")]);
        assert_eq!(launch.code, None);
        assert_eq!(launch.lang, Lang::Fr);
        let long = "a".repeat(129);
        assert_eq!(Launch::from_query([("launch", long.as_str())]).code, None);
    }

    #[test]
    fn the_code_leaves_the_address_and_nothing_else_does() {
        assert_eq!(without_code("/", "?launch=abc&lang=en", ""), "/?lang=en");
        assert_eq!(
            without_code("/game/", "?lang=fr&launch=abc&key=01", "#top"),
            "/game/?lang=fr&key=01#top"
        );
        assert_eq!(without_code("/", "?launch=abc", ""), "/");
        assert_eq!(without_code("/", "", ""), "/");
        assert_eq!(without_code("/", "?launcher=1", ""), "/?launcher=1");
    }
}
