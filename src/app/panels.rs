//! The side panels: past tickets (history list, one ticket fetched,
//! verified and drawn on demand) and what is left in the open block.

use super::render::net_message;
use super::Inner;
use crate::api::{NetError, SaleResponse};
use crate::board::Board;
use crate::console::LogFailure;
use crate::dom::{set_attr, set_hidden, text_child};
use crate::money::format_cents;
use crate::ui::{fill_checks, fill_remaining, history_row};
use crate::verification::{parse_public_key, verify};
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::spawn_local;

impl Inner {
    pub(super) fn load_history(this: &Rc<Inner>, more: bool) {
        let Some(token) = this.token.borrow().clone() else {
            return;
        };
        let before = if more {
            this.history_before.get()
        } else {
            None
        };
        let reply = this.backend.history(&token, before);
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let result = reply.await;
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let lang = inner.lang;
            let body = &inner.ui.history_body;
            match result {
                Ok(page) => {
                    if !more {
                        body.set_inner_html("");
                        inner.history_items.borrow_mut().clear();
                    }
                    for item in &page.items {
                        history_row(body, lang, item).log_failure("adding a history row");
                    }
                    if !more && page.items.is_empty() {
                        crate::dom::child(body, "tr", "")
                            .and_then(|row| text_child(&row, "td", "", lang.texts().history_empty))
                            .log_failure("saying the history is empty");
                    }
                    inner.history_items.borrow_mut().extend(page.items);
                    inner.history_before.set(page.next_before);
                    set_hidden(&inner.ui.history_more, page.next_before.is_none());
                }
                Err(error) => {
                    inner.ui.history_detail.set_inner_html("");
                    text_child(
                        &inner.ui.history_detail,
                        "p",
                        "eld-error",
                        &net_message(lang, &error),
                    )
                    .log_failure("showing why the history did not load");
                }
            }
        });
    }

    pub(super) fn open_sale(this: &Rc<Inner>, sale_id: u64, stake: u64) {
        let Some(token) = this.token.borrow().clone() else {
            return;
        };
        let reply = this.backend.sale(&token, sale_id);
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let result = reply.await;
            if let Some(inner) = weak.upgrade() {
                inner
                    .show_sale(result, stake)
                    .log_failure("showing a past ticket");
            }
        });
    }

    fn show_sale(&self, result: Result<SaleResponse, NetError>, stake: u64) -> Result<(), JsValue> {
        let lang = self.lang;
        let t = lang.texts();
        let detail = &self.ui.history_detail;
        detail.set_inner_html("");
        let response = match result {
            Ok(response) => response,
            Err(error) => {
                text_child(detail, "p", "eld-error", &net_message(lang, &error))?;
                return Ok(());
            }
        };
        let operator = self
            .config
            .borrow()
            .as_ref()
            .and_then(|c| parse_public_key(&c.public_key).ok());
        let Some(operator) = operator else {
            return Ok(());
        };
        let ticket = match verify(&response, &operator, stake) {
            Ok(ticket) => ticket,
            Err(rejection) => {
                text_child(
                    detail,
                    "p",
                    "eld-error",
                    &lang.verification_failed(rejection.check),
                )?;
                return Ok(());
            }
        };
        let result = if ticket.prize_cents > 0 {
            lang.you_win(ticket.prize_cents)
        } else {
            t.lost.to_owned()
        };
        text_child(
            detail,
            "h3",
            "",
            &format!(
                "#{} — {} — {result}",
                ticket.sale_id,
                format_cents(ticket.stake_cents, lang.money_notation())
            ),
        )?;
        let doc = crate::dom::document()?;
        let dpr = crate::dom::window()?.device_pixel_ratio();
        for (index, grid) in ticket.grids.iter().enumerate() {
            let figure = crate::dom::child(detail, "figure", "eld-history-grid")?;
            let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas")?.dyn_into()?;
            set_attr(&canvas, "aria-hidden", "true");
            figure.append_child(&canvas)?;
            let label = if index == 0 {
                t.main_grid.to_owned()
            } else {
                format!("{} {index}", t.extra_grid)
            };
            let caption = text_child(&figure, "figcaption", "", &label)?;
            caption.set_title(&lang.describe_grid(grid.rows()));
            let mut board = Board::new(canvas)?;
            board.fit(250.0, 150.0, dpr)?;
            board.show(*grid, ticket.marks[index])?;
            text_child(&figure, "p", "eld-sr", &lang.describe_grid(grid.rows()))?;
        }
        let badge = crate::dom::child(detail, "details", "eld-badge")?;
        text_child(&badge, "summary", "", &format!("✓ {}", t.verified))?;
        let list = crate::dom::child(&badge, "ul", "eld-checks")?;
        fill_checks(&list, lang, &ticket.checks)?;
        Ok(())
    }

    pub(super) fn load_blocks(this: &Rc<Inner>) {
        if !this.ui.info.has_attribute("open") {
            return;
        }
        let reply = this.backend.blocks();
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let result = reply.await;
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let stake = inner.game.borrow().stake();
            let config = inner.config.borrow();
            let Some(config) = config.as_ref() else {
                return;
            };
            let blocks = result.ok();
            let open = blocks.as_ref().and_then(|list| {
                list.blocks
                    .iter()
                    .find(|b| b.status == "open" && b.commitment.commitment.stake_cents == stake)
            });
            fill_remaining(&inner.ui.remaining, inner.lang, config, open, stake)
                .log_failure("filling the open block's remaining prizes");
        });
    }
}
