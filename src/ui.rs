//! The page's elements: built once from a template in Rust (so the tests
//! can mount the whole game anywhere), then only looked up and updated.

use crate::api::{HistoryItem, Odds};
use crate::dom::{child, html, set_attr, text_child, Lookup};
use crate::history::RowResult;
use crate::i18n::Lang;
use crate::money::{format_cents, format_cents_short, format_ratio};
use crate::rules_check::{odds, stakes, Figure};
use crate::text::decimal;
use eldorado_engine::line::Award;
use eldorado_engine::prize_table::{max_win_cents, rtp_basis_points, RANKS};
use eldorado_engine::verify::Check;
use eldorado_engine::{Combination, Stake, Symbol};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlAnchorElement, HtmlButtonElement, HtmlCanvasElement, HtmlElement};

pub struct Ui {
    pub root: HtmlElement,
    pub balance: HtmlElement,
    pub mute: HtmlButtonElement,
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
    pub money_tag: HtmlElement,
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
    pub info: HtmlElement,
    pub info_body: HtmlElement,
}

/// The page's static structure; `{}` are its texts, `{!}` the stake
/// buttons (no whitespace between tags: it would add text nodes).
const PAGE: &str = "\
<header class='eld-top'>\
    <h1 class='eld-title'>{}</h1>\
    <p class='eld-balance'><span class='eld-balance-label'>{}</span><strong class='eld-balance-value'>–</strong></p>\
    <p class='eld-last-win'><span class='eld-balance-label'>{}</span><strong class='eld-last-win-value'>–</strong></p>\
    <button class='eld-mute' type='button'>{}</button>\
    <a class='eld-lobby' target='_top' hidden>{}</a>\
    <button class='eld-turbo' type='button' aria-pressed='false'>{}</button>\
    <button class='eld-help' type='button' aria-label='{}' title='{}'>?</button>\
</header>\
<div class='eld-resume' hidden><p>{}</p><button class='eld-resume-btn' type='button'>{}</button></div>\
<div class='eld-stage'>\
    <div class='eld-board' role='img' aria-label='{}' tabindex='0' aria-description='{}'>\
        <canvas class='eld-canvas' aria-hidden='true' width='500' height='300'></canvas>\
        <div class='eld-popup' hidden role='dialog' aria-labelledby='eld-popup-text'>\
            <p class='eld-popup-text' id='eld-popup-text'></p>\
            <button class='eld-popup-ok' type='button'>{}</button>\
        </div>\
    </div>\
    <div class='eld-extra-zone' role='img' hidden><span class='eld-extra-label'>{}</span><strong class='eld-extra-count'>0</strong></div>\
</div>\
<p class='eld-caption'></p>\
<p class='eld-money-tag' hidden>{}</p>\
<div class='eld-controls'>\
    <fieldset class='eld-stakes'><legend>{}</legend>{!}</fieldset>\
    <button class='eld-play' type='button' aria-keyshortcuts='Space Enter'>{}</button>\
</div>\
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
        <thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th></th></tr></thead>\
        <tbody></tbody>\
    </table>\
    <button class='eld-history-more' type='button' hidden>{}</button>\
    <div class='eld-history-detail'></div>\
</details>\
<details class='eld-info'><summary>{}</summary><div class='eld-info-body'></div></details>\
<footer class='eld-footer'><p class='eld-decided'>{}</p><p class='eld-responsible'>{}</p></footer>";

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
                lang.last_win(),
                t.sound_on,
                lang.lobby(),
                lang.turbo(),
                lang.help(),
                lang.help(),
                t.resume_offer,
                t.resume,
                t.grid_label,
                lang.uncover_hint(),
                t.ok,
                t.extra,
                t.play_money,
                t.stake,
                &stake_html,
                t.play,
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
                t.history_more,
                t.rules,
                t.decided_by_ticket,
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
            money_tag: l.get(".eld-money-tag"),
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
            info: l.get(".eld-info"),
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

/// The odds as the rules panel words them (pushed, not formatted: less
/// code in the module).
fn odds_line(lang: Lang, odds: &Odds) -> String {
    let mut line = String::from(lang.texts().odds);
    line.push(' ');
    line.push_str(&format_ratio(
        odds.tickets,
        odds.winners,
        2,
        lang.money_notation(),
    ));
    line
}

/// The return to players as the rules panel words it.
fn rtp_line(lang: Lang) -> String {
    let mut line = String::from(lang.texts().rtp);
    line.push(' ');
    line.push_str(&format_ratio(
        rtp_basis_points(),
        100,
        0,
        lang.money_notation(),
    ));
    if lang == Lang::Fr {
        line.push('\u{A0}');
    }
    line.push('%');
    line
}

/// The rules, prize table, odds, return and top prize, all from the engine
/// (never a copy of the rules here, never the server's figures); `mismatches`
/// are the server's figures that contradict them, shown as a failed check.
pub fn fill_info(body: &Element, lang: Lang, mismatches: &[Figure]) -> Result<(), JsValue> {
    let t = lang.texts();
    let money = lang.money_notation();
    let stakes = stakes();
    body.set_inner_html("");
    if !mismatches.is_empty() {
        let failure = text_child(
            body,
            "p",
            "eld-error eld-config-mismatch",
            &lang.config_mismatch(mismatches),
        )?;
        set_attr(&failure, "data-kind", "rejected");
        set_attr(&failure, "role", "alert");
    }
    text_child(body, "p", "", t.rules_intro)?;
    text_child(body, "p", "", t.rules_lines)?;
    text_child(body, "p", "", t.rules_chance)?;
    text_child(body, "p", "", t.rules_extra)?;

    text_child(body, "h3", "", t.combinations)?;
    let table = child(body, "table", "eld-combos")?;
    set_attr(&table, "id", "eld-combos");
    let head = child(&table, "tr", "")?;
    text_child(&head, "th", "", t.combination)?;
    text_child(&head, "th", "", t.gives)?;
    for &stake in &stakes {
        text_child(&head, "th", "", &format_cents_short(stake, money))?;
    }
    for combination in Combination::all() {
        let Some(award) = combination.award() else {
            continue;
        };
        let row = child(&table, "tr", "")?;
        let name = text_child(&row, "td", "", "")?;
        symbol_picture(&name, combination.symbol)?;
        name.append_with_str_1(&describe_combination(lang, combination))?;
        match award {
            Award::Win(multiple) => {
                text_child(&row, "td", "", &format!("{multiple} {}", t.times_stake))?;
                for &stake in &stakes {
                    text_child(
                        &row,
                        "td",
                        "",
                        &format_cents_short(u64::from(multiple) * stake, money),
                    )?;
                }
            }
            Award::Extra => {
                let cell = text_child(&row, "td", "", t.gives_extra)?;
                set_attr(&cell, "colspan", &decimal(stakes.len() as u64 + 1));
            }
        }
    }

    text_child(body, "h3", "", t.prize_table)?;
    let table = child(body, "table", "eld-prizes")?;
    let head = child(&table, "tr", "")?;
    text_child(&head, "th", "", t.rank)?;
    for &stake in &stakes {
        text_child(&head, "th", "", &format_cents_short(stake, money))?;
    }
    text_child(&head, "th", "", t.tickets_per_block)?;
    for row in &RANKS {
        let tr = child(&table, "tr", "")?;
        text_child(&tr, "td", "", &decimal(row.rank.into()))?;
        for &stake in &stakes {
            text_child(
                &tr,
                "td",
                "",
                &format_cents_short(u64::from(row.multiple) * stake, money),
            )?;
        }
        text_child(&tr, "td", "", &decimal(row.count.into()))?;
    }

    let facts = child(body, "ul", "eld-facts")?;
    let odds = odds();
    text_child(&facts, "li", "", &odds_line(lang, &odds))?;
    text_child(&facts, "li", "", &rtp_line(lang))?;
    let mut max = String::from(t.max_win);
    max.push(' ');
    for (i, stake) in Stake::ALL.into_iter().enumerate() {
        if i > 0 {
            max.push_str(", ");
        }
        max.push_str(&format_cents_short(max_win_cents(stake), money));
        max.push_str(" (");
        max.push_str(t.stake_word);
        max.push(' ');
        max.push_str(&format_cents_short(stake.cents(), money));
        max.push(')');
    }
    text_child(&facts, "li", "", &max)?;
    Ok(())
}

/// The symbol as drawn on the board, beside its name in the paytable (the
/// name says it for screen readers).
fn symbol_picture(parent: &Element, symbol: Symbol) -> Result<(), JsValue> {
    const SIDE: u32 = 56;
    let picture: web_sys::HtmlCanvasElement = child(parent, "canvas", "eld-sym")?.unchecked_into();
    set_attr(&picture, "aria-hidden", "true");
    picture.set_width(SIDE);
    picture.set_height(SIDE);
    let ctx = crate::board::context_2d(&picture)?;
    crate::symbols::draw_symbol(&ctx, symbol, f64::from(SIDE))
}

/// "4 soleils" style description of a combination, Chance included.
fn describe_combination(lang: Lang, combination: Combination) -> String {
    let name = lang.symbol_name(combination.symbol);
    let n = combination.effective;
    match (lang, combination.symbol, n) {
        (Lang::Fr, Symbol::Pyramide, 1) => "1 pyramide seule (sans Chance)".to_owned(),
        (Lang::En, Symbol::Pyramide, 1) => "1 lone pyramid (no Chance)".to_owned(),
        (Lang::Fr, _, _) => format!("{n} × {name} (Chance comprise)"),
        (Lang::En, _, _) => format!("{n} × {name} (Chance included)"),
    }
}

const HISTORY_ROW: &str = "\
<tr>\
    <td>{}</td><td>{}</td><td class='eld-history-result'>{}</td><td>{}</td><td class='eld-history-block'>{}</td>\
    <td>\
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
    body.insert_adjacent_html(
        "beforeend",
        &html(
            HISTORY_ROW,
            &[
                &when,
                &format_cents(item.stake_cents, money),
                &row_result_text(lang, result),
                status,
                &format!("{} / {}", item.block, item.position),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fact_lines_word_the_odds_and_the_return() {
        let odds = odds();
        for lang in [Lang::Fr, Lang::En] {
            let (t, money) = (lang.texts(), lang.money_notation());
            let expected = format!(
                "{} {}",
                t.odds,
                format_ratio(odds.tickets, odds.winners, 2, money)
            );
            assert_eq!(odds_line(lang, &odds), expected);
            let rtp = format_ratio(rtp_basis_points(), 100, 0, money);
            let percent = match lang {
                Lang::Fr => format!("{rtp}\u{A0}%"),
                Lang::En => format!("{rtp}%"),
            };
            assert_eq!(rtp_line(lang), format!("{} {percent}", t.rtp));
        }
    }
}
