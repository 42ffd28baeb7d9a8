//! What the page is launched with:
//! `?server=<url>&token=<session>&lang=en&key=<operator key, hex>`.
//! An operator portal embeds the game in an iframe with its own session
//! token; without one the game opens a demo player on the serving origin.

use crate::i18n::Lang;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Base URL of the API, without a trailing slash.
    pub server: String,
    /// Operator session token; `None` asks for a demo player.
    pub token: Option<String>,
    pub lang: Lang,
    /// The operator key the portal pins (hex), checked against the server's
    /// before any purchase; kept as given, so an unreadable one stops the game.
    pub key: Option<String>,
}

impl Launch {
    /// From the query's key/value pairs and the page's own origin.
    pub fn from_query<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
        origin: &str,
    ) -> Launch {
        let (mut server, mut token, mut lang, mut key) = (None, None, None, None);
        for (name, value) in pairs {
            match name {
                "server" => server = Some(value),
                "token" => token = Some(value),
                "lang" => lang = Some(value),
                "key" => key = Some(value),
                _ => {}
            }
        }
        let server = server
            .filter(|s| s.starts_with("https://") || s.starts_with("http://"))
            .unwrap_or(origin);
        Launch {
            server: server.trim_end_matches('/').to_owned(),
            token: token.filter(|t| is_token(t)).map(str::to_owned),
            lang: Lang::from_query(lang),
            key: key.map(str::to_owned),
        }
    }
}

/// Tokens go into a header: anything but plain ASCII letters and digits
/// would be refused by the browser or the server anyway.
fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 256
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_to_origin_demo_and_french() {
        let launch = Launch::from_query([], "https://jeux.example");
        assert_eq!(launch.server, "https://jeux.example");
        assert_eq!(launch.token, None);
        assert_eq!(launch.lang, Lang::Fr);
        assert_eq!(launch.key, None);
    }

    #[test]
    fn operator_launch() {
        let launch = Launch::from_query(
            [
                ("server", "https://api.example/"),
                ("token", "ab12"),
                ("lang", "en"),
                ("key", "ABCD"),
            ],
            "https://portal.example",
        );
        assert_eq!(launch.key.as_deref(), Some("ABCD"));
        assert_eq!(launch.server, "https://api.example");
        assert_eq!(launch.token.as_deref(), Some("ab12"));
        assert_eq!(launch.lang, Lang::En);
    }

    #[test]
    fn unusable_values_are_ignored() {
        let launch = Launch::from_query(
            [
                ("server", "javascript:alert(1)"),
                ("token", "a b\n"),
                ("lang", "xx"),
            ],
            "http://127.0.0.1:8080",
        );
        assert_eq!(launch.server, "http://127.0.0.1:8080");
        assert_eq!(launch.token, None);
        assert_eq!(launch.lang, Lang::Fr);
    }
}
