//! The count-up of a prize in « Dernier gain »: from zero to the amount,
//! quick at first and slowing to land on it. Integer cents throughout.

/// How long the count takes.
pub const DURATION_MS: f64 = 900.0;

/// The amount shown `elapsed` ms into counting up to `to` cents: whole
/// cents, never above `to`, exactly `to` once the count is over.
pub fn shown(to: u64, elapsed: f64) -> u64 {
    if elapsed.is_nan() || elapsed >= DURATION_MS {
        return to;
    }
    if elapsed <= 0.0 {
        return 0;
    }
    // Ease-out (1 − (1 − t)³) in thousandths, so that the cents stay integers.
    let t = (elapsed / DURATION_MS * 1000.0) as u64;
    let rest = 1000 - t;
    let eased = 1_000_000_000 - rest * rest * rest;
    (u128::from(to) * u128::from(eased) / 1_000_000_000) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_at_zero_and_lands_on_the_amount() {
        assert_eq!(shown(700_000, 0.0), 0);
        assert_eq!(shown(700_000, DURATION_MS), 700_000);
        assert_eq!(
            shown(700_000, f64::NAN),
            700_000,
            "a bad clock shows the amount"
        );
        assert_eq!(
            shown(u64::MAX, DURATION_MS * 0.999),
            shown(u64::MAX, DURATION_MS * 0.999)
        );
    }

    #[test]
    fn rises_and_never_overshoots() {
        let mut last = 0;
        for step in 0..=100 {
            let now = shown(12_345, DURATION_MS * f64::from(step) / 100.0);
            assert!(now >= last && now <= 12_345, "{step}: {now}");
            last = now;
        }
        assert!(shown(10_000, DURATION_MS / 2.0) > 5_000, "quick at first");
    }
}
