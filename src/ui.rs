//! The page's elements: built once in Rust (so the tests can mount the
//! whole game anywhere), then only updated.

use crate::api::HistoryItem;
use crate::dom::{child, set_attr, set_text, text_child};
use crate::history::RowResult;
use crate::i18n::Lang;
use crate::money::{format_cents, format_cents_short, format_ratio};
use crate::rules_check::{max_wins, odds, prize_rows, stakes, Figure};
use eldorado_engine::line::Award;
use eldorado_engine::prize_table::rtp_basis_points;
use eldorado_engine::verify::Check;
use eldorado_engine::{Combination, Symbol};
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

fn button(parent: &Element, class: &str, text: &str) -> Result<HtmlButtonElement, JsValue> {
    let b: HtmlButtonElement = child(parent, "button", class)?.dyn_into()?;
    b.set_type("button");
    b.set_text_content(Some(text));
    Ok(b)
}

/// A hidden link that leaves the game for the portal: it replaces the
/// whole portal page (`target="_top"`), which browsers allow a framed page
/// on a player's click.
fn lobby_link(parent: &Element, class: &str, text: &str) -> Result<HtmlAnchorElement, JsValue> {
    let link: HtmlAnchorElement = child(parent, "a", class)?.dyn_into()?;
    link.set_text_content(Some(text));
    link.set_target("_top");
    link.set_hidden(true);
    Ok(link)
}

impl Ui {
    pub fn build(root: &HtmlElement, lang: Lang, stakes: &[u64]) -> Result<Ui, JsValue> {
        let t = lang.texts();
        let money = lang.money_notation();
        root.set_inner_html("");
        root.class_list().add_1("eld")?;
        set_attr(root, "lang", lang.code());

        let top = child(root, "header", "eld-top")?;
        text_child(&top, "h1", "eld-title", t.title)?;
        let wallet = child(&top, "p", "eld-balance")?;
        text_child(&wallet, "span", "eld-balance-label", t.balance)?;
        let balance = text_child(&wallet, "strong", "eld-balance-value", "–")?;
        let last = child(&top, "p", "eld-last-win")?;
        text_child(&last, "span", "eld-balance-label", lang.last_win())?;
        let last_win = text_child(&last, "strong", "eld-last-win-value", "–")?;
        let mute = button(&top, "eld-mute", t.sound_on)?;
        let lobby = lobby_link(&top, "eld-lobby", lang.lobby())?;
        let turbo = button(&top, "eld-turbo", lang.turbo())?;
        set_attr(&turbo, "aria-pressed", "false");
        let help = button(&top, "eld-help", "?")?;
        set_attr(&help, "aria-label", lang.help());
        set_attr(&help, "title", lang.help());

        let resume_box = child(root, "div", "eld-resume")?;
        resume_box.set_hidden(true);
        text_child(&resume_box, "p", "", t.resume_offer)?;
        let resume = button(&resume_box, "eld-resume-btn", t.resume)?;

        let stage = child(root, "div", "eld-stage")?;
        let board_box = child(&stage, "div", "eld-board")?;
        set_attr(&board_box, "role", "img");
        set_attr(&board_box, "aria-label", t.grid_label);
        // Focusable, so that the keyboard can uncover columns early.
        set_attr(&board_box, "tabindex", "0");
        set_attr(&board_box, "aria-description", lang.uncover_hint());
        let canvas: HtmlCanvasElement = child(&board_box, "canvas", "eld-canvas")?.dyn_into()?;
        // The live region speaks the grid; the drawing itself says nothing.
        set_attr(&canvas, "aria-hidden", "true");
        canvas.set_width(500);
        canvas.set_height(300);
        let popup = child(&board_box, "div", "eld-popup")?;
        popup.set_hidden(true);
        set_attr(&popup, "role", "dialog");
        set_attr(&popup, "aria-labelledby", "eld-popup-text");
        let popup_text = child(&popup, "p", "eld-popup-text")?;
        popup_text.set_id("eld-popup-text");
        let popup_ok = button(&popup, "eld-popup-ok", t.ok)?;
        let extra_zone = child(&stage, "div", "eld-extra-zone")?;
        // Without a role, a `div`'s `aria-label` is read by no screen reader.
        set_attr(&extra_zone, "role", "img");
        text_child(&extra_zone, "span", "eld-extra-label", t.extra)?;
        let extra_count = text_child(&extra_zone, "strong", "eld-extra-count", "0")?;
        extra_zone.set_hidden(true);

        let caption = text_child(root, "p", "eld-caption", "")?;
        let money_tag = text_child(root, "p", "eld-money-tag", t.play_money)?;
        money_tag.set_hidden(true);

        let controls = child(root, "div", "eld-controls")?;
        let group = child(&controls, "fieldset", "eld-stakes")?;
        text_child(&group, "legend", "", t.stake)?;
        let mut stake_buttons = Vec::new();
        for &stake in stakes {
            let b = button(&group, "eld-stake", &format_cents_short(stake, money))?;
            set_attr(&b, "data-stake", &stake.to_string());
            stake_buttons.push((stake, b));
        }
        let play = button(&controls, "eld-play", t.play)?;
        set_attr(&play, "aria-keyshortcuts", "Space Enter");

        let notice = child(root, "div", "eld-notice")?;
        notice.set_hidden(true);
        let notice_text = child(&notice, "p", "eld-notice-text")?;
        let retry = button(&notice, "eld-retry", t.retry)?;
        let notice_lobby = lobby_link(&notice, "eld-notice-lobby", lang.back_to_lobby())?;

        let badge = child(root, "details", "eld-badge")?;
        badge.set_hidden(true);
        let summary = child(&badge, "summary", "")?;
        let badge_label = text_child(&summary, "span", "eld-badge-label", t.verified)?;
        text_child(&badge, "p", "", t.checks_intro)?;
        let badge_list = child(&badge, "ul", "eld-checks")?;
        let badge_key = text_child(&badge, "p", "eld-key", "")?;

        let live = child(root, "div", "eld-live")?;
        set_attr(&live, "aria-live", "polite");
        set_attr(&live, "aria-atomic", "true");
        set_attr(&live, "role", "status");

        let history = child(root, "details", "eld-history")?;
        text_child(&history, "summary", "", t.history)?;
        let table = child(&history, "table", "eld-history-table")?;
        let head = child(&table, "thead", "")?;
        let row = child(&head, "tr", "")?;
        for title in [
            t.history_time,
            t.stake,
            t.history_result,
            t.history_status,
            lang.protection().history_block,
            "",
        ] {
            text_child(&row, "th", "", title)?;
        }
        let history_body = child(&table, "tbody", "")?;
        let history_more = button(&history, "eld-history-more", t.history_more)?;
        history_more.set_hidden(true);
        let history_detail = child(&history, "div", "eld-history-detail")?;

        let info = child(root, "details", "eld-info")?;
        text_child(&info, "summary", "", t.rules)?;
        let info_body = child(&info, "div", "eld-info-body")?;

        let footer = child(root, "footer", "eld-footer")?;
        text_child(&footer, "p", "eld-decided", t.decided_by_ticket)?;
        text_child(&footer, "p", "eld-responsible", t.responsible)?;

        Ok(Ui {
            root: root.clone(),
            balance,
            mute,
            lobby,
            last_win,
            help,
            turbo,
            resume_box,
            resume,
            canvas,
            board_box,
            popup,
            popup_text,
            popup_ok,
            extra_zone,
            extra_count,
            caption,
            money_tag,
            stakes: stake_buttons,
            play,
            notice,
            notice_text,
            retry,
            notice_lobby,
            badge,
            badge_label,
            badge_list,
            badge_key,
            live,
            history,
            history_body,
            history_more,
            history_detail,
            info,
            info_body,
        })
    }
}

/// Fills a list with every check that ran on a verified ticket.
pub fn fill_checks(list: &Element, lang: Lang, checks: &[Check]) -> Result<(), JsValue> {
    list.set_inner_html("");
    for check in checks {
        let item = text_child(list, "li", "eld-check-ok", lang.check_label(*check))?;
        set_attr(&item, "data-check", check.code());
    }
    Ok(())
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
                set_attr(&cell, "colspan", &(stakes.len() + 1).to_string());
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
    for row in &prize_rows() {
        let tr = child(&table, "tr", "")?;
        text_child(&tr, "td", "", &row.rank.to_string())?;
        for &stake in &stakes {
            text_child(
                &tr,
                "td",
                "",
                &format_cents_short(row.multiple * stake, money),
            )?;
        }
        text_child(&tr, "td", "", &row.count.to_string())?;
    }

    let facts = child(body, "ul", "eld-facts")?;
    let odds = odds();
    text_child(
        &facts,
        "li",
        "",
        &format!(
            "{} {}",
            t.odds,
            format_ratio(odds.tickets, odds.winners, 2, money)
        ),
    )?;
    let rtp = format_ratio(rtp_basis_points(), 100, 0, money);
    let percent = match lang {
        Lang::Fr => format!("{rtp}\u{A0}%"),
        Lang::En => format!("{rtp}%"),
    };
    text_child(&facts, "li", "", &format!("{} {percent}", t.rtp))?;
    let max: Vec<String> = max_wins()
        .into_iter()
        .map(|(s, m)| {
            format!(
                "{} ({} {})",
                format_cents_short(m, money),
                t.stake_word,
                format_cents_short(s, money)
            )
        })
        .collect();
    text_child(
        &facts,
        "li",
        "",
        &format!("{} {}", t.max_win, max.join(", ")),
    )?;
    Ok(())
}

/// The symbol as drawn on the board, beside its name in the paytable (the
/// name says it for screen readers).
fn symbol_picture(parent: &Element, symbol: Symbol) -> Result<(), JsValue> {
    const SIDE: u32 = 56;
    let picture: web_sys::HtmlCanvasElement = child(parent, "canvas", "eld-sym")?.dyn_into()?;
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

/// One history row, its result as this page may show it.
pub fn history_row(
    body: &Element,
    lang: Lang,
    item: &HistoryItem,
    result: RowResult,
) -> Result<(), JsValue> {
    let t = lang.texts();
    let money = lang.money_notation();
    let row = child(body, "tr", "")?;
    let date = js_sys::Date::new(&JsValue::from_f64(item.sold_at_ms as f64));
    let locale = match lang {
        Lang::Fr => "fr-FR",
        Lang::En => "en-GB",
    };
    let when: String = date.to_locale_string(locale, &JsValue::UNDEFINED).into();
    text_child(&row, "td", "", &when)?;
    text_child(&row, "td", "", &format_cents(item.stake_cents, money))?;
    let cell = child(&row, "td", "eld-history-result")?;
    fill_row_result(&cell, lang, result);
    let status = if item.is_revealed() {
        t.revealed
    } else {
        t.unrevealed
    };
    text_child(&row, "td", "", status)?;
    text_child(
        &row,
        "td",
        "eld-history-block",
        &format!("{} / {}", item.block, item.position),
    )?;
    let cell = child(&row, "td", "")?;
    let open = button(&cell, "eld-history-open", "↗")?;
    let label = match lang {
        Lang::Fr => format!("Voir le ticket n° {}", item.sale_id),
        Lang::En => format!("Show ticket no. {}", item.sale_id),
    };
    set_attr(&open, "aria-label", &label);
    set_attr(&open, "data-sale", &item.sale_id.to_string());
    let receipt = button(&cell, "eld-history-receipt", t.receipt)?;
    let label = match lang {
        Lang::Fr => format!("Télécharger le reçu du ticket n° {}", item.sale_id),
        Lang::En => format!("Download the receipt of ticket no. {}", item.sale_id),
    };
    set_attr(&receipt, "aria-label", &label);
    set_attr(&receipt, "data-receipt", &item.sale_id.to_string());
    Ok(())
}

/// A history row's result cell: a result only once revealed and verified.
fn fill_row_result(cell: &Element, lang: Lang, result: RowResult) {
    let t = lang.texts();
    let text = match result {
        RowResult::NotRevealed => t.history_hidden.to_owned(),
        RowResult::Unverified => t.not_verified.to_owned(),
        RowResult::Won(prize) => {
            format!("{} {}", t.won, format_cents(prize, lang.money_notation()))
        }
        RowResult::Lost => t.lost.to_owned(),
        RowResult::Refused => t.history_refused.to_owned(),
    };
    set_text(cell, &text);
}
