//! Amounts in integer cents turned into text, with integer arithmetic only.
//!
//! This module knows notations, not languages: `i18n` picks the notation of
//! each language, so the dependency runs one way (`i18n` → `money`).
use crate::text::{decimal, push_decimal};

/// How amounts and decimals are written: the marks, and where the euro sign
/// goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Notation {
    pub decimal_mark: char,
    pub group_separator: char,
    pub sign: SignPlace,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignPlace {
    /// `€1.50`
    Before,
    /// `1,50 €`, joined by this separator.
    After(char),
}

impl Notation {
    /// French groups thousands with a narrow no-break space and puts a
    /// no-break space before the sign, so "1 000,50 €" never wraps inside an
    /// amount.
    pub const FRENCH: Notation = Notation {
        decimal_mark: ',',
        group_separator: '\u{202F}',
        sign: SignPlace::After('\u{A0}'),
    };

    pub const ENGLISH: Notation = Notation {
        decimal_mark: '.',
        group_separator: ',',
        sign: SignPlace::Before,
    };

    fn with_sign(self, number: String) -> String {
        // Pushed, not formatted: no `char` formatting in the module.
        match self.sign {
            SignPlace::Before => {
                let mut out = String::from("€");
                out.push_str(&number);
                out
            }
            SignPlace::After(separator) => {
                let mut out = number;
                out.push(separator);
                out.push('€');
                out
            }
        }
    }
}

/// `150` → `1,50 €` in French, `€1.50` in English.
pub fn format_cents(cents: u64, notation: Notation) -> String {
    let euros = cents / 100;
    let rest = cents % 100;
    let mut number = group(euros, notation.group_separator);
    number.push(notation.decimal_mark);
    push_decimal(&mut number, rest, 2);
    notation.with_sign(number)
}

/// Whole euros without decimals when the amount has none (prize tables):
/// `700000` → `7 000 €`, but `50` → `0,50 €`.
pub fn format_cents_short(cents: u64, notation: Notation) -> String {
    if cents % 100 != 0 {
        return format_cents(cents, notation);
    }
    notation.with_sign(group(cents / 100, notation.group_separator))
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
            push_decimal(&mut out, *part, 0);
        } else {
            out.push(separator);
            push_decimal(&mut out, *part, 3);
        }
    }
    out
}

/// A ratio of integers as a decimal with `decimals` digits, rounded half up:
/// odds "1 sur 6,62" and percentages without floats.
pub fn format_ratio(numerator: u64, denominator: u64, decimals: u32, notation: Notation) -> String {
    if denominator == 0 {
        return "–".to_owned();
    }
    let scale = 10u64.pow(decimals);
    let scaled = (numerator * scale * 2 + denominator) / (denominator * 2);
    let (whole, fraction) = (scaled / scale, scaled % scale);
    let mut out = decimal(whole);
    if decimals > 0 {
        out.push(notation.decimal_mark);
        push_decimal(&mut out, fraction, decimals as usize);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FR: Notation = Notation::FRENCH;
    const EN: Notation = Notation::ENGLISH;

    #[test]
    fn french_amounts() {
        assert_eq!(format_cents(150, FR), "1,50\u{A0}€");
        assert_eq!(format_cents(5, FR), "0,05\u{A0}€");
        assert_eq!(format_cents(0, FR), "0,00\u{A0}€");
        assert_eq!(format_cents(1_400_000, FR), "14\u{202F}000,00\u{A0}€");
        assert_eq!(format_cents_short(1_400_000, FR), "14\u{202F}000\u{A0}€");
        assert_eq!(format_cents_short(50, FR), "0,50\u{A0}€");
    }

    #[test]
    fn english_amounts() {
        assert_eq!(format_cents(150, EN), "€1.50");
        assert_eq!(format_cents(123_456_789, EN), "€1,234,567.89");
        assert_eq!(format_cents_short(100, EN), "€1");
    }

    #[test]
    fn ratios_round_half_up() {
        assert_eq!(format_ratio(400_000, 60_440, 2, FR), "6,62");
        assert_eq!(format_ratio(400_000, 60_440, 2, EN), "6.62");
        assert_eq!(format_ratio(7000, 100, 0, EN), "70");
        assert_eq!(format_ratio(1, 0, 2, EN), "–");
    }
}
