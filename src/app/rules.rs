//! The rules panel: its page (`src/rules_page.rs`) is fetched the first
//! time the panel opens, not with the game, then its symbols are drawn.

use super::Inner;
use crate::console::LogFailure;
use crate::dom::text_child;
use crate::ui::draw_rules_symbols;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;

/// Where the rules panel's page stands.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum RulesPage {
    NotLoaded,
    /// On its way; `scroll`: « ? » asked for the paytable meanwhile.
    Loading {
        scroll: bool,
    },
    Shown,
}

impl Inner {
    /// Shows the rules, fetching their page the first time; `scroll`:
    /// then brings the paytable into view (« ? »).
    pub(super) fn show_rules(this: &Rc<Inner>, scroll: bool) {
        match this.rules.get() {
            RulesPage::Shown => {
                if scroll {
                    this.scroll_to_paytable();
                }
            }
            RulesPage::Loading { scroll: asked } => this.rules.set(RulesPage::Loading {
                scroll: asked || scroll,
            }),
            RulesPage::NotLoaded => {
                this.rules.set(RulesPage::Loading { scroll });
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
                    let scroll = inner.rules.get() == RulesPage::Loading { scroll: true };
                    match page {
                        Ok(page) => {
                            body.insert_adjacent_html("beforeend", &page)
                                .log_failure("showing the rules");
                            draw_rules_symbols(body).log_failure("drawing the paytable's symbols");
                            inner.rules.set(RulesPage::Shown);
                            if scroll {
                                inner.scroll_to_paytable();
                            }
                        }
                        Err(_) => {
                            // Opening the panel again tries again.
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
    }

    fn scroll_to_paytable(&self) {
        let target = self
            .ui
            .info_body
            .query_selector("#eld-combos")
            .ok()
            .flatten();
        let target: &web_sys::Element = target.as_ref().unwrap_or(&self.ui.info);
        target.scroll_into_view();
    }
}
