//! The elements of player protection, built once from templates around
//! the game's own: the bar under the title, the « Limites de jeu » panel,
//! the status next to « Jouer », the notice under the board, the
//! reality-check dialog and the footer's risk warning.

use crate::dom::{find, html, set_attr, Lookup};
use crate::i18n::Lang;
use crate::protection::EXCLUSION_CHOICES;
use crate::reality_check::CHOICES;
use crate::ui::Ui;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlButtonElement, HtmlDialogElement, HtmlElement, HtmlInputElement};

/// The elements of player protection, built once inside the game's root.
pub(in crate::app) struct GuardUi {
    pub(super) clock: HtmlElement,
    pub(super) limits_open: HtmlButtonElement,
    pub(super) play_money: HtmlElement,
    /// Next to « Jouer »: why it is disabled (exclusion, play stopped).
    pub(super) status: HtmlElement,
    /// « Limites de jeu », a modal dialog: the page behind it is inert,
    /// Escape closes it.
    pub(super) panel: HtmlDialogElement,
    pub(super) panel_title: HtmlElement,
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
    /// The second step of a self-exclusion: what it will do, confirmed or
    /// cancelled.
    pub(super) exclusion_confirm: HtmlElement,
    pub(super) exclusion_confirm_text: HtmlElement,
    pub(super) dialog: HtmlElement,
    pub(super) figures: [HtmlElement; 5],
    pub(super) continue_button: HtmlButtonElement,
    pub(super) warning: HtmlElement,
}

/// The bar under the title and the « Limites de jeu » panel it opens;
/// `{!}` are the reality-check periods and the exclusion choices.
const BAR_AND_PANEL: &str = "\
<div class='eld-guard'>\
    <p class='eld-adults'><strong class='eld-adults-badge' aria-hidden='true'>{}</strong><span class='eld-adults-text'>{}</span></p>\
    <p class='eld-clock'>\
        <svg class='eld-icon eld-clock-icon' viewBox='0 0 24 24' aria-hidden='true' fill='none' stroke='#cdbb9a' stroke-width='2'><circle cx='12' cy='13' r='8'/><path d='M12 9v4l3 2M9 2h6'/></svg>\
        <span class='eld-clock-label' id='eld-clock-label'>{}</span>\
        <span class='eld-clock-value' role='timer' aria-labelledby='eld-clock-label'>0:00:00</span>\
    </p>\
    <p class='eld-play-money' hidden>{}</p>\
    <button class='eld-limits-open' type='button' aria-expanded='false' aria-controls='eld-limits'>{}</button>\
</div>\
<dialog class='eld-limits' id='eld-limits' aria-labelledby='eld-limits-title'>\
    <div class='eld-limits-head'>\
        <h2 id='eld-limits-title' tabindex='-1'>{}</h2><button class='eld-limits-close' type='button'>{}</button>\
    </div>\
    <p class='eld-limits-intro'>{}</p>\
    <p class='eld-guard-excluded' hidden></p>\
    <div class='eld-limit'>\
        <h3>{}</h3><p class='eld-limit-now'></p><p class='eld-limit-used'></p><p class='eld-limit-pending' hidden></p>\
    </div>\
    <div class='eld-limit'>\
        <h3>{}</h3><p class='eld-limit-now'></p><p class='eld-limit-used'></p><p class='eld-limit-pending' hidden></p>\
    </div>\
    <form class='eld-limits-form' novalidate>\
        <div class='eld-field'>\
            <label for='eld-stake-limit'>{}</label>\
            <input class='eld-amount' id='eld-stake-limit' type='text' inputmode='decimal' autocomplete='off' aria-describedby='eld-limit-hint'>\
        </div>\
        <div class='eld-field'>\
            <label for='eld-loss-limit'>{}</label>\
            <input class='eld-amount' id='eld-loss-limit' type='text' inputmode='decimal' autocomplete='off' aria-describedby='eld-limit-hint'>\
        </div>\
        <p class='eld-hint' id='eld-limit-hint'>{}</p>\
        <button class='eld-limits-save' type='submit'>{}</button>\
        <p class='eld-limits-message' role='status'></p>\
    </form>\
    <fieldset class='eld-reality-setting'><legend>{}</legend>{!}</fieldset>\
    <div class='eld-exclusion' role='group' aria-labelledby='eld-exclusion-title'>\
        <h3 id='eld-exclusion-title'>{}</h3><p>{}</p>{!}\
        <div class='eld-exclusion-confirm' role='group' aria-labelledby='eld-exclusion-confirm-text' hidden>\
            <p class='eld-exclusion-confirm-text' id='eld-exclusion-confirm-text' tabindex='-1'></p>\
            <button class='eld-exclude-confirm' type='button'>{}</button>\
            <button class='eld-exclude-cancel' type='button'>{}</button>\
        </div>\
    </div>\
</dialog>";

const REALITY_CHOICE: &str =
    "<button class='eld-reality-choice' type='button' data-minutes='{}' aria-pressed='false'>{}</button>";

const EXCLUSION_CHOICE: &str = "\
<button class='eld-exclude' type='button' data-days='{}'>\
    <strong>{}</strong><span class='eld-irreversible'>{}</span>\
</button>";

/// Next to « Jouer »: why it cannot be pressed.
const STATUS: &str = "<p class='eld-guard-status' id='eld-guard-status' role='status' hidden></p>";

/// On every ticket: its result was fixed when it was bought.
const FIXED: &str = "<p class='eld-fixed'>{}</p>";

/// The reality check, over everything, between tickets only; `{!}` are
/// its figures.
const DIALOG: &str = "\
<div class='eld-reality' hidden role='alertdialog' aria-modal='true' aria-labelledby='eld-reality-title'>\
    <div class='eld-reality-card'>\
        <h2 id='eld-reality-title'>{}</h2>\
        <dl class='eld-reality-figures'>{!}</dl>\
        <div class='eld-reality-actions'>\
            <button class='eld-reality-continue' type='button'>{}</button>\
            <button class='eld-reality-stop' type='button'>{}</button>\
        </div>\
    </div>\
</div>";

const FIGURE: &str = "<dt>{}</dt><dd data-figure='{}'></dd>";

/// The reality check's figures, by their `data-figure`.
const FIGURES: [&str; 5] = ["played", "tickets", "stakes", "prizes", "net"];

/// Inserts `html` next to the element of `root` that `selector` names
/// (`position` as in `insertAdjacentHTML`).
fn insert(root: &Element, selector: &str, position: &str, html: &str) -> Result<(), JsValue> {
    find(root, selector)?.insert_adjacent_html(position, html)
}

impl GuardUi {
    /// Builds every protection element around the game's own (the ids are
    /// unique per page: one game per page).
    pub(in crate::app) fn build(ui: &Ui, lang: Lang) -> Result<GuardUi, JsValue> {
        let p = lang.protection();
        let root: &Element = &ui.root;

        let mut reality_html = String::new();
        for minutes in CHOICES {
            reality_html += &html(
                REALITY_CHOICE,
                &[
                    &crate::text::decimal(minutes.into()),
                    &(crate::text::around("", minutes.into(), " ") + p.minutes),
                ],
            )?;
        }
        let mut exclusion_html = String::new();
        // A choice's name is its visible text (the period, then that it is
        // final), inside the group « M'exclure du jeu »: no aria-label that
        // a voice-control user could not say.
        for (days, choice) in EXCLUSION_CHOICES.into_iter().zip(p.exclusion_choices) {
            exclusion_html += &html(
                EXCLUSION_CHOICE,
                &[
                    &days.map_or_else(|| "none".to_owned(), |d| crate::text::decimal(d.into())),
                    choice,
                    p.irreversible,
                ],
            )?;
        }
        let bar_and_panel = html(
            BAR_AND_PANEL,
            &[
                p.adults_badge,
                p.adults_only,
                p.clock_label,
                p.play_money_session,
                p.limits_button,
                p.limits_title,
                p.close,
                p.limits_intro,
                p.stake_limit,
                p.loss_limit,
                p.new_stake_limit,
                p.new_loss_limit,
                p.limit_hint,
                p.save_limits,
                p.reality_setting,
                &reality_html,
                p.exclusion_title,
                p.exclusion_intro,
                &exclusion_html,
                p.exclusion_confirm,
                p.exclusion_cancel,
            ],
        )?;
        insert(root, ".eld-top", "afterend", &bar_and_panel)?;
        insert(root, ".eld-controls", "afterend", STATUS)?;
        insert(
            root,
            ".eld-footer",
            "afterbegin",
            &html(FIXED, &[p.fixed_at_purchase])?,
        )?;
        let terms = [p.time_played, p.tickets, p.stakes, p.prizes, p.net];
        let mut figures_html = String::new();
        for (term, name) in terms.into_iter().zip(FIGURES) {
            figures_html += &html(FIGURE, &[term, name])?;
        }
        root.insert_adjacent_html(
            "beforeend",
            &html(
                DIALOG,
                &[
                    p.reality_title,
                    &figures_html,
                    p.continue_playing,
                    p.stop_playing,
                ],
            )?,
        )?;

        let mut l = Lookup::new(root);
        let reality = CHOICES
            .into_iter()
            .zip(l.after(".eld-reality-setting > legend", CHOICES.len()))
            .map(|(minutes, b)| (minutes, b.unchecked_into()))
            .collect();
        let exclusions = EXCLUSION_CHOICES
            .into_iter()
            .zip(l.after(".eld-exclusion > p", EXCLUSION_CHOICES.len()))
            .map(|(days, b)| (days, b.unchecked_into()))
            .collect();
        let guard = GuardUi {
            clock: l.get(".eld-clock-value"),
            limits_open: l.get(".eld-limits-open").unchecked_into(),
            play_money: l.get(".eld-play-money"),
            status: l.get(".eld-guard-status"),
            panel: l.get(".eld-limits").unchecked_into(),
            panel_title: l.get("#eld-limits-title"),
            stake_now: l.get(".eld-limit .eld-limit-now"),
            stake_used: l.get(".eld-limit .eld-limit-used"),
            stake_pending: l.get(".eld-limit .eld-limit-pending"),
            loss_now: l.get(".eld-limit + .eld-limit .eld-limit-now"),
            loss_used: l.get(".eld-limit + .eld-limit .eld-limit-used"),
            loss_pending: l.get(".eld-limit + .eld-limit .eld-limit-pending"),
            form: l.get(".eld-limits-form"),
            stake_input: l.get("#eld-stake-limit").unchecked_into(),
            loss_input: l.get("#eld-loss-limit").unchecked_into(),
            limits_message: l.get(".eld-limits-message"),
            reality,
            panel_status: l.get(".eld-guard-excluded"),
            exclusions,
            exclusion_confirm: l.get(".eld-exclusion-confirm"),
            exclusion_confirm_text: l.get(".eld-exclusion-confirm-text"),
            dialog: l.get(".eld-reality"),
            figures: FIGURES.map(|name| l.get(&format!("[data-figure={name}]"))),
            continue_button: l.get(".eld-reality-continue").unchecked_into(),
            warning: l.get(".eld-responsible"),
        };
        l.finish()?;
        // The footer's risk warning takes the official wordings in turn.
        set_attr(&guard.warning, "data-kind", "risk");
        Ok(guard)
    }
}
