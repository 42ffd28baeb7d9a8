//! Loading the player: the server's configuration, then a session (the
//! launch token's, the remembered demo player's, or a new demo player).

use super::render::net_message;
use super::Inner;
use crate::api::{Config, NetError, Session};
use crate::console::LogFailure;
use crate::dom::{load_pref, save_pref, set_hidden, set_text};
use crate::net::Backend;
use crate::ui::fill_info;
use crate::verification::parse_public_key;
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
        let key = match parse_public_key(&config.public_key) {
            Ok(key) => key,
            Err(_) => {
                self.load_failed.set(true);
                self.show_error(&NetError::Decode);
                return;
            }
        };
        fill_info(&self.ui.info_body, self.lang, &config).log_failure("filling the info panel");
        self.token.replace(Some(session.token.clone()));
        self.config.replace(Some(config));
        set_hidden(&self.ui.notice, true);
        self.game
            .borrow_mut()
            .start(key, session.balance_cents, session.unrevealed);
        self.render();
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
