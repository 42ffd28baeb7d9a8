//! Loading the player: the server's configuration and the built page's
//! policy, then a session (the launch link's, this tab's launched one, the
//! remembered demo player's, or a new demo player). The operator key is
//! chosen here, pins first: a key that disagrees with a pin stops the game
//! before anything can be bought. The public record's witnesses and the
//! beacon are the policy's only: a server announcing others, or a page
//! built with no policy, stops it too.

use super::render::net_message;
use super::Inner;
use crate::api::{Config, NetError, PageMessage, PagePolicy, Session};
use crate::console::LogFailure;
use crate::dom::{load_pref, save_pref, set_attr, set_hidden, set_text};
use crate::game::Player;
use crate::net::Backend;
use crate::operator_key::{choose, fingerprint, BUILD_PIN};
use crate::record::choose_trust;
use crate::rules_check::mismatches;
use crate::ui::show_config_mismatch;
use futures_util::future::join;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;

const DEMO_TOKEN_KEY: &str = "eldorado.demo_token";
/// The session a launch link opened, for reloads of this tab only (session
/// storage): reloading the frame must not turn the operator's player into
/// a demo player, and the code in the link works only once.
const LAUNCHED_TOKEN_KEY: &str = "eldorado.launched_token";

const LAUNCH_INVALID: &str = "LAUNCH_INVALID";

/// Why the page has no session.
enum LoadError {
    Net(NetError),
    /// The launch link was refused; the lobby of this tab's earlier
    /// launched session, if it has one.
    LaunchRefused {
        lobby: Option<String>,
    },
}

impl Inner {
    pub(super) fn load(this: &Rc<Inner>) {
        this.load_failed.set(false);
        set_hidden(&this.ui.notice, false);
        set_text(&this.ui.notice_text, this.lang.texts().connecting);
        set_hidden(&this.ui.retry, true);
        let weak = Rc::downgrade(this);
        let backend = this.backend.clone();
        let code = this.launch.code.clone();
        spawn_local(async move {
            // A launch code works once: it is spent only once the server
            // answered the configuration, so that a retry can still use it.
            // Any other session is asked for at the same time: one round
            // trip less before « Jouer » on a slow network.
            let (config, session) = if code.is_some() {
                let config = load_config(backend.as_ref()).await;
                if let Err(error) = config {
                    if let Some(inner) = weak.upgrade() {
                        inner.load_error(LoadError::Net(error));
                    }
                    return;
                }
                (config, load_session(backend.as_ref(), code).await)
            } else {
                join(
                    load_config(backend.as_ref()),
                    load_session(backend.as_ref(), None),
                )
                .await
            };
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let (config, policy) = match config {
                Ok(loaded) => loaded,
                Err(error) => return inner.load_error(LoadError::Net(error)),
            };
            inner
                .portal
                .borrow_mut()
                .set_origins(config.portal_origins.clone());
            match session {
                Ok(session) => inner.started(config, policy, session),
                Err(error) => inner.load_error(error),
            }
        });
    }

    fn load_error(self: &Rc<Self>, error: LoadError) {
        self.load_failed.set(true);
        match error {
            LoadError::Net(error) => {
                self.show_error(&error);
                self.post_failure(&error);
            }
            LoadError::LaunchRefused { lobby } => {
                set_hidden(&self.ui.notice, false);
                set_attr(&self.ui.notice, "data-kind", "launch");
                set_text(&self.ui.notice_text, self.lang.launch_invalid());
                // Loading again would only meet the same used code.
                set_hidden(&self.ui.retry, true);
                self.show_lobby(&self.ui.notice_lobby, lobby.as_deref());
                self.post(PageMessage::Error {
                    code: LAUNCH_INVALID.to_owned(),
                });
            }
        }
    }

    fn started(self: &Rc<Self>, config: Config, policy: Option<PagePolicy>, session: Session) {
        let operator = match choose(BUILD_PIN, self.launch.key.as_deref(), &config.public_key) {
            Ok(operator) => operator,
            Err(problem) => return self.stop(self.lang.key_problem(problem), "OPERATOR_KEY"),
        };
        let trust = match choose_trust(policy.as_ref(), &config.log, &operator.key) {
            Ok(trust) => trust,
            Err(problem) => return self.stop(self.lang.trust_problem(problem), "PUBLIC_RECORD"),
        };
        self.record_trust.replace(Some(trust));
        let pin = policy.as_ref().and_then(|p| p.beacon.as_ref());
        let Ok(beacon) = crate::beacon_pin::choose(pin, &config) else {
            return self.stop(self.lang.texts().beacon_problem, "BEACON");
        };
        self.beacon.set(beacon);
        let t = self.lang.texts();
        let mut key_line = format!(
            "{} {} — {}",
            t.key_label,
            fingerprint(&operator.key),
            self.lang.key_source(operator.source)
        );
        // The build the server says it serves, to compare with the page
        // records of the public log (docs/PROTOCOL.md §9).
        if let Some(page) = config.page.as_deref().and_then(page_fingerprint) {
            key_line.push_str(&format!(" · {} {page}", t.page_label));
        }
        // A beacon that is not a public drand network is said to be one: its
        // key holder could know rounds ahead.
        let demo_draw = policy
            .as_ref()
            .and_then(|p| p.beacon.as_ref())
            .is_some_and(|b| {
                !b.public_key
                    .starts_with(eldorado_api::beacon::QUICKNET_KEY_PREFIX)
            });
        if demo_draw {
            key_line.push_str(" · ");
            key_line.push_str(t.demo_draw);
        }
        set_text(&self.ui.badge_key, &key_line);
        // The rules panel shows the engine's figures; the server's are only
        // compared with them, and a difference is a failed check.
        let figures = mismatches(&config);
        if !figures.is_empty() {
            crate::console::warn(&self.lang.config_mismatch(&figures));
            show_config_mismatch(&self.ui.info_body, self.lang, &figures)
                .log_failure("showing the configuration's failed check");
            Inner::open_rules(self, self.ui.rules_open.clone().into());
        }
        self.load_book(&operator);
        self.operator.set(Some(operator));
        self.token.replace(Some(session.token.clone()));
        self.show_lobby(&self.ui.lobby, session.lobby_url.as_deref());
        let player = Player {
            id: session.player_id.clone(),
            money: session.money,
        };
        self.player.replace(Some(player.clone()));
        set_hidden(&self.ui.notice, true);
        self.game.borrow_mut().start(
            operator.key,
            beacon.map(|b| b.key),
            player,
            session.balance_cents,
            session.unrevealed.clone(),
        );
        self.post(PageMessage::Ready);
        self.render();
        if beacon.is_some() {
            // Loaded while the player looks at the board, ready before a
            // deal comes back.
            crate::beacon_check::prefetch();
        }
        Inner::watch_height(self);
        Inner::guard_started(self, &session);
    }

    /// The operator key, or the public record's keys, cannot be trusted:
    /// the game stays stopped, with no retry (the same keys would disagree
    /// again). `code` is what the portal hears.
    fn stop(&self, text: &str, code: &str) {
        self.load_failed.set(true);
        set_hidden(&self.ui.notice, false);
        set_attr(&self.ui.notice, "data-kind", "key");
        set_text(&self.ui.notice_text, text);
        set_hidden(&self.ui.retry, true);
        self.post(PageMessage::Error {
            code: code.to_owned(),
        });
    }

    fn show_error(&self, error: &NetError) {
        set_hidden(&self.ui.notice, false);
        set_text(&self.ui.notice_text, &net_message(self.lang, error));
        set_hidden(&self.ui.retry, false);
    }
}

/// Session storage of this tab, or nothing when the browser refuses it.
fn tab_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

fn launched_token() -> Option<String> {
    tab_storage()?.get_item(LAUNCHED_TOKEN_KEY).ok().flatten()
}

fn remember_launched_session(token: &str) {
    if let Some(storage) = tab_storage() {
        storage
            .set_item(LAUNCHED_TOKEN_KEY, token)
            .log_failure("remembering the launched session");
    }
}

pub(super) fn forget_launched_session() {
    if let Some(storage) = tab_storage() {
        storage
            .remove_item(LAUNCHED_TOKEN_KEY)
            .log_failure("forgetting the launched session");
    }
}

/// Whether the server says this token names no live session.
fn is_gone(error: &NetError) -> bool {
    matches!(
        error,
        NetError::Api {
            status: 401 | 403 | 404,
            ..
        }
    )
}

/// The first 16 digits of a page fingerprint (64 hex digits), as shown.
fn page_fingerprint(hex: &str) -> Option<&str> {
    (hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit())).then(|| &hex[..16])
}

/// The server's configuration and the built page's policy, fetched side
/// by side. A page served with no policy gets `None`, which stops the game
/// with its own message; any other failure is a failed load, tried again.
async fn load_config(backend: &dyn Backend) -> Result<(Config, Option<PagePolicy>), NetError> {
    let (config, policy) = join(backend.config(), backend.page_policy()).await;
    let policy = match policy {
        Ok(policy) => Some(policy),
        Err(NetError::Api { status: 404, .. }) => None,
        Err(other) => return Err(other),
    };
    Ok((config?, policy))
}

async fn load_session(backend: &dyn Backend, code: Option<String>) -> Result<Session, LoadError> {
    if let Some(code) = code {
        return match backend.launch(&code).await {
            Ok(session) => {
                remember_launched_session(&session.token);
                Ok(session)
            }
            Err(NetError::Api { code, .. }) if code == LAUNCH_INVALID => {
                let lobby = match launched_token() {
                    Some(token) => backend.session(&token).await.ok().and_then(|s| s.lobby_url),
                    None => None,
                };
                Err(LoadError::LaunchRefused { lobby })
            }
            Err(other) => Err(LoadError::Net(other)),
        };
    }
    if let Some(token) = launched_token() {
        match backend.session(&token).await {
            Ok(session) => return Ok(session),
            Err(error) if is_gone(&error) => forget_launched_session(),
            Err(other) => return Err(LoadError::Net(other)),
        }
    }
    // A demo player is kept across reloads, so an interrupted ticket can be
    // found again; a stale token simply gets a fresh player.
    if let Some(token) = load_pref(DEMO_TOKEN_KEY) {
        match backend.session(&token).await {
            Ok(session) => return Ok(session),
            Err(error) if is_gone(&error) => {}
            Err(other) => return Err(LoadError::Net(other)),
        }
    }
    let session = backend.demo_player().await.map_err(LoadError::Net)?;
    save_pref(DEMO_TOKEN_KEY, Some(&session.token));
    Ok(session)
}
