//! When the seamless wallet's outbox sends a queued credit or rollback
//! again: per item, exponential backoff from `--wallet-retry-ms`, doubled
//! at each failed attempt up to `--wallet-retry-max-ms`, with jitter so
//! that items that failed together do not come back together. Pure: the
//! time and the jitter are given.

use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    pub base_ms: u64,
    pub cap_ms: u64,
}

impl Backoff {
    /// The step after `failures` failed attempts (1 → base, 2 → 2×base,
    /// … up to the cap).
    pub fn step_ms(&self, failures: u32) -> u64 {
        let doublings = failures.saturating_sub(1).min(32);
        self.base_ms
            .saturating_mul(1u64 << doublings)
            .min(self.cap_ms)
            .max(1)
    }

    /// The wait before the next attempt: half the step, plus `jitter`
    /// (in `0.0..1.0`) of the other half ("equal jitter"), so never less
    /// than half a step nor more than a step.
    pub fn delay_ms(&self, failures: u32, jitter: f64) -> u64 {
        let step = self.step_ms(failures);
        let half = step / 2;
        half + ((step - half) as f64 * jitter.clamp(0.0, 1.0)) as u64
    }
}

/// The items that failed, with when each may be sent again.
#[derive(Debug, Default)]
pub struct Schedule {
    waiting: HashMap<String, Waiting>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Waiting {
    failures: u32,
    next_at_ms: u64,
}

impl Schedule {
    /// Whether `id` may be sent at `now_ms`: never failed here, or its
    /// wait is over.
    pub fn is_due(&self, id: &str, now_ms: u64) -> bool {
        self.waiting.get(id).is_none_or(|w| w.next_at_ms <= now_ms)
    }

    /// `id` failed at `now_ms`, after `stored_failures` failed attempts
    /// recorded before this process (the count survives a restart, the
    /// wait does not): it waits one step more than its last.
    pub fn failed(
        &mut self,
        id: &str,
        now_ms: u64,
        stored_failures: u32,
        backoff: &Backoff,
        jitter: f64,
    ) {
        let failures = self
            .waiting
            .get(id)
            .map_or(stored_failures, |w| w.failures.max(stored_failures))
            + 1;
        let next_at_ms = now_ms.saturating_add(backoff.delay_ms(failures, jitter));
        self.waiting.insert(
            id.to_owned(),
            Waiting {
                failures,
                next_at_ms,
            },
        );
    }

    /// Every waiting item may be sent at once (the console's « retry
    /// now »); each keeps its count of failures, so its next wait is as long.
    pub fn all_due(&mut self) {
        for waiting in self.waiting.values_mut() {
            waiting.next_at_ms = 0;
        }
    }

    /// `id` was acknowledged: nothing more to schedule.
    pub fn done(&mut self, id: &str) {
        self.waiting.remove(id);
    }

    /// Forgets items no longer queued (acknowledged by another server).
    pub fn keep_only<'a>(&mut self, queued: impl IntoIterator<Item = &'a str>) {
        let queued: std::collections::HashSet<&str> = queued.into_iter().collect();
        self.waiting.retain(|id, _| queued.contains(id.as_str()));
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BACKOFF: Backoff = Backoff {
        base_ms: 500,
        cap_ms: 8_000,
    };

    #[test]
    fn steps_double_up_to_the_cap() {
        let steps: Vec<u64> = (1..=7).map(|f| BACKOFF.step_ms(f)).collect();
        assert_eq!(steps, [500, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
        assert_eq!(BACKOFF.step_ms(u32::MAX), 8_000);
    }

    #[test]
    fn jitter_keeps_each_wait_between_half_a_step_and_a_step() {
        for failures in 1..10 {
            let step = BACKOFF.step_ms(failures);
            assert_eq!(BACKOFF.delay_ms(failures, 0.0), step / 2);
            assert_eq!(BACKOFF.delay_ms(failures, 1.0), step);
            let mid = BACKOFF.delay_ms(failures, 0.5);
            assert!(mid > step / 2 && mid < step);
        }
    }

    #[test]
    fn an_item_is_sent_at_most_once_per_step() {
        let mut schedule = Schedule::default();
        assert!(schedule.is_due("credit:r1", 0));
        schedule.failed("credit:r1", 1_000, 0, &BACKOFF, 1.0);
        assert!(!schedule.is_due("credit:r1", 1_499));
        assert!(schedule.is_due("credit:r1", 1_500));
        schedule.failed("credit:r1", 1_500, 0, &BACKOFF, 1.0);
        assert!(!schedule.is_due("credit:r1", 2_499));
        assert!(schedule.is_due("credit:r1", 2_500));
        // Other items are not held up by this one.
        assert!(schedule.is_due("credit:r2", 1_000));
        schedule.done("credit:r1");
        assert!(schedule.is_empty());
    }

    #[test]
    fn attempts_recorded_before_a_restart_keep_their_step() {
        let mut schedule = Schedule::default();
        schedule.failed("rollback:r9", 0, 3, &BACKOFF, 1.0);
        assert!(!schedule.is_due("rollback:r9", 3_999));
        assert!(schedule.is_due("rollback:r9", 4_000));
    }

    #[test]
    fn items_acknowledged_elsewhere_are_forgotten() {
        let mut schedule = Schedule::default();
        schedule.failed("a", 0, 0, &BACKOFF, 0.0);
        schedule.failed("b", 0, 0, &BACKOFF, 0.0);
        schedule.keep_only(["b"]);
        assert_eq!(schedule.len(), 1);
        assert!(schedule.is_due("a", 0));
    }
}
