//! The elements of player protection, built once around the game's own:
//! the bar under the title, the « Limites de jeu » panel, the status next
//! to « Jouer », the notice under the board, the reality-check dialog and
//! the footer's risk warning.

use crate::console::LogFailure;
use crate::dom::{child, set_attr, text_child};
use crate::i18n::Lang;
use crate::protection::EXCLUSION_CHOICES;
use crate::reality_check::CHOICES;
use crate::ui::Ui;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlButtonElement, HtmlElement, HtmlInputElement};

/// The elements of player protection, built once inside the game's root.
pub(in crate::app) struct GuardUi {
    pub(super) clock: HtmlElement,
    pub(super) limits_open: HtmlButtonElement,
    pub(super) play_money: HtmlElement,
    /// Next to « Jouer »: why it is disabled (exclusion, play stopped).
    pub(super) status: HtmlElement,
    pub(super) panel: HtmlElement,
    pub(super) panel_title: HtmlElement,
    pub(super) panel_close: HtmlButtonElement,
    pub(super) stake_now: HtmlElement,
    pub(super) stake_used: HtmlElement,
    pub(super) stake_pending: HtmlElement,
    pub(super) loss_now: HtmlElement,
    pub(super) loss_used: HtmlElement,
    pub(super) loss_pending: HtmlElement,
    pub(super) form: HtmlElement,
    pub(super) stake_input: HtmlInputElement,
    pub(super) loss_input: HtmlInputElement,
    pub(super) limits_message: HtmlElement,
    pub(super) reality: Vec<(u32, HtmlButtonElement)>,
    pub(super) panel_status: HtmlElement,
    pub(super) exclusions: Vec<(Option<u32>, HtmlButtonElement)>,
    pub(super) dialog: HtmlElement,
    pub(super) figures: [HtmlElement; 5],
    pub(super) continue_button: HtmlButtonElement,
    pub(super) stop_button: HtmlButtonElement,
    pub(super) warning: HtmlElement,
}

fn button(parent: &Element, class: &str, text: &str) -> Result<HtmlButtonElement, JsValue> {
    let b: HtmlButtonElement = child(parent, "button", class)?.dyn_into()?;
    b.set_type("button");
    b.set_text_content(Some(text));
    Ok(b)
}

/// Inserts `element` right after `anchor` (or at the end of `root`).
fn place_after(root: &Element, anchor: Option<Element>, element: &Element) {
    let next = anchor.and_then(|a| a.next_sibling());
    root.insert_before(element, next.as_ref())
        .log_failure("placing a protection element");
}

fn find(root: &Element, selector: &str) -> Option<Element> {
    root.query_selector(selector).ok().flatten()
}

/// One weekly limit's lines in the panel: in force, used, pending.
fn limit_block(
    parent: &Element,
    title: &str,
) -> Result<(HtmlElement, HtmlElement, HtmlElement), JsValue> {
    let block = child(parent, "div", "eld-limit")?;
    text_child(&block, "h3", "", title)?;
    let now = text_child(&block, "p", "eld-limit-now", "")?;
    let used = text_child(&block, "p", "eld-limit-used", "")?;
    let pending = text_child(&block, "p", "eld-limit-pending", "")?;
    pending.set_hidden(true);
    Ok((now, used, pending))
}

fn amount_input(
    form: &Element,
    id: &str,
    label: &str,
    hint_id: &str,
) -> Result<HtmlInputElement, JsValue> {
    let field = child(form, "div", "eld-field")?;
    let label_el = text_child(&field, "label", "", label)?;
    set_attr(&label_el, "for", id);
    let input: HtmlInputElement = child(&field, "input", "eld-amount")?.dyn_into()?;
    input.set_id(id);
    input.set_type("text");
    set_attr(&input, "inputmode", "decimal");
    set_attr(&input, "autocomplete", "off");
    set_attr(&input, "aria-describedby", hint_id);
    Ok(input)
}

impl GuardUi {
    /// Builds every protection element around the game's own (the ids are
    /// unique per page: one game per page).
    pub(in crate::app) fn build(ui: &Ui, lang: Lang) -> Result<GuardUi, JsValue> {
        let p = lang.protection();
        let root: &Element = &ui.root;
        let doc = crate::dom::document()?;

        // The bar under the title: 18+, the session clock, the limits.
        let bar = crate::dom::el(&doc, "div", "eld-guard")?;
        place_after(root, find(root, ".eld-top"), &bar);
        let adults = child(&bar, "p", "eld-adults")?;
        let badge = text_child(&adults, "strong", "eld-adults-badge", p.adults_badge)?;
        set_attr(&badge, "aria-hidden", "true");
        text_child(&adults, "span", "eld-adults-text", p.adults_only)?;
        let clock_box = child(&bar, "p", "eld-clock")?;
        let label = text_child(&clock_box, "span", "eld-clock-label", p.clock_label)?;
        label.set_id("eld-clock-label");
        let clock = text_child(&clock_box, "span", "eld-clock-value", "0:00:00")?;
        set_attr(&clock, "role", "timer");
        set_attr(&clock, "aria-labelledby", "eld-clock-label");
        let limits_open = button(&bar, "eld-limits-open", p.limits_button)?;
        set_attr(&limits_open, "aria-expanded", "false");
        set_attr(&limits_open, "aria-controls", "eld-limits");
        let play_money = text_child(&bar, "p", "eld-play-money", p.play_money_session)?;
        play_money.set_hidden(true);

        // The panel, opened by the bar's button.
        let panel = crate::dom::el(&doc, "section", "eld-limits")?;
        panel.set_id("eld-limits");
        panel.set_hidden(true);
        set_attr(&panel, "aria-labelledby", "eld-limits-title");
        place_after(root, Some(bar.clone().into()), &panel);
        let head = child(&panel, "div", "eld-limits-head")?;
        let panel_title = text_child(&head, "h2", "", p.limits_title)?;
        panel_title.set_id("eld-limits-title");
        panel_title.set_tab_index(-1);
        let panel_close = button(&head, "eld-limits-close", p.close)?;
        text_child(&panel, "p", "eld-limits-intro", p.limits_intro)?;
        let panel_status = text_child(&panel, "p", "eld-guard-excluded", "")?;
        panel_status.set_hidden(true);
        let (stake_now, stake_used, stake_pending) = limit_block(&panel, p.stake_limit)?;
        let (loss_now, loss_used, loss_pending) = limit_block(&panel, p.loss_limit)?;

        let form = child(&panel, "form", "eld-limits-form")?;
        set_attr(&form, "novalidate", "");
        let stake_input = amount_input(
            &form,
            "eld-stake-limit",
            p.new_stake_limit,
            "eld-limit-hint",
        )?;
        let loss_input = amount_input(&form, "eld-loss-limit", p.new_loss_limit, "eld-limit-hint")?;
        let hint = text_child(&form, "p", "eld-hint", p.limit_hint)?;
        hint.set_id("eld-limit-hint");
        let save: HtmlButtonElement = child(&form, "button", "eld-limits-save")?.dyn_into()?;
        save.set_type("submit");
        save.set_text_content(Some(p.save_limits));
        let limits_message = child(&form, "p", "eld-limits-message")?;
        set_attr(&limits_message, "role", "status");

        let group = child(&panel, "fieldset", "eld-reality-setting")?;
        text_child(&group, "legend", "", p.reality_setting)?;
        let mut reality = Vec::new();
        for minutes in CHOICES {
            let b = button(
                &group,
                "eld-reality-choice",
                &format!("{minutes} {}", p.minutes),
            )?;
            set_attr(&b, "data-minutes", &minutes.to_string());
            set_attr(&b, "aria-pressed", "false");
            reality.push((minutes, b));
        }

        let exclusion = child(&panel, "div", "eld-exclusion")?;
        set_attr(&exclusion, "role", "group");
        set_attr(&exclusion, "aria-labelledby", "eld-exclusion-title");
        let title = text_child(&exclusion, "h3", "", p.exclusion_title)?;
        title.set_id("eld-exclusion-title");
        text_child(&exclusion, "p", "", p.exclusion_intro)?;
        let mut exclusions = Vec::new();
        for (index, days) in EXCLUSION_CHOICES.into_iter().enumerate() {
            let b: HtmlButtonElement = child(&exclusion, "button", "eld-exclude")?.dyn_into()?;
            b.set_type("button");
            text_child(&b, "strong", "", p.exclusion_choices[index])?;
            text_child(&b, "span", "eld-irreversible", p.irreversible)?;
            set_attr(&b, "aria-label", &lang.exclusion_choice_label(index));
            set_attr(
                &b,
                "data-days",
                &days.map_or_else(|| "none".to_owned(), |d| d.to_string()),
            );
            exclusions.push((days, b));
        }

        // Next to « Jouer »: why it cannot be pressed.
        let status = crate::dom::el(&doc, "p", "eld-guard-status")?;
        status.set_id("eld-guard-status");
        set_attr(&status, "role", "status");
        status.set_hidden(true);
        place_after(root, find(root, ".eld-controls"), &status);

        // On every ticket: its result was fixed when it was bought.
        let fixed = crate::dom::el(&doc, "p", "eld-fixed")?;
        fixed.set_text_content(Some(p.fixed_at_purchase));
        place_after(root, find(root, ".eld-caption"), &fixed);

        // The reality check, over everything, between tickets only.
        let dialog = child(root, "div", "eld-reality")?;
        dialog.set_hidden(true);
        set_attr(&dialog, "role", "alertdialog");
        set_attr(&dialog, "aria-modal", "true");
        set_attr(&dialog, "aria-labelledby", "eld-reality-title");
        let card = child(&dialog, "div", "eld-reality-card")?;
        let title = text_child(&card, "h2", "", p.reality_title)?;
        title.set_id("eld-reality-title");
        let list = child(&card, "dl", "eld-reality-figures")?;
        let mut cells = Vec::new();
        for (name, term) in [
            ("played", p.time_played),
            ("tickets", p.tickets),
            ("stakes", p.stakes),
            ("prizes", p.prizes),
            ("net", p.net),
        ] {
            text_child(&list, "dt", "", term)?;
            let value = text_child(&list, "dd", "", "")?;
            set_attr(&value, "data-figure", name);
            cells.push(value);
        }
        let figures: [HtmlElement; 5] = cells
            .try_into()
            .map_err(|_| JsValue::from_str("five figures"))?;
        let actions = child(&card, "div", "eld-reality-actions")?;
        let continue_button = button(&actions, "eld-reality-continue", p.continue_playing)?;
        let stop_button = button(&actions, "eld-reality-stop", p.stop_playing)?;

        // The footer's risk warning takes the official wordings in turn.
        let warning = match find(root, ".eld-responsible") {
            Some(existing) => existing.dyn_into()?,
            None => {
                let footer = find(root, ".eld-footer").unwrap_or_else(|| root.clone());
                child(&footer, "p", "eld-responsible")?
            }
        };
        set_attr(&warning, "data-kind", "risk");

        Ok(GuardUi {
            clock,
            limits_open,
            play_money,
            status,
            panel,
            panel_title,
            panel_close,
            stake_now,
            stake_used,
            stake_pending,
            loss_now,
            loss_used,
            loss_pending,
            form,
            stake_input,
            loss_input,
            limits_message,
            reality,
            panel_status,
            exclusions,
            dialog,
            figures,
            continue_button,
            stop_button,
            warning,
        })
    }
}
