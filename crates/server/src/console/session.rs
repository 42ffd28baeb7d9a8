//! The console's sign-in. The operator key is checked once and exchanged
//! for a cookie that any server of the deployment can verify without a
//! table: `expiry.nonce.mac`, MAC'd under a secret derived from the
//! operator key (so every server sharing the key accepts it, and a new key
//! signs everybody out). Forms carry a CSRF token MAC'd from the same
//! nonce, on top of the cookie's `SameSite=Strict`.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// The cookie's name; its path is the console's, `/operator`.
pub const COOKIE: &str = "eldorado_console";

type HmacSha256 = Hmac<Sha256>;

/// One signed-in browser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signed {
    nonce: [u8; 16],
    pub expires_ms: u64,
}

pub struct ConsoleSessions {
    secret: [u8; 32],
    lifetime: Duration,
    /// Sessions signed out before their expiry, until then. Only this
    /// server's: another server of the deployment accepts such a cookie
    /// until it expires (`--console-session-minutes`).
    signed_out: Mutex<HashMap<[u8; 16], u64>>,
}

impl ConsoleSessions {
    pub fn new(secret: [u8; 32], lifetime: Duration) -> ConsoleSessions {
        ConsoleSessions {
            secret,
            lifetime,
            signed_out: Mutex::default(),
        }
    }

    fn mac(&self, purpose: &[u8], signed: &Signed) -> HmacSha256 {
        let mut mac =
            HmacSha256::new_from_slice(&self.secret).expect("HMAC takes keys of any length");
        mac.update(purpose);
        mac.update(&signed.nonce);
        mac.update(&signed.expires_ms.to_be_bytes());
        mac
    }

    /// A new session from `now_ms`: the cookie's value and the session.
    pub fn issue(&self, now_ms: u64, nonce: [u8; 16]) -> (String, Signed) {
        let signed = Signed {
            nonce,
            expires_ms: now_ms.saturating_add(self.lifetime.as_millis() as u64),
        };
        let tag = self.mac(b"session", &signed).finalize().into_bytes();
        let token = format!(
            "{}.{}.{}",
            signed.expires_ms,
            hex::encode(signed.nonce),
            hex::encode(tag)
        );
        (token, signed)
    }

    /// The session a cookie value names, if it is ours, unexpired and not
    /// signed out.
    pub fn verify(&self, token: &str, now_ms: u64) -> Option<Signed> {
        let mut parts = token.split('.');
        let (expires, nonce, tag) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some()
            || expires.is_empty()
            || !expires.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let mut bytes = [0u8; 16];
        hex::decode_to_slice(nonce, &mut bytes).ok()?;
        let signed = Signed {
            nonce: bytes,
            expires_ms: expires.parse().ok()?,
        };
        let tag = hex::decode(tag).ok()?;
        self.mac(b"session", &signed).verify_slice(&tag).ok()?;
        let signed_out = self.signed_out.lock().unwrap_or_else(|e| e.into_inner());
        (signed.expires_ms > now_ms && !signed_out.contains_key(&signed.nonce)).then_some(signed)
    }

    /// The token every form of this session carries.
    pub fn csrf(&self, signed: &Signed) -> String {
        hex::encode(self.mac(b"csrf", signed).finalize().into_bytes())
    }

    /// Whether a form's token is this session's (in constant time).
    pub fn csrf_matches(&self, signed: &Signed, presented: &str) -> bool {
        hex::decode(presented).is_ok_and(|tag| self.mac(b"csrf", signed).verify_slice(&tag).is_ok())
    }

    pub fn sign_out(&self, signed: &Signed, now_ms: u64) {
        let mut signed_out = self.signed_out.lock().unwrap_or_else(|e| e.into_inner());
        signed_out.retain(|_, expires| *expires > now_ms);
        signed_out.insert(signed.nonce, signed.expires_ms);
    }

    /// The `Set-Cookie` value of a new session. `Secure`: browsers keep it
    /// over plain HTTP on localhost only.
    pub fn cookie(&self, token: &str) -> String {
        format!(
            "{COOKIE}={token}; Path=/operator; Max-Age={}; HttpOnly; Secure; SameSite=Strict",
            self.lifetime.as_secs()
        )
    }

    /// The `Set-Cookie` value that removes it.
    pub fn cleared_cookie() -> String {
        format!("{COOKIE}=; Path=/operator; Max-Age=0; HttpOnly; Secure; SameSite=Strict")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sessions() -> ConsoleSessions {
        ConsoleSessions::new([7; 32], Duration::from_secs(3600))
    }

    #[test]
    fn a_session_verifies_until_it_expires_or_signs_out() {
        let sessions = sessions();
        let (token, signed) = sessions.issue(1_000, [1; 16]);
        assert_eq!(sessions.verify(&token, 1_000), Some(signed));
        assert_eq!(sessions.verify(&token, 1_000 + 3_600_000), None);
        sessions.sign_out(&signed, 2_000);
        assert_eq!(sessions.verify(&token, 2_000), None);
    }

    #[test]
    fn a_changed_or_foreign_token_is_refused() {
        let sessions = sessions();
        let (token, _) = sessions.issue(1_000, [1; 16]);
        let longer = token.replacen(&(3_601_000u64).to_string(), "9999999999999", 1);
        assert_eq!(sessions.verify(&longer, 1_000), None);
        let other = ConsoleSessions::new([8; 32], Duration::from_secs(3600));
        assert_eq!(other.verify(&token, 1_000), None);
        for junk in ["", "1.2", "x.00.00", &format!("{token}.1")] {
            assert_eq!(sessions.verify(junk, 1_000), None, "{junk}");
        }
    }

    #[test]
    fn the_csrf_token_is_the_sessions_own() {
        let sessions = sessions();
        let (_, one) = sessions.issue(1_000, [1; 16]);
        let (_, two) = sessions.issue(1_000, [2; 16]);
        assert!(sessions.csrf_matches(&one, &sessions.csrf(&one)));
        assert!(!sessions.csrf_matches(&one, &sessions.csrf(&two)));
        assert!(!sessions.csrf_matches(&one, ""));
        assert!(!sessions.csrf_matches(&one, "not hex"));
    }
}
