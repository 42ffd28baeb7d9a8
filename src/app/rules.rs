//! The rules: a modal dialog opened by « Règles et gains » and by « ? »,
//! always at its top. Its page (`src/rules_page.rs`) is fetched the first
//! time it opens, not with the game, then its symbols are drawn. Closing it
//! (its button, Escape) gives the focus back to what opened it.

use super::Inner;
use crate::console::LogFailure;
use crate::dom::text_child;
use crate::ui::draw_rules_symbols;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use web_sys::HtmlElement;

/// Where the rules' page stands.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum RulesPage {
    NotLoaded,
    Loading,
    Shown,
}

impl Inner {
    /// Opens the rules dialog at its top; `opener` gets the focus back
    /// when it closes.
    pub(super) fn open_rules(this: &Rc<Inner>, opener: HtmlElement) {
        let dialog = &this.ui.info;
        if !dialog.open() {
            dialog.show_modal().log_failure("opening the rules dialog");
        }
        this.rules_opener.replace(Some(opener));
        dialog.set_scroll_top(0);
        this.ui
            .info_title
            .focus()
            .log_failure("focusing the rules' title");
        Inner::load_rules(this);
    }

    pub(super) fn close_rules(&self) {
        self.ui.info.close();
    }

    /// The dialog closed, by its button or by Escape.
    pub(super) fn rules_closed(&self) {
        if let Some(opener) = self.rules_opener.take() {
            opener.focus().log_failure("focusing what opened the rules");
        }
    }

    /// Fetches the rules' page the first time (or after a failure).
    fn load_rules(this: &Rc<Inner>) {
        if this.rules.get() != RulesPage::NotLoaded {
            return;
        }
        this.rules.set(RulesPage::Loading);
        if let Ok(Some(failure)) = this.ui.info_body.query_selector(".eld-rules-error") {
            failure.remove();
        }
        let reply = this.backend.rules_page(this.lang);
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let page = reply.await;
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let body = &inner.ui.info_body;
            match page {
                Ok(page) => {
                    body.insert_adjacent_html("beforeend", &page)
                        .log_failure("showing the rules");
                    draw_rules_symbols(body).log_failure("drawing the paytable's symbols");
                    inner.rules.set(RulesPage::Shown);
                }
                Err(_) => {
                    // Opening the rules again tries again.
                    inner.rules.set(RulesPage::NotLoaded);
                    text_child(
                        body,
                        "p",
                        "eld-error eld-rules-error",
                        inner.lang.rules_unavailable(),
                    )
                    .log_failure("saying the rules did not load");
                }
            }
        });
    }
}
