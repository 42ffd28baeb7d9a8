//! The console's page shell (navigation, language, sign-out) and the
//! formats every page shares: money in cents, UTC times.

use super::text::Lang;
use super::Console;
use maud::{html, Markup, DOCTYPE};

/// The page a navigation link leads to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    Overview,
    Blocks,
    Players,
    Wallet,
}

fn head(title: &str) -> Markup {
    html! {
        meta charset="utf-8";
        meta name="viewport" content="width=device-width, initial-scale=1";
        meta name="robots" content="noindex";
        title { (title) " · Eldorado" }
        link rel="stylesheet" href="/operator/console.css";
    }
}

pub fn page(console: &Console, nav: Nav, path: &str, title: &str, body: Markup) -> Markup {
    let t = console.text();
    let other = console.lang.other();
    let links = [
        (Nav::Overview, "/operator/", t.overview),
        (Nav::Blocks, "/operator/blocks", t.blocks),
        (Nav::Players, "/operator/players", t.players),
        (Nav::Wallet, "/operator/wallet", t.wallet),
    ];
    html! {
        (DOCTYPE)
        html lang=(console.lang.code()) {
            head { (head(title)) }
            body {
                header {
                    span.brand { "Eldorado · " (t.back_office) }
                    nav aria-label=(t.back_office) {
                        @for (item, href, label) in links {
                            @if item == nav {
                                a href=(href) aria-current="page" { (label) }
                            } @else {
                                a href=(href) { (label) }
                            }
                        }
                    }
                    a.lang href={ "/operator/lang?to=" (other.code()) "&back=" (path) } lang=(other.code()) {
                        (other.name())
                    }
                    form.sign-out method="post" action="/operator/sign-out" {
                        input type="hidden" name="csrf" value=(console.csrf);
                        button type="submit" { (t.sign_out) }
                    }
                }
                main {
                    h1 { (title) }
                    (body)
                }
            }
        }
    }
}

pub fn sign_in(lang: Lang, failed: bool, signed_out: bool) -> Markup {
    let t = lang.text();
    html! {
        (DOCTYPE)
        html lang=(lang.code()) {
            head { (head(t.sign_in)) }
            body.sign-in {
                main {
                    h1 { "Eldorado · " (t.back_office) }
                    @if failed { p.alert role="alert" { (t.wrong_key) } }
                    @if signed_out { p.note role="status" { (t.signed_out) } }
                    form method="post" action="/operator/sign-in" {
                        label for="key" { (t.operator_key) }
                        input #key type="password" name="key" autocomplete="off" required;
                        button type="submit" { (t.sign_in) }
                    }
                    p.note { (t.key_note) }
                }
            }
        }
    }
}

/// A page for an error, without navigation (the visitor may not be
/// signed in).
pub fn bare(message: &str) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head { (head(message)) }
            body { main { h1 { (message) } p { a href="/operator/" { "Eldorado · back office" } } } }
        }
    }
}

/// Cents as euros, in the page's language: `1 234,50 €` or `€1,234.50`.
pub fn euros(lang: Lang, cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let abs = cents.unsigned_abs();
    let (whole, part) = (abs / 100, abs % 100);
    let digits = whole.to_string();
    let (group, decimal) = match lang {
        Lang::Fr => ('\u{202f}', ','),
        Lang::En => (',', '.'),
    };
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(group);
        }
        grouped.push(c);
    }
    match lang {
        Lang::Fr => format!("{sign}{grouped}{decimal}{part:02}\u{a0}€"),
        Lang::En => format!("{sign}€{grouped}{decimal}{part:02}"),
    }
}

pub fn euros_u(lang: Lang, cents: u64) -> String {
    euros(lang, i64::try_from(cents).unwrap_or(i64::MAX))
}

/// A Unix time in ms as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn utc(ms: u64) -> String {
    let seconds = i64::try_from(ms / 1000).unwrap_or(i64::MAX);
    match time::OffsetDateTime::from_unix_timestamp(seconds) {
        Ok(t) => format!(
            "{} {:02}:{:02}:{:02} UTC",
            t.date(),
            t.hour(),
            t.minute(),
            t.second()
        ),
        Err(_) => ms.to_string(),
    }
}

/// A duration in ms as `1 h 02 min`, `3 min 05 s` or `12 s`.
pub fn age(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

/// Basis points as a percentage with two decimals.
pub fn percent(lang: Lang, basis_points: u64) -> String {
    let text = format!("{}.{:02} %", basis_points / 100, basis_points % 100);
    match lang {
        Lang::Fr => text.replace('.', ","),
        Lang::En => text.replace(" %", "%"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_is_written_as_each_language_writes_it() {
        assert_eq!(euros(Lang::Fr, 123_450), "1\u{202f}234,50\u{a0}€");
        assert_eq!(euros(Lang::En, 123_450), "€1,234.50");
        assert_eq!(euros(Lang::En, -5), "-€0.05");
        assert_eq!(euros(Lang::Fr, 50), "0,50\u{a0}€");
        assert_eq!(euros(Lang::En, 100_000_000), "€1,000,000.00");
    }

    #[test]
    fn times_and_shares() {
        assert_eq!(utc(1_764_892_800_000), "2025-12-05 00:00:00 UTC");
        assert_eq!(age(59_999), "59 s");
        assert_eq!(age(3_723_000), "1 h 02 min");
        assert_eq!(percent(Lang::Fr, 7_000), "70,00 %");
        assert_eq!(percent(Lang::En, 6_543), "65.43%");
    }
}
