//! The page's elements: built once from a template in Rust (so the tests
//! can mount the whole game anywhere), then only looked up and updated.

use crate::api::HistoryItem;
use crate::dom::{html, set_attr, Lookup};
use crate::history::RowResult;
use crate::i18n::Lang;
use crate::money::{format_cents, format_cents_short};
use crate::rules_check::Figure;
use crate::rules_page::{symbol_at, SYMBOL_SIDE};
use crate::text::{decimal, push_decimal};
use eldorado_engine::verify::Check;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    Element, HtmlAnchorElement, HtmlButtonElement, HtmlCanvasElement, HtmlDialogElement,
    HtmlElement,
};

pub struct Ui {
    pub root: HtmlElement,
    pub balance: HtmlElement,
    pub mute: HtmlButtonElement,
    /// The sound button's words (its icons beside them stay).
    pub mute_text: HtmlElement,
    /// « Lobby »: back to the portal's lobby, when the session names one.
    pub lobby: HtmlAnchorElement,
    /// « Dernier gain »: the last prize, once its reveal has ended.
    pub last_win: HtmlElement,
    /// « ? »: opens the rules at the table of combinations.
    pub help: HtmlButtonElement,
    /// « Turbo »: a quicker reveal, remembered (aria-pressed).
    pub turbo: HtmlButtonElement,
    pub resume_box: HtmlElement,
    pub resume: HtmlButtonElement,
    pub canvas: HtmlCanvasElement,
    pub board_box: HtmlElement,
    pub popup: HtmlElement,
    pub popup_text: HtmlElement,
    pub popup_ok: HtmlButtonElement,
    pub extra_zone: HtmlElement,
    pub extra_count: HtmlElement,
    pub caption: HtmlElement,
    pub stakes: Vec<(u64, HtmlButtonElement)>,
    pub play: HtmlButtonElement,
    pub notice: HtmlElement,
    pub notice_text: HtmlElement,
    pub retry: HtmlButtonElement,
    /// « Retour au lobby », under a refused launch link.
    pub notice_lobby: HtmlAnchorElement,
    pub badge: HtmlElement,
    pub badge_label: HtmlElement,
    pub badge_list: HtmlElement,
    /// The operator key's fingerprint and where it comes from.
    pub badge_key: HtmlElement,
    pub live: HtmlElement,
    pub history: HtmlElement,
    pub history_body: HtmlElement,
    pub history_more: HtmlButtonElement,
    pub history_detail: HtmlElement,
    /// « Règles et gains »: opens the rules.
    pub rules_open: HtmlButtonElement,
    /// The rules: a modal dialog, its title and its page.
    pub info: HtmlDialogElement,
    pub info_title: HtmlElement,
    pub info_body: HtmlElement,
}

/// The page's static structure; `{}` are its texts, `{!}` the stake
/// buttons (no whitespace between tags: it would add text nodes). The
/// board is a labelled group, not an image: the win window's button is
/// inside it, and an image's content is not meant to be interactive.
const PAGE: &str = "\
<header class='eld-top'>\
    <h1 class='eld-title'><svg class='eld-emblem' viewBox='-10 -10 20 20' aria-hidden='true'><g fill='#f0c14b'><circle r='4.2'/><path d='M0-10 1.6-5.6h-3.2zM0 10l1.6-4.4h-3.2zM-10 0l4.4 1.6v-3.2zM10 0 5.6 1.6v-3.2zM-7 -7l4.3 2-2.3 2.3zM7 7 2.7 5 5 2.7zM7 -7 5 -2.7 2.7-5zM-7 7l2-4.3 2.3 2.3z'/></g></svg><span class='eld-title-text'>{}</span></h1>\
    <p class='eld-balance'><span class='eld-balance-label'>{}</span><strong class='eld-balance-value'>–</strong></p>\
    <a class='eld-lobby' target='_top' hidden>{}</a>\
    <button class='eld-mute' type='button'>\
        <svg class='eld-icon eld-sound-on' viewBox='0 0 24 24' aria-hidden='true' fill='none' stroke='#f6ecd9' stroke-width='2'><path d='M4 9h4l5-4v14l-5-4H4z' fill='#f6ecd9'/><path d='M16 8a5 5 0 0 1 0 8M19 5a9 9 0 0 1 0 14'/></svg>\
        <svg class='eld-icon eld-sound-off' viewBox='0 0 24 24' aria-hidden='true' fill='none' stroke='#f6ecd9' stroke-width='2'><path d='M4 9h4l5-4v14l-5-4H4z' fill='#f6ecd9'/><path d='M16 9l6 6M22 9l-6 6'/></svg>\
        <span class='eld-mute-text'>{}</span>\
    </button>\
    <button class='eld-turbo' type='button' aria-pressed='false'>\
        <svg class='eld-icon' viewBox='0 0 24 24' aria-hidden='true'><path d='M13 2 4 14h7l-1 8 9-12h-7z' fill='#f0c14b' stroke='#2a1a08'/></svg>{}\
    </button>\
    <button class='eld-help' type='button' aria-label='{}' title='{}'>?</button>\
</header>\
<div class='eld-stage'>\
    <div class='eld-board' role='group' aria-label='{}' tabindex='0' aria-description='{}'>\
        <canvas class='eld-canvas' aria-hidden='true' width='660' height='340'></canvas>\
        <div class='eld-popup' hidden role='dialog' aria-labelledby='eld-popup-text'>\
            <p class='eld-popup-text' id='eld-popup-text'></p>\
            <button class='eld-popup-ok' type='button'>{}</button>\
        </div>\
    </div>\
    <div class='eld-extra-zone' role='img' hidden><span class='eld-extra-label'>{}</span><strong class='eld-extra-count'>0</strong></div>\
</div>\
<div class='eld-status'>\
    <p class='eld-caption'></p>\
    <p class='eld-last-win'><span class='eld-balance-label'>{}</span><strong class='eld-last-win-value'>–</strong></p>\
</div>\
<div class='eld-controls'>\
    <fieldset class='eld-stakes'><legend>{}</legend>{!}</fieldset>\
    <button class='eld-play' type='button' aria-keyshortcuts='Space Enter'>{}</button>\
</div>\
<div class='eld-resume' hidden><p>{}</p><button class='eld-resume-btn' type='button'>{}</button></div>\
<div class='eld-notice' hidden>\
    <p class='eld-notice-text'></p>\
    <button class='eld-retry' type='button'>{}</button>\
    <a class='eld-notice-lobby' target='_top' hidden>{}</a>\
</div>\
<details class='eld-badge' hidden>\
    <summary><span class='eld-badge-label'>{}</span></summary>\
    <p>{}</p><ul class='eld-checks'></ul><p class='eld-key'></p>\
</details>\
<div class='eld-live' aria-live='polite' aria-atomic='true' role='status'></div>\
<details class='eld-history'>\
    <summary>{}</summary>\
    <table class='eld-history-table'>\
        <thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th><span class='eld-sr'>{}</span></th></tr></thead>\
        <tbody></tbody>\
    </table>\
    <button class='eld-history-more' type='button' hidden>{}</button>\
    <div class='eld-history-detail'></div>\
</details>\
<button class='eld-rules-open' type='button' aria-haspopup='dialog' aria-controls='eld-info'>{}</button>\
<dialog class='eld-info' id='eld-info' aria-labelledby='eld-info-title'>\
    <div class='eld-info-head'><h2 id='eld-info-title' tabindex='-1'>{}</h2><button class='eld-info-close' type='button'>{}</button></div>\
    <div class='eld-info-body'></div>\
</dialog>\
<footer class='eld-footer'><p class='eld-responsible'>{}</p></footer>";

const STAKE: &str = "<button class='eld-stake' type='button' data-stake='{}'>{}</button>";

impl Ui {
    pub fn build(root: &HtmlElement, lang: Lang, stakes: &[u64]) -> Result<Ui, JsValue> {
        let t = lang.texts();
        let money = lang.money_notation();
        let mut stake_html = String::new();
        for &stake in stakes {
            stake_html += &html(STAKE, &[&decimal(stake), &format_cents_short(stake, money)])?;
        }
        root.set_inner_html(&html(
            PAGE,
            &[
                t.title,
                t.balance,
                lang.lobby(),
                t.sound_on,
                lang.turbo(),
                lang.help(),
                lang.help(),
                t.grid_label,
                lang.uncover_hint(),
                t.ok,
                t.extra,
                lang.last_win(),
                t.stake,
                &stake_html,
                t.play,
                t.resume_offer,
                t.resume,
                t.retry,
                lang.back_to_lobby(),
                t.verified,
                t.checks_intro,
                t.history,
                t.history_time,
                t.stake,
                t.history_result,
                t.history_status,
                lang.protection().history_block,
                t.history_actions,
                t.history_more,
                t.rules,
                t.rules,
                lang.protection().close,
                t.responsible,
            ],
        )?);
        root.class_list().add_1("eld")?;
        set_attr(root, "lang", lang.code());

        let mut l = Lookup::new(root);
        let stake_buttons = l.after(".eld-stakes > legend", stakes.len());
        let ui = Ui {
            root: root.clone(),
            balance: l.get(".eld-balance-value"),
            mute: l.get(".eld-mute").unchecked_into(),
            mute_text: l.get(".eld-mute-text"),
            lobby: l.get(".eld-lobby").unchecked_into(),
            last_win: l.get(".eld-last-win-value"),
            help: l.get(".eld-help").unchecked_into(),
            turbo: l.get(".eld-turbo").unchecked_into(),
            resume_box: l.get(".eld-resume"),
            resume: l.get(".eld-resume-btn").unchecked_into(),
            canvas: l.get(".eld-canvas").unchecked_into(),
            board_box: l.get(".eld-board"),
            popup: l.get(".eld-popup"),
            popup_text: l.get(".eld-popup-text"),
            popup_ok: l.get(".eld-popup-ok").unchecked_into(),
            extra_zone: l.get(".eld-extra-zone"),
            extra_count: l.get(".eld-extra-count"),
            caption: l.get(".eld-caption"),
            stakes: stakes
                .iter()
                .copied()
                .zip(stake_buttons.into_iter().map(JsCast::unchecked_into))
                .collect(),
            play: l.get(".eld-play").unchecked_into(),
            notice: l.get(".eld-notice"),
            notice_text: l.get(".eld-notice-text"),
            retry: l.get(".eld-retry").unchecked_into(),
            notice_lobby: l.get(".eld-notice-lobby").unchecked_into(),
            badge: l.get(".eld-badge"),
            badge_label: l.get(".eld-badge-label"),
            badge_list: l.get(".eld-checks"),
            badge_key: l.get(".eld-key"),
            live: l.get(".eld-live"),
            history: l.get(".eld-history"),
            history_body: l.get(".eld-history-table > tbody"),
            history_more: l.get(".eld-history-more").unchecked_into(),
            history_detail: l.get(".eld-history-detail"),
            rules_open: l.get(".eld-rules-open").unchecked_into(),
            info: l.get(".eld-info").unchecked_into(),
            info_title: l.get("#eld-info-title"),
            info_body: l.get(".eld-info-body"),
        };
        l.finish()?;
        Ok(ui)
    }
}

const CHECK: &str = "<li class='eld-check-ok' data-check='{}'>{}</li>";

/// Fills a list with every check that ran on a verified ticket.
pub fn fill_checks(list: &Element, lang: Lang, checks: &[Check]) -> Result<(), JsValue> {
    let mut items = String::new();
    for check in checks {
        items += &html(CHECK, &[check.code(), lang.check_label(*check)])?;
    }
    list.set_inner_html(&items);
    Ok(())
}

const CONFIG_MISMATCH: &str =
    "<p class='eld-error eld-config-mismatch' data-kind='rejected' role='alert'>{}</p>";

/// The server's figures that contradict the engine's, as a failed check at
/// the top of the rules panel (whose page comes when it is first opened).
pub fn show_config_mismatch(
    body: &Element,
    lang: Lang,
    mismatches: &[Figure],
) -> Result<(), JsValue> {
    body.insert_adjacent_html(
        "afterbegin",
        &html(CONFIG_MISMATCH, &[&lang.config_mismatch(mismatches)])?,
    )
}

/// Draws the symbols of the rules panel's page, each in its
/// `canvas[data-symbol]` (the attribute goes once drawn).
pub fn draw_rules_symbols(body: &Element) -> Result<(), JsValue> {
    while let Some(picture) = body.query_selector("canvas[data-symbol]")? {
        let symbol = picture
            .get_attribute("data-symbol")
            .as_deref()
            .and_then(symbol_at);
        picture.remove_attribute("data-symbol")?;
        if let Some(symbol) = symbol {
            let ctx = crate::board::context_2d(picture.unchecked_ref())?;
            crate::symbols::draw_symbol(&ctx, symbol, f64::from(SYMBOL_SIDE))?;
        }
    }
    Ok(())
}

const HISTORY_ROW: &str = "\
<tr>\
    <td>{}</td><td>{}</td><td class='eld-history-result'>{}</td><td>{}</td><td class='eld-history-block'>{}</td>\
    <td class='eld-history-actions'>\
        <button class='eld-history-open' type='button' aria-label='{}' data-sale='{}'>↗</button>\
        <button class='eld-history-receipt' type='button' aria-label='{}' data-receipt='{}'>{}</button>\
    </td>\
</tr>";

/// One history row, its result as this page may show it.
pub fn history_row(
    body: &Element,
    lang: Lang,
    item: &HistoryItem,
    result: RowResult,
) -> Result<(), JsValue> {
    let t = lang.texts();
    let money = lang.money_notation();
    let date = js_sys::Date::new(&JsValue::from_f64(item.sold_at_ms as f64));
    let locale = match lang {
        Lang::Fr => "fr-FR",
        Lang::En => "en-GB",
    };
    let when: String = date.to_locale_string(locale, &JsValue::UNDEFINED).into();
    let status = if item.is_revealed() {
        t.revealed
    } else {
        t.unrevealed
    };
    let sale = decimal(item.sale_id);
    let (open, receipt) = match lang {
        Lang::Fr => (
            format!("Voir le ticket n° {sale}"),
            format!("Télécharger le reçu du ticket n° {sale}"),
        ),
        Lang::En => (
            format!("Show ticket no. {sale}"),
            format!("Download the receipt of ticket no. {sale}"),
        ),
    };
    let mut place = decimal(item.block);
    place.push_str(" / ");
    push_decimal(&mut place, item.position.into(), 0);
    body.insert_adjacent_html(
        "beforeend",
        &html(
            HISTORY_ROW,
            &[
                &when,
                &format_cents(item.stake_cents, money),
                &row_result_text(lang, result),
                status,
                &place,
                &open,
                &sale,
                &receipt,
                &sale,
                t.receipt,
            ],
        )?,
    )
}

/// A history row's result: a result only once revealed and verified.
fn row_result_text(lang: Lang, result: RowResult) -> String {
    let t = lang.texts();
    match result {
        RowResult::NotRevealed => t.history_hidden.to_owned(),
        RowResult::Unverified => t.not_verified.to_owned(),
        RowResult::Won(prize) => {
            format!("{} {}", t.won, format_cents(prize, lang.money_notation()))
        }
        RowResult::Lost => t.lost.to_owned(),
        RowResult::Refused => t.history_refused.to_owned(),
    }
}
