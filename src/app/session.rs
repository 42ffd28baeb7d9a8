//! Loading the player: the server's configuration, then a session (the
//! launch token's, the remembered demo player's, or a new demo player).
//! The operator key is chosen here, pins first: a key that disagrees with
//! a pin stops the game before anything can be bought.

use super::render::net_message;
use super::Inner;
use crate::api::{Config, NetError, Session};
use crate::console::LogFailure;
use crate::dom::{load_pref, save_pref, set_attr, set_hidden, set_text};
use crate::game::Player;
use crate::net::Backend;
use crate::operator_key::{choose, fingerprint, KeyProblem, BUILD_PIN};
use crate::rules_check::mismatches;
use crate::ui::fill_info;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;

const DEMO_TOKEN_KEY: &str = "eldorado.demo_token";

impl Inner {
    pub(super) fn load(this: &Rc<Inner>) {
        this.load_failed.set(false);
        set_hidden(&this.ui.notice, false);
        set_text(&this.ui.notice_text, this.lang.texts().connecting);
        set_hidden(&this.ui.retry, true);
        let weak = Rc::downgrade(this);
        let backend = this.backend.clone();
        let launch_token = this.launch.token.clone();
        spawn_local(async move {
            let result = load_session(backend.as_ref(), launch_token).await;
            let Some(inner) = weak.upgrade() else {
                return;
            };
            match result {
                Ok((config, session)) => inner.started(config, session),
                Err(error) => {
                    inner.load_failed.set(true);
                    inner.show_error(&error);
                }
            }
        });
    }

    fn started(self: &Rc<Self>, config: Config, session: Session) {
        let operator = match choose(BUILD_PIN, self.launch.key.as_deref(), &config.public_key) {
            Ok(operator) => operator,
            Err(problem) => return self.stop(problem),
        };
        let t = self.lang.texts();
        set_text(
            &self.ui.badge_key,
            &format!(
                "{} {} — {}",
                t.key_label,
                fingerprint(&operator.key),
                self.lang.key_source(operator.source)
            ),
        );
        // The rules panel shows the engine's figures; the server's are only
        // compared with them, and a difference is a failed check.
        let figures = mismatches(&config);
        if !figures.is_empty() {
            crate::console::warn(&format!("configuration contradicts the rules: {figures:?}"));
        }
        fill_info(&self.ui.info_body, self.lang, &figures).log_failure("filling the info panel");
        if !figures.is_empty() {
            self.ui
                .info
                .set_attribute("open", "")
                .log_failure("opening the rules panel on a failed check");
        }
        self.load_book(&operator);
        self.operator.set(Some(operator));
        self.token.replace(Some(session.token.clone()));
        let player = Player {
            id: session.player_id.clone(),
            money: session.money,
        };
        self.player.replace(Some(player.clone()));
        set_hidden(&self.ui.notice, true);
        self.game.borrow_mut().start(
            operator.key,
            player,
            session.balance_cents,
            session.unrevealed.clone(),
        );
        self.render();
        Inner::guard_started(self, &session);
    }

    /// The operator key cannot be trusted: the game stays stopped, with no
    /// retry (the same keys would disagree again).
    fn stop(&self, problem: KeyProblem) {
        self.load_failed.set(true);
        set_hidden(&self.ui.notice, false);
        set_attr(&self.ui.notice, "data-kind", "key");
        set_text(&self.ui.notice_text, self.lang.key_problem(problem));
        set_hidden(&self.ui.retry, true);
    }

    fn show_error(&self, error: &NetError) {
        set_hidden(&self.ui.notice, false);
        set_text(&self.ui.notice_text, &net_message(self.lang, error));
        set_hidden(&self.ui.retry, false);
    }
}

async fn load_session(
    backend: &dyn Backend,
    launch_token: Option<String>,
) -> Result<(Config, Session), NetError> {
    let config = backend.config().await?;
    if let Some(token) = launch_token {
        let session = backend.session(&token).await?;
        return Ok((config, session));
    }
    // A demo player is kept across reloads, so an interrupted ticket can be
    // found again; a stale token simply gets a fresh player.
    if let Some(token) = load_pref(DEMO_TOKEN_KEY) {
        match backend.session(&token).await {
            Ok(session) => return Ok((config, session)),
            Err(NetError::Api {
                status: 401 | 403 | 404,
                ..
            }) => {}
            Err(other) => return Err(other),
        }
    }
    let session = backend.demo_player().await?;
    save_pref(DEMO_TOKEN_KEY, Some(&session.token));
    Ok((config, session))
}
