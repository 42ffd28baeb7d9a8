//! Which round deals a purchase: the one it names if the witnesses proved
//! it bought before that round, else the first round published once they
//! did (docs/PROTOCOL.md §10). Both depend only on the purchase and on
//! when a quorum of witnesses first cosigned a checkpoint holding it, so
//! the operator cannot pick between two rounds after seeing one.

use super::beacon::BeaconClock;

/// The round that deals a purchase naming `named`, first held by a
/// checkpoint that a quorum of witnesses had cosigned by second
/// `quorum_cosigned_s` (the quorum-th earliest cosignature's time). A
/// cosignature of second `t` proves the purchase older than
/// `(t + 1) × 1000` ms, and no sooner: the first round published at or
/// after that, unless the named round is later still.
pub fn dealing_round(named: u64, quorum_cosigned_s: u64, clock: &BeaconClock) -> u64 {
    let proven_by = quorum_cosigned_s.saturating_add(1).saturating_mul(1000);
    named.max(clock.first_round_after(proven_by - 1))
}

/// The time of the `quorum`-th earliest of `cosigned_at` (Unix seconds):
/// when at least `quorum` witnesses had cosigned; `None` if fewer did or
/// the quorum is 0.
pub fn quorum_time(cosigned_at: &[u64], quorum: usize) -> Option<u64> {
    // The smallest time that at least `quorum` times do not exceed.
    // Without a sort: the page's few cosignatures are not worth its code.
    cosigned_at
        .iter()
        .copied()
        .filter(|&t| quorum > 0 && cosigned_at.iter().filter(|&&u| u <= t).count() >= quorum)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The demo beacon: 500 ms rounds from the epoch.
    const DEMO: BeaconClock = BeaconClock {
        genesis_ms: 0,
        period_ms: 500,
    };

    #[test]
    fn a_purchase_proven_in_time_is_dealt_by_the_round_it_names() {
        // Cosigned during second 99: proven before 100 000 ms, when round
        // 201 is published.
        assert_eq!(DEMO.time_of(201), 100_000);
        assert_eq!(dealing_round(201, 99, &DEMO), 201);
        assert_eq!(dealing_round(250, 99, &DEMO), 250);
    }

    #[test]
    fn a_late_purchase_is_dealt_by_the_first_round_after_its_proof() {
        // Cosigned during second 100: the round published at 100 000 ms
        // is too early, the next whole-second proof is 101 000 ms.
        assert_eq!(dealing_round(201, 100, &DEMO), 203);
        assert_eq!(DEMO.time_of(203), 101_000);
        // A purchase cosigned long after its round (a crash, an outage).
        assert_eq!(dealing_round(201, 3_600, &DEMO), DEMO.round_at(3_601_000));
        // quicknet's 3 s rounds: the proof at 1 692 803 371 000 ms waits
        // for the round published at 1 692 803 373 s.
        let quicknet = BeaconClock {
            genesis_ms: 1_692_803_367_000,
            period_ms: 3_000,
        };
        let round = dealing_round(1, 1_692_803_370, &quicknet);
        assert_eq!(quicknet.time_of(round), 1_692_803_373_000);
    }

    #[test]
    fn the_quorum_time_is_the_quorums_latest_cosignature() {
        assert_eq!(quorum_time(&[30, 10, 20], 1), Some(10));
        assert_eq!(quorum_time(&[30, 10, 20], 2), Some(20));
        assert_eq!(quorum_time(&[30, 10, 20], 3), Some(30));
        assert_eq!(quorum_time(&[30, 10, 20], 4), None);
        assert_eq!(quorum_time(&[30], 0), None);
    }
}
