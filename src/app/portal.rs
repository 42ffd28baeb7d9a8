//! The game's side of the portal messages (`crate::portal`): what it tells
//! its parent as the game goes, and what it does when the parent asks.

use super::Inner;
use crate::api::{NetError, PageMessage, ParentMessage};
use crate::console::LogFailure;
use crate::dom::{set_attr, set_hidden};
use crate::game::Phase;
use crate::protection::Refusal;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;

impl Inner {
    pub(super) fn post(&self, message: PageMessage) {
        self.portal.borrow().post(&message);
    }

    /// After every render: the balance, when the shown one changed. The
    /// shown balance moves only with a verified sale or the server's word.
    pub(super) fn post_balance(&self, always: bool) {
        let balance = {
            let game = self.game.borrow();
            if game.phase() == &Phase::Loading {
                return;
            }
            game.balance()
        };
        if always || self.posted_balance.get() != Some(balance) {
            self.posted_balance.set(Some(balance));
            self.post(PageMessage::Balance {
                balance_cents: balance,
            });
        }
    }

    /// A failed exchange, as the portal reads it: funds apart (its cashier
    /// may help), every error by its API code.
    pub(super) fn post_failure(&self, error: &NetError) {
        let code = match error {
            NetError::Api { code, .. } if code == "INSUFFICIENT_FUNDS" => {
                return self.post(PageMessage::InsufficientFunds)
            }
            NetError::Api { code, .. } => code.clone(),
            NetError::Timeout => "TIMEOUT".to_owned(),
            NetError::Network => "NETWORK".to_owned(),
            NetError::Decode => "BAD_RESPONSE".to_owned(),
            NetError::Protection(Refusal::Limit { .. }) => "LIMIT_REACHED".to_owned(),
            NetError::Protection(Refusal::Excluded(_)) => "SELF_EXCLUDED".to_owned(),
        };
        self.post(PageMessage::Error { code });
    }

    /// The page's height, whenever its layout changes, so that the portal
    /// can size the iframe to it.
    pub(super) fn watch_height(this: &Rc<Inner>) {
        if !this.portal.borrow().is_framed() || this.page_watch.borrow().is_some() {
            return;
        }
        let weak = Rc::downgrade(this);
        let changed = Closure::<dyn FnMut()>::new(move || {
            if let Some(inner) = weak.upgrade() {
                inner.post_height();
            }
        });
        let Some(html) = crate::dom::document()
            .ok()
            .and_then(|d| d.document_element())
        else {
            return;
        };
        if let Some(observer) = web_sys::ResizeObserver::new(changed.as_ref().unchecked_ref())
            .log_failure("watching the page's height")
        {
            // Observing also reports the current size at once.
            observer.observe(&html);
            this.page_watch.replace(Some((observer, changed)));
        }
    }

    fn post_height(&self) {
        let Some(html) = crate::dom::document()
            .ok()
            .and_then(|d| d.document_element())
        else {
            return;
        };
        let height = html.get_bounding_client_rect().height().ceil().max(0.0) as u64;
        if self.posted_height.get() != Some(height) {
            self.posted_height.set(Some(height));
            self.post(PageMessage::Resize { height });
        }
    }

    /// A `message` event on the page's window.
    pub(super) fn on_message(this: &Rc<Inner>, event: web_sys::Event) {
        let Some(event) = event.dyn_ref::<web_sys::MessageEvent>() else {
            return;
        };
        let Some(message) = this.portal.borrow().accept(event) else {
            return;
        };
        match message {
            ParentMessage::Mute | ParentMessage::Unmute => {
                let mute = message == ParentMessage::Mute;
                if this.sound.borrow().muted() != mute {
                    this.sound.borrow_mut().toggle();
                    this.render();
                }
            }
            ParentMessage::RefreshBalance => Inner::reread_balance(this),
            ParentMessage::Close => Inner::close(this),
        }
    }

    /// The portal's cashier may have moved money: read the balance again
    /// and tell it, changed or not.
    fn reread_balance(this: &Rc<Inner>) {
        let Some(token) = this.token.borrow().clone() else {
            return;
        };
        let reply = this.backend.session(&token);
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let Some(inner) = weak.upgrade() else {
                return;
            };
            match reply.await {
                Ok(session) => {
                    inner.game.borrow_mut().set_balance(session.balance_cents);
                    inner.render();
                    inner.post_balance(true);
                }
                Err(error) => inner.post_failure(&error),
            }
        });
    }

    /// Ends the session and leaves only a closing sentence: no control,
    /// no listener, no message any more.
    fn close(this: &Rc<Inner>) {
        this.closed.set(true);
        this.portal.borrow_mut().silence();
        if let Some(token) = this.token.borrow_mut().take() {
            let reply = this.backend.end_session(&token);
            spawn_local(async move {
                reply.await.log_failure("ending the session");
            });
        }
        super::session::forget_launched_session();
        this.teardown();
        let root = &this.ui.root;
        root.set_inner_html("");
        if let Ok(text) =
            crate::dom::text_child(root, "p", "eld-closed", this.lang.session_closed())
        {
            set_attr(&text, "role", "status");
        }
    }

    /// Shows the lobby link if `url` is an http(s) URL on a portal origin
    /// (the server checked it already; the page does not rely on that).
    pub(super) fn show_lobby(&self, link: &web_sys::HtmlAnchorElement, url: Option<&str>) {
        let allowed = url.filter(|url| {
            let Ok(parsed) = web_sys::Url::new(url) else {
                return false;
            };
            matches!(parsed.protocol().as_str(), "http:" | "https:")
                && self.portal.borrow().knows_origin(&parsed.origin())
        });
        if let Some(url) = allowed {
            link.set_href(url);
        }
        set_hidden(link, allowed.is_none());
    }
}
