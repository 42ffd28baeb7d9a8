//! Rate limits: one token bucket per key — the player for sales, the
//! client's address where there is no player yet (demo players, launch
//! exchanges). A bucket holds up to `burst` requests and refills at `burst` per
//! `period`, continuously; an empty bucket answers 429 `RATE_LIMITED` with
//! the seconds until the next token (`Retry-After`).
//!
//! The time comes from the server's `Clock`, so tests move it instead of
//! sleeping. The table of buckets is bounded: a full bucket is the same as
//! no bucket, so those go first when it fills up.

use crate::clock::Clock;
use crate::error::ApiError;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Keys tracked at once before full buckets are dropped.
const MAX_TRACKED: usize = 100_000;

pub struct RateLimiter<K> {
    what: &'static str,
    burst: u64,
    period_ms: u64,
    clock: Arc<dyn Clock>,
    /// Credit per key, in units where one request costs `period_ms`
    /// (integers: refilling adds `burst` units per elapsed millisecond).
    buckets: Mutex<HashMap<K, Bucket>>,
}

#[derive(Clone, Copy)]
struct Bucket {
    credit: u64,
    at_ms: u64,
}

impl<K: Eq + Hash> RateLimiter<K> {
    /// `burst` requests per `period` per key (`burst` >= 1).
    pub fn new(
        what: &'static str,
        burst: u32,
        period: Duration,
        clock: Arc<dyn Clock>,
    ) -> RateLimiter<K> {
        RateLimiter {
            what,
            burst: u64::from(burst.max(1)),
            period_ms: (period.as_millis() as u64).max(1),
            clock,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    fn full(&self) -> u64 {
        self.burst.saturating_mul(self.period_ms)
    }

    fn refilled(&self, bucket: Bucket, now_ms: u64) -> u64 {
        let elapsed = now_ms.saturating_sub(bucket.at_ms);
        bucket
            .credit
            .saturating_add(elapsed.saturating_mul(self.burst))
            .min(self.full())
    }

    /// Takes one request's token for `key`, or says how long to wait.
    pub fn check(&self, key: K) -> Result<(), ApiError> {
        let now = self.clock.now_ms();
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_TRACKED && !buckets.contains_key(&key) {
            buckets.retain(|_, b| self.refilled(*b, now) < self.full());
            if buckets.len() >= MAX_TRACKED {
                // Only a flood from that many keys gets here; forgetting
                // them all is safer than growing without bound.
                buckets.clear();
            }
        }
        let full = self.full();
        let bucket = buckets.entry(key).or_insert(Bucket {
            credit: full,
            at_ms: now,
        });
        let credit = self.refilled(*bucket, now);
        if credit >= self.period_ms {
            *bucket = Bucket {
                credit: credit - self.period_ms,
                at_ms: now,
            };
            return Ok(());
        }
        let wait_ms = (self.period_ms - credit).div_ceil(self.burst);
        Err(ApiError::RateLimited {
            what: self.what,
            retry_after_secs: wait_ms.div_ceil(1000).max(1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use std::net::IpAddr;

    #[test]
    fn a_burst_is_allowed_then_refused_until_the_bucket_refills() {
        let clock = Arc::new(ManualClock::new(1_000_000));
        let limiter = RateLimiter::new("sales", 3, Duration::from_secs(1), clock.clone());
        let ann: IpAddr = [10, 0, 0, 1].into();
        let bob: IpAddr = [10, 0, 0, 2].into();
        for _ in 0..3 {
            limiter.check(ann).unwrap();
        }
        let refused = limiter.check(ann).unwrap_err();
        assert_eq!(refused.retry_after_secs(), Some(1));
        // Another address has its own bucket.
        limiter.check(bob).unwrap();
        // One token comes back every third of a second.
        clock.advance(Duration::from_millis(333));
        assert!(limiter.check(ann).is_err());
        clock.advance(Duration::from_millis(1));
        limiter.check(ann).unwrap();
        assert!(limiter.check(ann).is_err());
    }

    #[test]
    fn retry_after_counts_whole_seconds_up() {
        let clock = Arc::new(ManualClock::new(0));
        let limiter = RateLimiter::new("demo players", 2, Duration::from_secs(60), clock);
        let ip: IpAddr = [10, 0, 0, 1].into();
        limiter.check(ip).unwrap();
        limiter.check(ip).unwrap();
        // One token per 30 s.
        assert_eq!(limiter.check(ip).unwrap_err().retry_after_secs(), Some(30));
    }
}
