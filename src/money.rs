//! Amounts in integer cents turned into text, with integer arithmetic only.

use crate::i18n::Lang;

/// French groups thousands with a narrow no-break space and puts a no-break
/// space before the sign, so "1 000,50 €" never wraps inside an amount.
const FR_GROUP: char = '\u{202F}';
const FR_BEFORE_SIGN: char = '\u{A0}';

/// `150` → `1,50 €` in French, `€1.50` in English.
pub fn format_cents(cents: u64, lang: Lang) -> String {
    let euros = cents / 100;
    let rest = cents % 100;
    match lang {
        Lang::Fr => format!("{},{rest:02}{FR_BEFORE_SIGN}€", group(euros, FR_GROUP)),
        Lang::En => format!("€{}.{rest:02}", group(euros, ',')),
    }
}

/// Whole euros without decimals when the amount has none (prize tables):
/// `700000` → `7 000 €`, but `50` → `0,50 €`.
pub fn format_cents_short(cents: u64, lang: Lang) -> String {
    if cents % 100 != 0 {
        return format_cents(cents, lang);
    }
    let euros = cents / 100;
    match lang {
        Lang::Fr => format!("{}{FR_BEFORE_SIGN}€", group(euros, FR_GROUP)),
        Lang::En => format!("€{}", group(euros, ',')),
    }
}

fn group(mut value: u64, separator: char) -> String {
    let mut groups = Vec::new();
    loop {
        groups.push(value % 1000);
        value /= 1000;
        if value == 0 {
            break;
        }
    }
    let mut out = String::new();
    for (i, part) in groups.iter().rev().enumerate() {
        if i == 0 {
            out.push_str(&part.to_string());
        } else {
            out.push(separator);
            out.push_str(&format!("{part:03}"));
        }
    }
    out
}

/// A ratio of integers as a decimal with `decimals` digits, rounded half up:
/// odds "1 sur 6,62" and percentages without floats.
pub fn format_ratio(numerator: u64, denominator: u64, decimals: u32, lang: Lang) -> String {
    if denominator == 0 {
        return "–".to_owned();
    }
    let scale = 10u64.pow(decimals);
    let scaled = (numerator * scale * 2 + denominator) / (denominator * 2);
    let (whole, fraction) = (scaled / scale, scaled % scale);
    if decimals == 0 {
        return whole.to_string();
    }
    let point = match lang {
        Lang::Fr => ',',
        Lang::En => '.',
    };
    format!(
        "{whole}{point}{fraction:0width$}",
        width = decimals as usize
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn french_amounts() {
        assert_eq!(format_cents(150, Lang::Fr), "1,50\u{A0}€");
        assert_eq!(format_cents(5, Lang::Fr), "0,05\u{A0}€");
        assert_eq!(format_cents(0, Lang::Fr), "0,00\u{A0}€");
        assert_eq!(format_cents(1_400_000, Lang::Fr), "14\u{202F}000,00\u{A0}€");
        assert_eq!(
            format_cents_short(1_400_000, Lang::Fr),
            "14\u{202F}000\u{A0}€"
        );
        assert_eq!(format_cents_short(50, Lang::Fr), "0,50\u{A0}€");
    }

    #[test]
    fn english_amounts() {
        assert_eq!(format_cents(150, Lang::En), "€1.50");
        assert_eq!(format_cents(123_456_789, Lang::En), "€1,234,567.89");
        assert_eq!(format_cents_short(100, Lang::En), "€1");
    }

    #[test]
    fn ratios_round_half_up() {
        assert_eq!(format_ratio(400_000, 60_440, 2, Lang::Fr), "6,62");
        assert_eq!(format_ratio(400_000, 60_440, 2, Lang::En), "6.62");
        assert_eq!(format_ratio(7000, 100, 0, Lang::En), "70");
        assert_eq!(format_ratio(1, 0, 2, Lang::En), "–");
    }
}
