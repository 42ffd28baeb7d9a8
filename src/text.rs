//! Whole numbers written in decimal by one non-generic function: each
//! integer type's `to_string` and each padded `format!` otherwise brings its
//! own code into the module (issue 13: the page's download size). Likewise
//! a byte search for ASCII separators.

/// Appends `n` in decimal, zero-padded on the left to at least `width`
/// digits (at most 20), as `{n:0width$}` writes it.
pub fn push_decimal(out: &mut String, mut n: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let start = start.min(digits.len().saturating_sub(width));
    // Pushed one by one: `str::from_utf8` would inline its validation here.
    for &digit in &digits[start..] {
        out.push(char::from(digit));
    }
}

/// `n` in decimal, as `n.to_string()` writes it.
pub fn decimal(n: u64) -> String {
    around("", n, "")
}

/// `format!("{before}{n}{after}")`, without a formatting call per site.
pub fn around(before: &str, n: u64, after: &str) -> String {
    let mut out = String::from(before);
    push_decimal(&mut out, n, 0);
    out.push_str(after);
    out
}

/// `text.parse::<u64>().ok()`: ASCII digits after an optional `+`, `None`
/// when empty or above `u64::MAX`, without the std parser's radix code.
pub fn parse_decimal(text: &str) -> Option<u64> {
    let digits = match text.as_bytes() {
        [b'+', rest @ ..] => rest,
        all => all,
    };
    if digits.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for &b in digits {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(digit))?;
    }
    Some(n)
}

/// `text.split_once(sep)` for an ASCII `sep`: a plain byte search, where a
/// `char` pattern brings its searcher and `memchr` into the module.
pub fn split_once(text: &str, sep: u8) -> Option<(&str, &str)> {
    let i = text.bytes().position(|b| b == sep)?;
    Some((&text[..i], &text[i + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_once_matches_str() {
        for text in ["", "a", "=", "a=b", "a=b=c", "=b", "a=", "é=€", "ab"] {
            assert_eq!(split_once(text, b'='), text.split_once('='));
        }
    }

    #[test]
    fn parse_decimal_matches_str_parse() {
        for text in [
            "",
            "+",
            "-",
            "-0",
            "0",
            "+0",
            "00",
            "7",
            "42",
            "+42",
            "++4",
            "4+",
            " 4",
            "4 ",
            "4a",
            "１",
            "123456789",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "000018446744073709551615",
            "184467440737095516150",
        ] {
            assert_eq!(parse_decimal(text), text.parse::<u64>().ok(), "{text:?}");
        }
    }

    #[test]
    fn decimal_writes_as_display_does() {
        for n in [
            0,
            1,
            9,
            10,
            99,
            100,
            101,
            12_345,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            assert_eq!(decimal(n), n.to_string());
        }
    }

    #[test]
    fn around_matches_format() {
        assert_eq!(around("a ", 42, " b"), format!("a {} b", 42));
        assert_eq!(around("", 0, ""), "0");
    }

    #[test]
    fn padding_matches_format() {
        for n in [0, 5, 42, 999, 1000, 123_456_789] {
            for width in [0, 1, 2, 3, 7] {
                let mut out = String::from("x");
                push_decimal(&mut out, n, width);
                assert_eq!(out, format!("x{n:0width$}"));
            }
        }
    }
}
