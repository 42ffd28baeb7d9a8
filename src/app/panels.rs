//! The history panel: past tickets listed (a result shows only once the
//! ticket is revealed and its signed sale verified here), one ticket
//! fetched, verified and drawn on demand, and its receipt downloaded.

use super::render::net_message;
use super::Inner;
use crate::api::{HistoryItem, NetError, SaleResponse};
use crate::board::Board;
use crate::console::LogFailure;
use crate::dom::{set_attr, set_hidden, text_child};
use crate::history::{row_result, Verdict};
use crate::money::format_cents;
use crate::net::Backend;
use crate::ui::{fill_checks, history_row};
use crate::verification::{verify, Buyer, Rejection, VerifiedTicket};
use eldorado_engine::Money;
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
        let backend = this.backend.clone();
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let result = reply.await;
            if let Ok(page) = &result {
                Inner::verify_rows(&weak, backend.as_ref(), &token, &page.items).await;
            }
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let lang = inner.lang;
            let body = &inner.ui.history_body;
            match result {
                Ok(page) => {
                    if !more {
                        // Out of the rows before they go, or it goes too.
                        inner.place_detail(None);
                        body.set_inner_html("");
                        inner.history_items.borrow_mut().clear();
                    }
                    for item in &page.items {
                        let verdict = inner.verdicts.borrow().get(&item.sale_id).copied();
                        history_row(body, lang, item, row_result(item, verdict))
                            .log_failure("adding a history row");
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

    /// Revealed tickets this page has not verified yet (bought before a
    /// reload, or elsewhere): their signed sales are fetched and verified
    /// before the rows show, so a row never shows an unverified result. A
    /// sale that cannot be fetched leaves its row « not verified ».
    async fn verify_rows(
        weak: &std::rc::Weak<Inner>,
        backend: &dyn Backend,
        token: &str,
        items: &[HistoryItem],
    ) {
        for item in items {
            let needed = weak.upgrade().is_some_and(|inner| {
                let verdict = inner.verdicts.borrow().get(&item.sale_id).copied();
                row_result(item, verdict).needs_check()
            });
            if !needed {
                continue;
            }
            let fetched = backend
                .sale(token, item.sale_id)
                .await
                .log_failure("fetching a past ticket to verify");
            if let (Some(response), Some(inner)) = (fetched, weak.upgrade()) {
                // The verdict is recorded either way; the row reads it.
                inner.verify_past(&response, item.stake_cents).ok();
            }
        }
    }

    /// Verifies a sale of this player fetched again from the server, with
    /// every check this page can still make, and records the verdict.
    fn verify_past(
        &self,
        response: &SaleResponse,
        stake: u64,
    ) -> Result<VerifiedTicket, Option<Rejection>> {
        let (Some(operator), Some(player)) = (self.operator.get(), self.player.borrow().clone())
        else {
            return Err(None);
        };
        let book = self.book.borrow();
        let beacon = self.beacon.get().map(|b| b.key);
        let buyer = Buyer {
            stake_cents: stake,
            player: &player.id,
            money: player.money,
            // The nonce of a past purchase is not kept.
            client_nonce: None,
            commitment_seen: book.seen_if_known(response.commitment.commitment.block),
            beacon: beacon.as_ref(),
        };
        let result = verify(response, &operator.key, &buyer);
        let verdict = match &result {
            Ok(ticket) => Verdict::Verified {
                prize_cents: ticket.prize_cents,
            },
            Err(_) => Verdict::Refused,
        };
        self.verdicts
            .borrow_mut()
            .insert(response.sale.sale.sale_id, verdict);
        result.map_err(Some)
    }

    pub(super) fn open_sale(this: &Rc<Inner>, sale_id: u64) {
        let Some(token) = this.token.borrow().clone() else {
            return;
        };
        let item = this
            .history_items
            .borrow()
            .iter()
            .find(|i| i.sale_id == sale_id)
            .cloned();
        let Some(item) = item else {
            return;
        };
        let row = this
            .ui
            .history_body
            .query_selector(&crate::text::around("[data-sale=\"", sale_id, "\"]"))
            .ok()
            .flatten()
            .and_then(|button| button.closest("tr").ok().flatten());
        this.place_detail(row);
        if !item.is_revealed() {
            let detail = &this.ui.history_detail;
            detail.set_inner_html("");
            text_child(
                detail,
                "p",
                "eld-hidden",
                this.lang.texts().history_not_revealed,
            )
            .log_failure("saying a ticket is not revealed yet");
            return;
        }
        let reply = this.backend.sale(&token, sale_id);
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let result = reply.await;
            if let Some(inner) = weak.upgrade() {
                inner
                    .show_sale(result, item.stake_cents)
                    .log_failure("showing a past ticket");
                // Where the player is looking: the row they opened.
                inner.ui.history_detail.scroll_into_view_with_bool(false);
            }
        });
    }

    /// Shows the ticket detail in a row right under `row` (the ticket
    /// opened), or back under the table when `None`.
    fn place_detail(&self, row: Option<web_sys::Element>) {
        let detail = &self.ui.history_detail;
        let placed = detail
            .parent_element()
            .and_then(|cell| cell.parent_element())
            .filter(|r| r.class_list().contains("eld-history-detail-row"));
        if let Some(old) = placed {
            old.remove();
        }
        let in_place = row.and_then(|row| {
            row.insert_adjacent_html("afterend", DETAIL_ROW).ok()?;
            let cell = row.next_element_sibling()?.first_element_child()?;
            cell.append_child(detail).ok()
        });
        if in_place.is_none() {
            self.ui
                .history
                .append_child(detail)
                .log_failure("putting the ticket detail back under the history");
        }
    }

    /// Downloads a ticket's receipt: the server's own JSON of the sale
    /// with its proofs on the public record.
    pub(super) fn download_receipt(this: &Rc<Inner>, sale_id: u64) {
        let Some(token) = this.token.borrow().clone() else {
            return;
        };
        let reply = this.backend.receipt(&token, sale_id);
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let result = reply.await;
            let Some(inner) = weak.upgrade() else {
                return;
            };
            match result {
                Ok(json) => crate::receipt::download(&json, sale_id)
                    .log_failure("downloading a receipt")
                    .unwrap_or(()),
                Err(error) => {
                    let detail = &inner.ui.history_detail;
                    detail.set_inner_html("");
                    text_child(detail, "p", "eld-error", &net_message(inner.lang, &error))
                        .log_failure("showing why the receipt did not download");
                }
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
        let ticket = match self.verify_past(&response, stake) {
            Ok(ticket) => ticket,
            Err(None) => return Ok(()),
            Err(Some(rejection)) => {
                let text = if rejection.equivocation {
                    t.equivocation.to_owned()
                } else {
                    lang.verification_failed(rejection.check)
                };
                text_child(detail, "p", "eld-error", &text)?;
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
            "h2",
            "",
            &format!(
                "#{} — {} — {result}",
                ticket.sale_id,
                format_cents(ticket.stake_cents, lang.money_notation())
            ),
        )?;
        if ticket.money == Money::Play {
            text_child(detail, "p", "eld-money-tag", t.play_money)?;
        }
        text_child(
            detail,
            "p",
            "eld-fixed",
            lang.protection().fixed_at_purchase,
        )?;
        let doc = crate::dom::document()?;
        let dpr = crate::dom::window()?.device_pixel_ratio();
        for (index, grid) in ticket.grids.iter().enumerate() {
            let figure = crate::dom::child(detail, "figure", "eld-history-grid")?;
            let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas")?.unchecked_into();
            set_attr(&canvas, "aria-hidden", "true");
            figure.append_child(&canvas)?;
            let label = if index == 0 {
                t.main_grid.to_owned()
            } else {
                {
                    let mut label = t.extra_grid.to_owned();
                    label.push(' ');
                    crate::text::push_decimal(&mut label, index as u64, 0);
                    label
                }
            };
            let caption = text_child(&figure, "figcaption", "", &label)?;
            caption.set_title(&lang.describe_grid(grid.rows()));
            let mut board = Board::new(canvas)?;
            board.set_notation(self.lang.money_notation());
            // As www/style.css shows it (max-width, aspect-ratio).
            let width = 280.0;
            board.fit(width, (width / crate::layout::ASPECT).round(), dpr)?;
            board.show(*grid, ticket.marks[index])?;
            text_child(&figure, "p", "eld-sr", &lang.describe_grid(grid.rows()))?;
        }
        let badge = crate::dom::child(detail, "details", "eld-badge")?;
        text_child(&badge, "summary", "", &format!("✓ {}", t.verified))?;
        let list = crate::dom::child(&badge, "ul", "eld-checks")?;
        fill_checks(&list, lang, &ticket.checks)?;
        Ok(())
    }
}

/// The row that holds a ticket's detail, right under the ticket opened.
const DETAIL_ROW: &str = "<tr class='eld-history-detail-row'><td colspan='5'></td></tr>";
